"""``hotc signal STACK ADDRESS [--data JSON | --data-file F]``: ``openstack stack resource signal`` for a
wait-condition handle (or the wait condition / Swift signal that waits on it), or a software deployment whose
action an apply is waiting for (the data is what heat-config-notify would send: deploy_stdout, ...). The signal is written to the
handle's object in the signal store with hotc's own credentials, exactly as an instance's curl would; a running
apply that waits on it sees it at its next poll.

For a ScalingPolicy (Heat's signal runs the policy at once), the signal is stored as pending and then executed
as ``hotc apply STACK --existing --auto-approve`` executes pending signals: decided under the stack's lock
(cooldown, min/max), the group resized, the decision an event and part of the state. ``--pending`` only stores
it (for ``hotc watch`` or the next apply to execute).

For a Mistral workflow (Heat's signal starts an execution), the signal goes to the workflow's driver at once with
hotc's cloud credentials: ``{"input": {...}, "params": {...}}`` start an execution, and its id is printed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from hotc.cli.common import BackendOpt, SignalStoreOpt
from hotc.errors import HotcError
from hotc.ops.stacks import stack_not_found


def signal_command(
    stack: Annotated[str, typer.Argument(help="Stack name.")],
    address: Annotated[str, typer.Argument(help="The handle (or wait condition) to signal.")],
    data: Annotated[
        str | None, typer.Option("--data", help='The signal as JSON, e.g. \'{"status": "SUCCESS"}\'.')
    ] = None,
    data_file: Annotated[
        Path | None, typer.Option("--data-file", help="Read the JSON signal from a file.")
    ] = None,
    backend: BackendOpt = None,
    signal_store: SignalStoreOpt = None,
    pending: Annotated[
        bool,
        typer.Option(
            "--pending",
            help="ScalingPolicy: only store the signal (hotc watch or the next apply executes it).",
        ),
    ] = False,
    lock_timeout: Annotated[
        float, typer.Option("--lock-timeout", help="ScalingPolicy: seconds to wait for the state lock.")
    ] = 0.0,
    os_cloud: Annotated[
        str | None,
        typer.Option("--os-cloud", help="ScalingPolicy: cloud name in clouds.yaml (for the resize)."),
    ] = None,
) -> None:
    """Send a signal to a wait-condition handle, a deployment or a scaling policy, as 'openstack stack
    resource signal' does (a scaling policy is executed at once unless --pending)."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.apply.scaling import policy_key
    from hotc.planner.api import POLICY_TYPES
    from hotc.providers.native.signal_mixin import signal_key
    from hotc.state import backend_from_config
    from hotc.state.signal_store import store_for

    if data is not None and data_file is not None:
        raise HotcError("give --data or --data-file, not both")
    text = data if data is not None else None
    if data_file is not None:
        try:
            text = data_file.read_text()
        except OSError as exc:
            raise HotcError(f"{data_file}: cannot read: {exc.strerror}") from None
    body = b""
    if text is not None:
        try:
            parsed = json.loads(text)
        except ValueError as exc:
            raise HotcError(f"the signal data is not JSON: {exc}") from None
        body = json.dumps(parsed).encode()
    states = backend_from_config(backend)
    state, _ = states.read(stack)
    if state is None:
        raise HotcError(stack_not_found(stack, states))
    rs = state.resources.get(address)
    if rs is not None and rs.type in DRIVER_SIGNALLED:
        _signal_driver(state, rs, text, os_cloud)
        return
    store = store_for(signal_store, backend)()
    if rs is not None and rs.type in POLICY_TYPES:
        key = policy_key(rs)
        if not rs.physical_id or key is None:
            raise HotcError(f"{address} has not been created yet")
        store.put(key, body)
        if pending:
            print(
                f"Signal stored for {address}: hotc watch {stack} or the next apply executes it.",
                file=sys.stderr,
            )
            return
        print(f"Signal sent to {address}; executing it.", file=sys.stderr)
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.cli.apply import apply_command

        apply_command(
            target=stack,
            existing=True,
            auto_approve=True,
            backend=backend,
            signal_store=signal_store,
            lock_timeout=lock_timeout,
            os_cloud=os_cloud,
        )
        return
    key = signal_key(state.resources, address, store, stack)
    store.put(key, body)
    print(f"Signal sent to {address}.", file=sys.stderr)


#: types whose driver takes a signal itself (Heat's ``handle_signal`` calls their service): a Mistral workflow starts
#: an execution
DRIVER_SIGNALLED = frozenset({"OS::Mistral::Workflow"})


def _signal_driver(state: Any, rs: Any, text: str | None, os_cloud: str | None) -> None:
    """Deliver the signal to the resource's driver (``signal(ctx, physical_id, props, details)``), with hotc's
    cloud credentials, and print what it started."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.root import cloud, drivers
    from hotc.providers.base import ActionContext
    from hotc.providers.registry import get_schema
    from hotc.providers.validation import apply_defaults

    if not rs.physical_id or not str(rs.status).endswith("_COMPLETE"):
        raise HotcError(f"{rs.address} has not been created yet (status {rs.status})")
    driver = drivers()(rs.type)
    if driver is None:
        raise HotcError(f"hotc has no driver for {rs.type}")
    schema = get_schema(rs.type)
    props = apply_defaults(schema, rs.properties) if schema is not None else dict(rs.properties)
    ctx = ActionContext(
        address=rs.address,
        type=rs.type,
        stack_name=state.stack_name,
        lineage=state.lineage,
        timeout=120.0,
        cloud=cloud(os_cloud),
        record_physical_id=lambda _pid: None,
    )
    details = json.loads(text) if text is not None else None
    started = driver.signal(ctx, rs.physical_id, props, details)  # type: ignore[attr-defined]
    print(f"Signal sent to {rs.address}: execution {started.get('id')} of workflow {rs.physical_id} started "
          f"({started.get('state')}).", file=sys.stderr)  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("signal")(signal_command)
