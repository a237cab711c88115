"""``hotc watch STACK``: the long-running reconciler of a stack's ScalingPolicies.

It polls the signal store for the signals waiting for the stack's policies (every ``--interval`` seconds, and at
once when its receiver stores one) and executes them one apply at a time, exactly as ``hotc apply STACK
--existing --auto-approve`` does: under the stack's lock (so never beside another apply), each signal decided
as Heat decides it (cooldown, min/max), one ``scaling:`` line per decision, each decision an event and part of
the state. ``--listen HOST:PORT`` also runs the alarm receiver (:mod:`hotc.cli.receiver`) that alarm_url
points at when ``[signals] receiver_url`` is set. SIGTERM or Ctrl-C stops it cleanly: a running apply stops
as any apply does (nothing new started, the state saved, the lock released), then the watcher exits 0.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Annotated, Any

import typer

from hotc.cli.common import BackendOpt, SignalStoreOpt
from hotc.errors import HotcError


def _log(msg: str) -> None:
    sys.stderr.write(f"watch: {msg}\n")
    sys.stderr.flush()


def _pending_count(stack: str, backend: str | None, store: Any) -> tuple[int, list[str]]:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.apply.scaling import policy_key
    from hotc.planner.api import POLICY_TYPES
    from hotc.state import backend_from_config

    state, _ = backend_from_config(backend).read(stack)
    if state is None:
        raise HotcError(f"stack {stack!r} has no state")
    policies = sorted(a for a, rs in state.resources.items() if rs.type in POLICY_TYPES and rs.physical_id)
    n = 0
    for a in policies:
        key = policy_key(state.resources[a])
        if key is not None:
            n += len(store.pending(key))
    return n, policies


def watch_command(
    stack: Annotated[str, typer.Argument(help="Stack name.")],
    interval: Annotated[
        float, typer.Option("--interval", min=0.05, help="Seconds between polls of the signal store.")
    ] = 10.0,
    listen: Annotated[
        str | None,
        typer.Option("--listen", help="HOST:PORT to receive alarm POSTs on (what alarm_url points at)."),
    ] = None,
    backend: BackendOpt = None,
    signal_store: SignalStoreOpt = None,
    lock_timeout: Annotated[
        float, typer.Option("--lock-timeout", help="Seconds to wait for the state lock before each apply.")
    ] = 60.0,
    os_cloud: Annotated[
        str | None, typer.Option("--os-cloud", help="Cloud name in clouds.yaml (for the resizes).")
    ] = None,
) -> None:
    """Execute the stack's scaling signals as they arrive, one apply at a time, until SIGTERM."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.apply import apply_command
    from hotc.state.signal_store import store_for

    store = store_for(signal_store, backend)()
    wake = threading.Event()
    stop = threading.Event()

    def on_stop(signum: int, _frame: FrameType | None) -> None:
        if not stop.is_set():
            _log(f"{signal.Signals(signum).name}: stopping")
        stop.set()
        wake.set()

    previous = {s: signal.signal(s, on_stop) for s in (signal.SIGTERM, signal.SIGINT)}
    receiver = None
    try:
        if listen is not None:
            # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
            from hotc.cli.receiver import Receiver

            host, sep, port = listen.rpartition(":")
            if not sep or not port.isdigit():
                raise HotcError(f"--listen {listen!r}: expected HOST:PORT, e.g. 0.0.0.0:8787")
            receiver = Receiver(host or "0.0.0.0", int(port), stack, store, lambda _pid: wake.set(), _log)
            receiver.start()
            h, p = receiver.address
            _log(f"receiving alarms on http://{h}:{p}")
        _n, policies = _pending_count(stack, backend, store)
        _log(
            f"watching stack {stack!r}: policies {', '.join(policies) or '(none yet)'}; polling the signal "
            f"store every {interval:g} s"
        )
        while not stop.is_set():
            try:
                n, _policies = _pending_count(stack, backend, store)
            except HotcError as exc:
                _log(f"cannot read the stack or the store: {exc.message}")
                n = 0
            if n:
                _log(f"{n} pending signal(s): applying")
                try:
                    apply_command(
                        target=stack,
                        existing=True,
                        auto_approve=True,
                        backend=backend,
                        signal_store=signal_store,
                        lock_timeout=lock_timeout,
                        os_cloud=os_cloud,
                    )
                    continue  # signals that came in meanwhile are taken at once
                except typer.Exit as exc:
                    _log(f"the apply ended with exit code {exc.exit_code}")
                except HotcError as exc:
                    _log(f"the apply could not run: {exc.message}")
            wake.wait(interval)
            wake.clear()
    finally:
        if receiver is not None:
            receiver.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    _log("stopped")


def register(app: typer.Typer) -> None:
    app.command("watch")(watch_command)
