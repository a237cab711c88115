"""The pieces of an apply run that :mod:`hotc.ops.apply` puts together: the state sink under the run's lock,
approval, signal handlers, the records of the template and parameters, the report and outputs, the recording of
scaling decisions, and applying a refresh-only plan. Each writes only to the streams it is given."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from types import FrameType
from typing import IO, Any

from hotc.apply.durations import learned
from hotc.apply.events import resource_event
from hotc.apply.executor import ApplyReport, Executor
from hotc.apply.resolve import SENSITIVE_MARK
from hotc.apply.scaling import (
    ScalingRun,
    acknowledge,
    decision_event,
    policy_types,
    with_decisions,
)
from hotc.errors import Diagnostic, HotcError, Severity
from hotc.planner.api import (
    Action,
    Plan,
    check_plan_fresh,
    driver_reader,
    environment_paths,
    hidden_names,
    refresh_resources,
    relative_sources,
    render_text,
)
from hotc.state import ResourceState, StackState, hide_parameter
from hotc.state.codec import stored_template
from hotc.state.events import Event, utc_now
from hotc.state.hidden_env import hidden_count


class BackendSink:
    """The executor's state sink on a backend, under the lock held for the run."""

    def __init__(self, backend: Any, stack: str, lock: Any) -> None:
        self.backend = backend
        self.stack = stack
        self.lock = lock

    def write(self, state: StackState) -> StackState:
        written: StackState = self.backend.write(self.stack, state, self.lock)
        return written

    def append_events(self, events: list[Event]) -> None:
        self.backend.append_events(self.stack, events)


def describe_plan(plan: Plan, color: bool = False) -> str:
    return render_text(plan, color=color)


def approve(prompt_out: IO[str], read_line: Callable[[], str], interactive: bool, what: str) -> bool:
    if not interactive:
        raise HotcError(
            f"{what} needs approval but the input is not a terminal: review the plan and run again with "
            "--auto-approve (or apply a saved plan file)"
        )
    prompt_out.write(
        f"\nDo you want to {what}?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: "
    )
    prompt_out.flush()
    try:
        answer = read_line().strip()
    except EOFError:
        answer = ""
    except KeyboardInterrupt:  # Ctrl-C at the prompt: a "no", which the caller reports as cancelled
        prompt_out.write("\n")
        answer = ""
    return answer == "yes"


