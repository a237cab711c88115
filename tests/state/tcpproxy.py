"""A small TCP proxy for failure tests: put it between boto3 and moto_server, then make the "S3 endpoint"
vanish (``stop``: connections refused, open ones cut) and come back (``start``) while moto keeps its data,
or answer the next N HTTP requests with ``503 Service Unavailable``."""

from __future__ import annotations

import socket
import threading


class TcpProxy:
    def __init__(self, target_port: int, port: int = 0) -> None:
        self.target = ("127.0.0.1", target_port)
        self.port = port
        self.fail_next = 0  # answer this many requests with 503
        self.drop_responses = 0  # swallow this many responses (the request did reach the server) and cut
        self.failed = 0
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(64)
        self.port = s.getsockname()[1]
        self._listener = s
        threading.Thread(target=self._accept, args=(s,), daemon=True).start()

    def stop(self) -> None:
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        with self._lock:
            for c in self._conns:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                c.close()
            self._conns.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            with self._lock:
                if self.fail_next > 0:
                    self.fail_next -= 1
                    self.failed += 1
                    threading.Thread(target=self._answer_503, args=(client,), daemon=True).start()
                    continue
                try:
                    upstream = socket.create_connection(self.target)
                except OSError:
                    client.close()
                    continue
                self._conns += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    @staticmethod
    def _answer_503(client: socket.socket) -> None:
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = client.recv(65536)
                if not chunk:
                    break
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    length = int(v.strip())
            while len(body) < length:
                chunk = client.recv(65536)
                if not chunk:
                    break
                body += chunk
            msg = b"<Error><Code>ServiceUnavailable</Code><Message>injected</Message></Error>"
            client.sendall(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml\r\n"
                b"Content-Length: " + str(len(msg)).encode() + b"\r\nConnection: close\r\n\r\n" + msg
            )
        except OSError:
            pass
        finally:
            client.close()

    def _pipe(self, src: socket.socket, dst: socket.socket, responses: bool = False) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if responses and not data.startswith(b"HTTP/1.1 100 "):  # not the interim "100 Continue"
                    with self._lock:
                        drop = self.drop_responses > 0
                        if drop:
                            self.drop_responses -= 1
                    if drop:
                        break  # the reply is lost: cut the connection without passing it on
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
