"""The migration operation (``hotc import STACK --from-heat HEAT_STACK DIR [--abandon]``): read the Heat
stack, write its files into DIR, plan the take-over through :func:`hotc.ops.plan.plan` (held to the policy),
build hotc's state from the cloud (:mod:`hotc.apply.from_heat`), check that a plan of the written files has
nothing left to do, and with ``--abandon`` ask Heat to let go. See :mod:`hotc.apply.from_heat` for the steps.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from hotc.apply.from_heat import (
    AT_REST,
    ENV_FILE,
    TEMPLATE_FILE,
    build_state,
    fetch,
    heat_path,
    heat_take,
    random_values,
    render_files,
)
from hotc.errors import HotcError
from hotc.ops.plan import PlanRequest, Policy, Recorded, Wiring, desired_for, plan, policy_lines
from hotc.planner.api import DENY_EXIT_CODE, plan_inputs
from hotc.state import StackState, backend_from_config


def check_no_changes(loaded: Any, stack: str, state: StackState, backend: Any, wiring: Wiring) -> list[str]:
    """What a plan of the written files would still do right after the migration (should be nothing)."""
    result = plan(
        PlanRequest(stack=stack, checks=()), wiring, recorded=Recorded(state, backend), loaded=loaded
    )
    out = [
        f"{c.action.value} {c.address}: {c.reason_detail or c.action_reason}"
        for c in result.plan.changes
        if c.action.value != "no-op"
    ]
    out += [
        f"output {o.name}: {o.action.value}" for o in result.plan.output_changes if o.action.value != "no-op"
    ]
    return out


def run_from_heat(
    *,
    stack: str,
    heat_stack: str,
    directory: Path,
    abandon: bool,
    backend_url: str | None,
    lock_timeout: float,
    out: IO[str],
    err: IO[str],
    wiring: Wiring,
    params: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    policy: Policy | None = None,
) -> int:
    """``params``: values of hidden parameters Heat masks (``--parameter``); ``wiring``: the loader, drivers
    and cloud connection (Heat's and the resources'), from the CLI's composition root; ``policy``: the rules
    the migration is held to (a deny rule matching a resource taken over refuses it, exit 3, nothing written)."""
    policy = policy or Policy()
    policy.rules()  # a bad rule fails before Heat is asked anything
    drivers = wiring.drivers
    cloud = wiring.cloud
    c = cloud()
    hs = fetch(c, heat_stack, export=abandon)
    if hs.status not in AT_REST:
        raise HotcError(
            f"Heat stack {hs.name!r} is {hs.status}: migrate a stack at rest (wait for it, or fix it in Heat first)"
        )
    texts, masked = render_files(hs)
    target = directory if directory.is_absolute() else (cwd or Path.cwd()) / directory
    clash = sorted(p for p in texts if (target / p).exists())
    if clash:
        raise HotcError(f"{directory}: would overwrite {', '.join(clash)}; give an empty or new directory")
    given = {k: hs.hidden[k] for k in masked if k in hs.hidden}
    given_text = {k: v if isinstance(v, str) else json.dumps(v) for k, v in given.items()}
    for k, v in (params or {}).items():
        if k not in masked:
            raise HotcError(
                f"--parameter {k}: with --from-heat, only hidden parameters Heat masks may be given "
                f"({', '.join(masked) or 'this stack has none'}); the others come from Heat"
            )
        given[k] = given_text[k] = v
    backend: Any = backend_from_config(backend_url, cwd)
    with tempfile.TemporaryDirectory(prefix="hotc-from-heat-") as tmp:
        root = Path(tmp) / "stack"
        for rel, text in texts.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        unknown_hidden = [k for k in masked if k not in given]
        if unknown_hidden:
            raise HotcError(
                "Heat masks the hidden parameter(s) "
                + ", ".join(unknown_hidden)
                + " (its export API, used with --abandon, gives them when enable_stack_abandon is on): give them "
                "with --parameter NAME=VALUE; nothing was written"
            )
        loaded = wiring.load(root / TEMPLATE_FILE, [root / ENV_FILE], given_text, {})
        inputs = plan_inputs(loaded, root / TEMPLATE_FILE, [root / ENV_FILE], given_text, {})
        with backend.lock(stack, "import", timeout=lock_timeout) as lk:
            prior, _token = backend.read(stack)
            if prior is not None and prior.resources:
                raise HotcError(
                    f"stack {stack!r} already has a state with resources; migrate into a new hotc stack name"
                )
            new = StackState.new(stack)
            if prior is not None:
                new = replace(new, lineage=prior.lineage)
            desired = desired_for(loaded, stack, None, new.lineage)
            take = heat_take(hs, desired, drivers)
            request = PlanRequest(
                stack=stack,
                imports=take.requests,
                policy=policy,
                backend=backend_url,
                cwd=cwd,
                checks=("policy",),
            )
            result = plan(
                request, wiring, recorded=Recorded(None, backend, new.lineage), loaded=loaded, desired=desired
            )
            for line in policy_lines(result, refused="; nothing was written"):
                err.write(line + "\n")
            if result.refused:
                return DENY_EXIT_CODE
            randoms = random_values(
                c,
                hs,
                [
                    heat_path(addr)
                    for addr, dr in desired.resources.items()
                    if dr.condition_enabled and dr.type == "OS::Heat::RandomString"
                ],
            )
            state, events, notes = build_state(
                hs=hs,
                new=new,
                loaded=loaded,
                desired=desired,
                plan=result.plan,
                take=take,
                randoms=randoms,
                drivers=drivers,
                cloud=cloud,
                inputs=inputs,
            )
            left = check_no_changes(loaded, stack, state, backend, wiring)
            target.mkdir(parents=True, exist_ok=True)
            for rel in texts:
                dst = target / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / rel, dst)
            backend.write(stack, state, lk)
            backend.append_events(stack, events)
    n = len(state.resources)
    out.write(
        f"Migrated Heat stack {hs.name!r} ({hs.id}) to hotc stack {stack!r}: {n} resource(s) recorded; "
        f"template and environment written to {directory}/ ({TEMPLATE_FILE}, {ENV_FILE}"
        + (f", {len(texts) - 2} more file(s)" if len(texts) > 2 else "")
        + ").\n"
    )
    if given:
        err.write(
            "note: Heat masks the hidden parameter(s) "
            + ", ".join(sorted(given))
            + f" in its environment; their values (from Heat's export) are kept encrypted or as digests in "
            f"hotc's state only, not in {ENV_FILE}: plan with 'hotc plan {stack} --existing', or give them with "
            "--parameter NAME=VALUE\n"
        )
    for note in notes:
        err.write(f"note: {note}\n")
    if left:
        err.write("warning: a plan of the written files would still change: " + "; ".join(left) + "\n")
    if abandon:
        c.orchestration.abandon_stack(c.orchestration.get_stack(hs.id))
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            st = c.orchestration.find_stack(hs.id, ignore_missing=True)
            if st is None or str(st.status) == "DELETE_COMPLETE":
                break
            time.sleep(2)
        else:
            err.write(f"warning: Heat still lists stack {hs.name!r} 300 s after the abandon request\n")
            return 1
        out.write(f"Heat abandoned stack {hs.name!r}: it no longer manages these resources; hotc does.\n")
    else:
        err.write(
            f"warning: Heat still manages stack {hs.name!r}: BOTH Heat and hotc now claim its resources. A "
            "Heat stack update or delete would change or delete what hotc manages. Hand them over with "
            f"'openstack stack abandon {hs.name}' (needs enable_stack_abandon in Heat) before changing them "
            "with hotc, or migrate with --abandon.\n"
        )
    out.write(f"Next: hotc plan -t {directory}/{TEMPLATE_FILE} -e {directory}/{ENV_FILE} {stack}\n")
    return 0