@contextmanager
def interrupt_handlers(executor: Executor, err: IO[str]) -> Iterator[None]:
    """SIGINT/SIGTERM: the first stops scheduling (steps in flight finish, state saved, lock released); a
    second SIGINT stops waiting for the steps in flight."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    count = [0]
    old: dict[int, Any] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        count[0] += 1
        chained = old.get(signum)
        if callable(chained) and chained is not signal.default_int_handler:
            chained(signum, frame)  # a long-running caller's own handler (hotc watch: stop after this run)
        if count[0] == 1:
            err.write(
                f"\n{name}: stopping: no new actions are started; waiting for the ones in flight to finish "
                "(press Ctrl-C again to stop waiting)\n"
            )
            err.flush()
            executor.cancel(f"interrupted by {name}")
        else:
            raise KeyboardInterrupt

    old.update({s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)})
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def parameter_records(loaded: Any, key: bytes | None) -> dict[str, Any]:
    hidden = set(getattr(loaded, "hidden_parameters", ()) or ()) | {
        n for n, p in loaded.template.parameters.items() if p.hidden
    }
    return {k: hide_parameter(v, k in hidden, key) for k, v in (loaded.parameter_values or {}).items()}


def reseal_hidden_values(backend: Any, stack: str, state: StackState, lk: Any, err: IO[str]) -> StackState:
    """A state written before hidden values were taken out of the environment files it keeps is written again
    now with them taken out (each kept as hidden parameters are), with a note that says so."""
    names = {n for n, p in state.parameters.items() if p.hidden} | set(
        state.template.get("hidden_parameters") or ()
    )
    count = hidden_count(state.template, names)
    if not count:
        return state
    key = getattr(backend, "key", None)
    written: StackState = backend.write(stack, replace(state, template=stored_template(state, key)), lk)
    # once more, so that the version the write kept as its backup (a local state's .backup) is sealed too
    written = backend.write(stack, replace(written, serial=written.serial + 1), lk, exact=True)
    err.write(
        f"note: the state of stack {stack!r} kept {count} hidden parameter value(s) in clear in its copy of the "
        "environment files; they are now stored "
        + ("encrypted with the state key" if key is not None else "as digests only")
        + ", as values given with --parameter are (a versioned S3 bucket still holds them in the versions "
        "written before: delete those from its history)\n"
    )
    return written


def template_record(loaded: Any, plan: Plan) -> dict[str, Any]:
    """The template as applied, for ``hotc template show`` and ``--existing``: main path, files (relative path
    -> text), environments, ``path`` (where the template was: relative to the project root, else absolute),
    and the names of the hidden parameters (the state's writer takes their values out
    of the environment files it keeps: :func:`hotc.state.codec.stored_template`)."""
    inputs = plan.inputs or {}
    if inputs.get("sources") and inputs.get("template"):
        files = dict(inputs["sources"])
        environments = list(inputs.get("environments") or [])
        # the plan's copies lack the hidden values: the record takes the files as they were loaded
        for rel, path in zip(environments, environment_paths(loaded), strict=False):
            if rel in files and path in loaded.sources:
                files[rel] = loaded.sources[path]
        record = {
            "main": inputs["template"],
            "files": files,
            "environments": environments,
            "hidden_parameters": sorted(hidden_names(loaded)),
        }
        if isinstance(inputs.get("template_path"), str):
            record["path"] = inputs["template_path"]  # where the template is: the stack's identity
        return record
    root, rel = relative_sources(loaded.sources)
    main = (
        os.path.relpath(os.path.abspath(loaded.template.path), root).replace(os.sep, "/")
        if root
        else loaded.template.path
    )
    env_files = [
        os.path.relpath(p, root).replace(os.sep, "/") for p in environment_paths(loaded) if root
    ] or [p for p in rel if p != main]
    return {
        "main": main,
        "files": rel,
        "environments": env_files,
        "hidden_parameters": sorted(hidden_names(loaded)),
    }


def print_report(rep: ApplyReport, plan: Plan, out: IO[str], err: IO[str]) -> None:
    counts = {"create": 0, "update": 0, "replace": 0, "delete": 0, "forget": 0, "adopt": 0}
    same = 0
    for d in rep.done:
        verb = d.label.split(" ", 1)[0]
        if getattr(d, "unchanged", False):
            same += 1  # planned with values known after apply that turned out the recorded ones
        elif verb in counts and not d.label.startswith("delete old"):
            counts[verb] += 1
    summary = (
        f"{counts['create']} created, {counts['update']} updated, {counts['replace']} replaced, "
        f"{counts['delete']} deleted"
        + (f", {counts['forget']} forgotten" if counts["forget"] else "")
        + (f", {counts['adopt']} existing adopted" if counts["adopt"] else "")
        + (f", {same} unchanged after all (their inputs known after apply kept their values)" if same else "")
    )
    word = "Destroy" if plan.mode == "destroy" else "Apply"
    if rep.ok:
        out.write(f"\n{word} complete! Resources: {summary}.\n")
        out.write(batch_lines(rep))
        for e in rep.output_errors:
            err.write(f"warning: {e}\n")
        return
    out.write(
        f"\n{word} {'INTERRUPTED' if rep.interrupted and not rep.failed else 'FAILED'}. Done: {summary}.\n"
    )
    out.write(batch_lines(rep))
    for f in rep.failed:
        err.write(f"error: {f.label}: {f.error}\n")
    if rep.not_started:
        err.write(
            f"never started ({len(rep.not_started)}): "
            + ", ".join(rep.not_started[:20])
            + (" …" if len(rep.not_started) > 20 else "")
            + "\n"
        )
    err.write(
        "The state holds everything done so far; run 'hotc plan' / 'hotc apply' again to continue "
        "(failed resources are replaced or retried).\n"
    )


def batch_lines(rep: ApplyReport) -> str:
    """One line per group whose update ran in batches: each batch's outcome, in order."""
    groups: dict[str, list[str]] = {}
    for b in rep.batches:
        groups.setdefault(b.group, []).append(f"{b.number} {b.status}")
    return "".join(f"Batches of {g}: {', '.join(parts)}.\n" for g, parts in groups.items())


