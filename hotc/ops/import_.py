"""The import operation (``hotc import STACK ADDRESS ID`` / ``--file MAP``): take over existing objects.

The import is planned through :func:`hotc.ops.plan.plan` (which checks every address: declared by the
template, enabled, not in the state yet, no ``external_id``) and held to the policy (``--deny``, ``--warn``,
``--policy-file``: the imported objects are the changes it looks at). Then each object is read through its
type's driver (:mod:`hotc.apply.importer`) and recorded, all or nothing. The cloud is never changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from hotc.apply.importer import STACK_ADOPTED, clear_parameter_records, importable, read_imports
from hotc.apply.session import template_record
from hotc.errors import HotcError
from hotc.ops.plan import PlanRequest, Policy, Recorded, Wiring, plan, policy_lines
from hotc.planner.api import DENY_EXIT_CODE
from hotc.state import StackState, backend_from_config


def run_import(
    *,
    stack: str,
    requests: list[tuple[str, str]],
    template: Path,
    envs: list[Path],
    params: Mapping[str, str],
    pfiles: Mapping[str, Path],
    backend_url: str | None,
    lock_timeout: float,
    out: IO[str],
    err: IO[str],
    wiring: Wiring,
    cwd: Path | None = None,
    policy: Policy | None = None,
) -> int:
    """``wiring``: the loader, drivers and cloud connection, from the CLI's composition root. Returns the exit
    code (0, or 3 when a deny rule refuses an import: nothing is then recorded)."""
    if not requests:
        raise HotcError("nothing to import: give ADDRESS ID, or --file MAP")
    policy = policy or Policy()
    policy.rules()  # a bad rule fails before anything is loaded or locked
    drivers = wiring.drivers
    loaded = wiring.load(template, envs, params, pfiles)
    backend: Any = backend_from_config(backend_url, cwd)
    with backend.lock(stack, "import", timeout=lock_timeout) as lk:
        state, _token = backend.read(stack)
        base = state if state is not None else StackState.new(stack)
        wanted = tuple(a for a, _ in requests)
        request = PlanRequest(
            stack=stack,
            template=template,
            environments=tuple(envs),
            parameters=dict(params),
            parameter_files=dict(pfiles),
            imports=tuple(requests),
            policy=policy,
            policy_addresses=wanted,
            backend=backend_url,
            cwd=cwd,
            checks=("policy",),
        )
        result = plan(request, wiring, recorded=Recorded(state, backend, base.lineage), loaded=loaded)
        made = result.plan
        changes = [c for c in made.changes if c.address in wanted and c.import_id is not None]
        bad = [(c.address, why) for c in changes if (why := importable(c.type, drivers)) is not None]
        if bad:
            raise HotcError(
                "; ".join(f"{a}: {why}" for a, why in bad) + "; nothing was imported",
            )
        for line in policy_lines(result, refused="; nothing was imported"):
            err.write(line + "\n")
        if result.refused:
            return DENY_EXIT_CODE
        new, events, done = read_imports(result.desired, base, changes, drivers, wiring.cloud)
        if state is None or not state.template:
            new = replace(
                new,
                template=template_record(loaded, made),
                template_digest=made.template_digest,
                parameters=clear_parameter_records(loaded),
            )
        if state is None:
            new = replace(new, status=STACK_ADOPTED, status_reason="created by hotc import")
        backend.write(stack, new, lk)
        backend.append_events(stack, events)
    for d in done:
        out.write(f"Imported {d.address} ({d.type}): {d.physical_id}\n")
        if d.note:
            err.write(f"note: {d.address}: {d.note}\n")
    out.write(
        f"\nImport complete: {len(done)} resource(s) recorded in stack {stack!r}; nothing in the cloud was "
        f"changed. Run 'hotc plan -t {template} {stack}' to see how the objects differ from the template.\n"
    )
    return 0
