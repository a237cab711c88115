"""``hotc import``: take over existing objects (Terraform's ``import``), one or many at once (reading and
recording them; :mod:`hotc.ops.import_` plans the import and runs these).

Each requested address must be declared by the template (and enabled by its conditions), must not be in the
state yet and must not carry an ``external_id``. Its type must be one hotc can read from the cloud. Every object
is read through its type's driver (dependencies first, so that an imported subnet's ``network`` resolves to the
imported network); the live properties are recorded (see :func:`hotc.apply.adopt.recorded_properties`), so the
next ``hotc plan`` shows only the real differences between the template and the objects. All or nothing: one
failed read (a missing id, an id of another type) writes nothing. The cloud is never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any

from hotc.apply.adopt import (
    adopt_reason,
    adopted_record,
    missing_object,
    recorded_properties,
    without_unknowns,
)
from hotc.apply.events import resource_event
from hotc.apply.executor import with_defaults
from hotc.apply.resolve import StateResolver
from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.api import ResourceChange
from hotc.providers.base import ActionContext
from hotc.providers.registry import get_schema
from hotc.state import StackState
from hotc.state.document import ParameterRecord
from hotc.state.events import Event, utc_now

STACK_ADOPTED = "ADOPT_COMPLETE"

#: how many objects are read at the same time
READERS = 8


@model
class Imported:
    address: str
    type: str
    physical_id: str
    note: str | None = None


def importable(type_name: str, drivers: Callable[[str], Any]) -> str | None:
    """Why ``type_name`` cannot be imported (None when it can): it needs a driver and a cloud object."""

    schema = get_schema(type_name)
    if drivers(type_name) is None or schema is None:
        return f"hotc has no driver for {type_name}"
    if schema.service is None:
        return (
            f"{type_name} is made by hotc itself, not an object in the cloud (there is nothing to import: "
            "apply creates it)"
        )
    return None


def read_one(
    desired: Any,
    state: StackState,
    c: ResourceChange,
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
    *,
    names_generated: bool = False,
) -> tuple[StackState, Event, Imported]:
    """``state`` with the import ``c`` read from the cloud and recorded (HotcError when it cannot be read).
    ``names_generated``: the object was made by a stack whose names stand for the template's generated ones
    (``--from-heat``: Heat named what the template leaves unnamed), so those names are kept, not planned away."""
    props = _given(desired, state, c)
    return _recorded(state, c, props, _read(state, c, props, drivers, cloud), names_generated=names_generated)


def _given(desired: Any, state: StackState, c: ResourceChange) -> dict[str, Any]:
    """The template's properties of ``c``, its references resolved through ``state``."""
    return dict(without_unknowns(dict(desired.resolve_properties(c.address, StateResolver(state)))))


def _read(
    state: StackState,
    c: ResourceChange,
    props: Mapping[str, Any],
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
) -> Any:
    """The driver's read of ``c``'s object (HotcError when it cannot be read or is missing)."""
    assert c.import_id is not None
    pid = c.import_id
    driver = drivers(c.type)
    ctx = ActionContext(
        address=c.address,
        type=c.type,
        stack_name=state.stack_name,
        lineage=state.lineage,
        timeout=120.0,
        cloud=cloud,
        record_physical_id=lambda _pid: None,
    )
    try:
        outcome = driver.read(ctx, pid, with_defaults(c.type, props))
    except HotcError as exc:
        raise HotcError(f"{c.address}: reading {c.type} {pid}: {exc.message}; nothing was imported") from exc
    except Exception as exc:  # noqa: BLE001 -- a cloud error, reported with the address
        raise HotcError(f"{c.address}: reading {c.type} {pid} failed: {exc}; nothing was imported") from exc
    if outcome is None:
        raise HotcError(f"{c.address}: {missing_object(c.type, pid).replace('recorded', 'imported')}")
    return outcome


def _recorded(
    state: StackState,
    c: ResourceChange,
    props: Mapping[str, Any],
    outcome: Any,
    *,
    names_generated: bool = False,
) -> tuple[StackState, Event, Imported]:
    assert c.import_id is not None
    got = outcome.physical_id or c.import_id
    recorded, note = recorded_properties(
        get_schema(c.type), props, outcome.properties, c.sensitive_paths, record_unset=not names_generated
    )
    reason = adopt_reason(got, external=False)
    record = adopted_record(
        address=c.address,
        type_name=c.type,
        outcome=outcome,
        physical_id=got,
        properties=recorded,
        dependencies=tuple(c.depends_on),
        deletion_policy=c.deletion_policy,
        external=False,
        reason=reason,
        now=utc_now(),
        sensitive_paths=c.sensitive_paths,
    )
    live_name = (outcome.properties or {}).get("name")
    if names_generated and props.get("name") in (None, "") and isinstance(live_name, str) and live_name:
        # the name the other tool generated (the driver reports a name only when it is not hotc's): kept, so the
        # next reads take it for the generated name it is
        record = replace(record, generated_name=live_name)
    new = state.with_resource(record)
    return (
        new,
        resource_event(c.address, c.type, STACK_ADOPTED, reason, got),
        Imported(c.address, c.type, got, note),
    )


def read_imports(
    desired: Any,
    state: StackState,
    changes: list[ResourceChange],
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
) -> tuple[StackState, list[Event], list[Imported]]:
    """``state`` with every import of ``changes`` (plan order: dependencies first) read and recorded. Raises
    HotcError at the first object that cannot be read; the caller then writes nothing. The objects whose
    dependencies are recorded are read :data:`READERS` at a time (their references resolved first, in order)."""
    new = state
    importing = {c.address for c in changes}
    recorded: dict[str, tuple[Event, Imported]] = {}
    pending = list(changes)
    while pending:
        ready = [c for c in pending if not (set(c.depends_on) & importing) - set(recorded)] or pending[:1]
        given = [_given(desired, new, c) for c in ready]
        base = new
        if len(ready) == 1:
            outcomes = [_read(base, ready[0], given[0], drivers, cloud)]
        else:
            with ThreadPoolExecutor(
                max_workers=min(READERS, len(ready)), thread_name_prefix="hotc-import"
            ) as pool:
                outcomes = list(pool.map(partial(_read, base, drivers=drivers, cloud=cloud), ready, given))
        for c, props, outcome in zip(ready, given, outcomes, strict=True):
            new, event, imported = _recorded(new, c, props, outcome)
            recorded[c.address] = (event, imported)
        pending = [c for c in pending if c.address not in recorded]
    events = [recorded[c.address][0] for c in changes]
    return new, events, [recorded[c.address][1] for c in changes]


def clear_parameter_records(loaded: Any) -> dict[str, Any]:
    """The parameters to record, hidden ones still in clear in memory: the codec stores them as a digest plus
    ciphertext under the backend's key when the state is written (a new local stack's key file is made by
    that first write, so encrypting before it would keep only a digest)."""
    hidden = set(getattr(loaded, "hidden_parameters", ()) or ()) | {
        n for n, p in loaded.template.parameters.items() if p.hidden
    }
    return {
        k: ParameterRecord(value=v, hidden=k in hidden) for k, v in (loaded.parameter_values or {}).items()
    }