def print_outputs(state: StackState, out: IO[str]) -> None:
    if not state.outputs:
        return
    out.write("\nOutputs:\n\n")
    for name in state.outputs:  # the template's order
        o = state.outputs[name]
        if o.sensitive:
            shown = "(sensitive)"
        elif o.error:
            shown = f"(error: {o.error})"
        else:
            shown = json.dumps(o.value, default=str)
        out.write(f"{name} = {shown}\n")


def warn(diags: list[Diagnostic], err: IO[str]) -> None:
    for d in diags:
        if d.severity is not Severity.ERROR:
            err.write(str(d) + "\n")


def unsupported_types(plan: Plan, drivers: Callable[[str], Any]) -> dict[str, list[str]]:
    """Types (with their addresses) that the plan creates, updates or replaces but no driver implements:
    refused before anything runs rather than failing half-way through an apply."""
    out: dict[str, list[str]] = {}
    for c in plan.changes:
        if c.action in (Action.CREATE, Action.UPDATE, Action.REPLACE) and drivers(c.type) is None:
            out.setdefault(c.type, []).append(c.address)
    return out


def history_durations(backend: Any, stack: str) -> dict[str, float]:
    """How long each type's actions took on this stack before (its events), for the waits to poll around; empty
    when the events cannot be read (they only tune polling)."""
    try:
        return learned(backend.read_events(stack))
    except HotcError:
        return {}


def utc_datetime() -> datetime:
    return datetime.now(UTC)


def record_decisions(
    run: ScalingRun, state: StackState, stack: str, backend: Any, lock: Any, signals: Callable[[], Any]
) -> StackState:
    """Record ``run``'s decisions before the resize runs: in the state (written now), as events, and the
    signals acknowledged in the store, so each is executed once."""
    types = policy_types(state)
    state = backend.write(stack, with_decisions(state, run.decisions, utc_now()), lock)
    backend.append_events(stack, [decision_event(d, types(d.policy)) for d in run.decisions])
    acknowledge(signals(), run)
    return state


def warn_unrecoverable_secrets(state: StackState, key: bytes | None, err: IO[str]) -> None:
    """Without a state key, sensitive attributes (a RandomString's value) are stored as digests only: say so,
    since later plans cannot give them to get_resource/get_attr."""
    if key is not None:
        return
    names = sorted(a for a, rs in state.resources.items() if rs.sensitive_attributes)
    if names:
        err.write(
            f"warning: no state encryption key (HOTC_STATE_KEY) is set for this backend, so the secret values "
            f"of {', '.join(names)} are stored as digests only: later plans cannot read them back for "
            "get_resource/get_attr. Set HOTC_STATE_KEY to keep them encrypted in the state.\n"
        )


# ------------------------------------------------------------------------------------------ refresh-only


def _is_masked_or_marked(v: Any) -> bool:
    return v == SENSITIVE_MARK or (isinstance(v, Mapping) and "__sensitive__" in v)


