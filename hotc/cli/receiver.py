"""The alarm receiver of ``hotc watch --listen``: what a ScalingPolicy's ``alarm_url`` points at when a
receiver is configured (``[signals] receiver_url``).

An alarm service (Aodh's ``http://``/``https://`` notifier) POSTs its alarm as JSON to the URL with no other
credential, which a presigned S3 URL cannot take (its signature fixes the method to PUT). The receiver takes
``POST /v1/signal/POLICY_ID/TOKEN``: it checks the token against the sha256 the policy's create stored beside
the policy's object, then stores the body as a pending signal of that object, exactly as a PUT to the
policy's ``signal_url`` would. It never decides or applies anything itself; the watcher does, under the
stack's lock. Answers: 202 stored, 404 unknown policy or wrong token (the same for both), 413 a body over 64
KiB, 405 any other method.
"""

from __future__ import annotations

import hmac
import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hotc.errors import HotcError
from hotc.providers.native.scaling_policy import ALARM_SUFFIX, POLICIES, RECEIVER_PATH, token_digest

MAX_BODY = 64 * 1024
_PATH = re.compile(re.escape(RECEIVER_PATH) + r"([0-9a-f-]{36})/([A-Za-z0-9_-]{20,100})/?$")


class Receiver:
    """A threaded HTTP server on ``host:port`` storing alarm POSTs for ``stack``'s policies in ``store``;
    ``on_signal(policy_id)`` is called after each one is stored (the watcher wakes up)."""

    def __init__(
        self,
        host: str,
        port: int,
        stack: str,
        store: Any,
        on_signal: Callable[[str], None],
        log: Callable[[str], None],
    ) -> None:
        self.stack = stack
        self.store = store
        self.on_signal = on_signal
        self.log = log
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                return  # one line per signal is logged by the receiver, not one per request

            def _answer(self, code: int, text: str) -> None:
                body = (json.dumps({"status": code, "message": text}) + "\n").encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                code, text = receiver.handle(self.path, self.headers.get("Content-Length"), self.rfile)
                self._answer(code, text)

            def do_PUT(self) -> None:  # noqa: N802
                self.do_POST()

            def do_GET(self) -> None:  # noqa: N802
                self._answer(405, "POST an alarm to a ScalingPolicy's alarm_url")

        try:
            self.server = ThreadingHTTPServer((host, port), Handler)
        except OSError as exc:
            raise HotcError(f"hotc watch --listen {host}:{port}: cannot listen: {exc.strerror}") from None
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="hotc-receiver", daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def handle(self, path: str, length: str | None, body_stream: Any) -> tuple[int, str]:
        m = _PATH.match(path.split("?", 1)[0])
        if m is None:
            return 404, "no such alarm URL"
        pid, token = m.group(1), m.group(2)
        try:
            n = int(length or 0)
        except ValueError:
            return 400, "bad Content-Length"
        if n > MAX_BODY:
            return 413, f"an alarm body is at most {MAX_BODY} bytes"
        body = body_stream.read(n) if n > 0 else b""
        key = self.store.key(self.stack, POLICIES, pid)
        try:
            raw = self.store.get(key + ALARM_SUFFIX)
            want = json.loads(raw.decode()).get("sha256") if raw else None
        except (HotcError, ValueError, AttributeError):
            want = None
        if not isinstance(want, str) or not hmac.compare_digest(want, token_digest(token)):
            return 404, "no such alarm URL"
        try:
            self.store.put(key, body)
        except HotcError as exc:
            self.log(f"receiver: could not store an alarm for policy {pid}: {exc.message}")
            return 503, "the signal store did not take the alarm; retry"
        self.log(f"receiver: alarm stored for policy {pid} ({len(body)} bytes)")
        self.on_signal(pid)
        return 202, "alarm stored; the watcher executes it"