def state_with_drift(
    state: StackState, plan: Plan, live: Mapping[str, ResourceState | None], now: str
) -> tuple[StackState, list[Event], list[str], list[str]]:
    """``state`` with a refresh-only plan's drift accepted: a resource found gone is dropped from the state,
    a changed one takes the live properties the plan showed (sensitive ones stay as recorded) and the
    attributes read again now (``live``). Returns the new state, the events, and the addresses updated and
    removed. Raises HotcError, before anything is written, when the cloud moved again since the plan."""
    updated: list[str] = []
    removed: list[str] = []
    events: list[Event] = []
    for c in plan.resource_drift:
        rs = state.resources.get(c.address)
        if rs is None:
            raise HotcError(
                f"{c.address}: in the refresh-only plan but not in the state any more; "
                "make a new plan with 'hotc plan --refresh-only'"
            )
        if c.action is Action.DELETE:
            state = state.without_resource(c.address)
            removed.append(c.address)
            events.append(
                resource_event(
                    c.address,
                    rs.type,
                    "DELETE_COMPLETE",
                    "refresh-only apply: the object no longer exists; removed from the state",
                )
            )
            continue
        fresh = live.get(c.address)
        if fresh is None:
            raise HotcError(
                f"{c.address}: the plan found it changed, but it is now gone from the cloud; make a "
                "new plan with 'hotc plan --refresh-only'; nothing was written"
            )
        props = dict(c.after or {})
        sensitive_tops = {p.split(".", 1)[0].split("[", 1)[0] for p in rs.sensitive_paths}
        for k in list(props):
            if k in sensitive_tops or _is_masked_or_marked(props[k]):
                if k in rs.properties:
                    props[k] = rs.properties[k]
                else:
                    del props[k]
        state = state.with_resource(
            replace(
                rs,
                properties=props,
                attributes=dict(fresh.attributes),
                physical_id=fresh.physical_id or rs.physical_id,
                updated_at=now,
                status_reason="refreshed: changed outside hotc",
            )
        )
        updated.append(c.address)
        events.append(
            resource_event(
                c.address,
                rs.type,
                "CHECK_COMPLETE",
                "refresh-only apply: changed outside hotc; the state now records the live values",
                fresh.physical_id or rs.physical_id,
            )
        )
    return state, events, updated, removed


def apply_refresh_only(
    plan: Plan,
    backend: Any,
    opts: Any,
    out: IO[str],
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
    signals: Callable[[], Any] | None = None,
) -> int:
    """Apply a refresh-only plan: write the drift it found into the state; nothing in the cloud changes.
    ``opts``: the run's options (their ``lock_timeout``)."""
    stack = plan.stack_name
    with backend.lock(stack, "apply", timeout=opts.lock_timeout) as lk:
        state, _token = backend.read(stack)
        check_plan_fresh(plan, state, None)
        if state is None or not plan.resource_drift:
            out.write(
                "Refresh-only plan: no drift to record; the state was left as it is and nothing in the "
                "cloud was changed.\n"
            )
            return 0
        reader = driver_reader(state, cloud, drivers, signals=signals)
        live = {
            c.address: reader(state.resources[c.address])
            for c in plan.resource_drift
            if c.action is not Action.DELETE and c.address in state.resources
        }
        new, events, updated, removed = state_with_drift(state, plan, live, utc_now())
        backend.write(stack, new, lk)
        backend.append_events(stack, events)
    out.write(
        f"Refresh applied: the state now records the cloud as it is. {len(updated)} resource(s) updated from "
        f"the cloud{': ' + ', '.join(updated) if updated else ''}; {len(removed)} found gone and removed from "
        f"the state{': ' + ', '.join(removed) if removed else ''}. Nothing in the cloud was changed.\n"
    )
    return 0


def with_live_attributes(state: StackState, refreshed: Mapping[str, ResourceState | None]) -> StackState:
    """``state`` with the attributes a refresh read for each resource still there (its properties stay as
    recorded: the plan's drift changes carry the live ones), so that apply resolves ``get_attr`` from the values
    its plan was made from and records them (a QoS policy's ``rules``, a network's ``subnets``)."""
    out = state
    for addr, live in refreshed.items():
        rs = state.resources.get(addr)
        if rs is not None and live is not None and live.attributes != rs.attributes:
            out = out.with_resource(replace(rs, attributes=dict(live.attributes)))
    return out


def live_state(
    state: StackState,
    cloud: Callable[[], Any],
    drivers: Callable[[str], Any],
    err: IO[str],
    signals: Callable[[], Any] | None = None,
) -> Mapping[str, ResourceState | None] | None:
    """Every recorded resource read from the cloud (``--refresh``), or None (with a note) when it cannot be.
    ``signals``: the signal store's getter (the types read from it)."""
    try:
        reader = driver_reader(state, cloud, drivers, signals=signals)
    except HotcError as exc:
        err.write(f"note: {exc.message}; no live data was read and no drift can be reported\n")
        return None
    return refresh_resources(state, reader)
