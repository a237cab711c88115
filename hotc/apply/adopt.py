"""Adopting existing objects: Heat's ``external_id`` and hotc's imports (pure helpers for the executor).

Two kinds of adoption, told apart by the change's ``action_reason``:

- ``external_id`` (Heat's semantics): the object is never created, updated or deleted by hotc. Its attributes
  are read from the cloud; the record keeps the template's properties, the ``external_id`` and the ``Retain``
  policy, so that forgetting the record (destroy, removal, an external_id change) leaves the object in place.
- an import (``hotc import``, ``hotc plan --import ADDR=ID``): the object is taken over and managed from then
  on. The record holds the *live* properties (as the driver reads them), so that the next plan shows the real
  differences between the template and the object.

Nothing is written when the object cannot be read: a missing id, or an id of another type (the type's driver
finds no such object), is an error naming the id and the type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import Outcome, ResourceType
from hotc.state.document import DeposedInstance, ResourceState
from hotc.values import MISSING, Unknown

# action_reason values of adopting changes (the planner's names, hotc.planner.make)
EXTERNAL_REASONS = frozenset({"import_external_id", "replace_because_external_id_changed"})
ADOPTED_STATUS = "ADOPT_COMPLETE"


def is_external(change: Any) -> bool:
    """Whether an adopting change is Heat's ``external_id`` (never managed) rather than an import."""
    return getattr(change, "action_reason", "") in EXTERNAL_REASONS


def recorded_properties(
    rtype: ResourceType | None,
    template: Mapping[str, Any],
    live: Mapping[str, Any] | None,
    sensitive_paths: tuple[str, ...] = (),
    *,
    record_unset: bool = True,
) -> tuple[dict[str, Any], str | None]:
    """The properties an import records: the live value of every property the template sets, of every
    property the template leaves to its default when the live value differs from that default, and of one the
    template omits that has no default when the driver reports it anyway (a name: a driver reports it only when
    it is not the name hotc generates, which is what the template asks for), so that the next plan shows each
    difference, with or without a refresh. Sensitive properties keep the template's value (the cloud never
    gives secrets back). ``record_unset=False`` leaves out that last kind (``--from-heat``: the name Heat
    generated is the stack's generated name, kept as it is). Returns (properties, note) with a note when the
    driver reported no properties at all."""
    if live is None:
        return dict(template), (
            "the driver cannot read this type's properties back: the state records the template's values, so "
            "the next plan cannot show differences between the template and the object"
        )
    secret_tops = {p.split(".", 1)[0].split("[", 1)[0] for p in sensitive_paths}
    out: dict[str, Any] = {}
    for k, v in template.items():
        out[k] = v if k in secret_tops or k not in live else live[k]
    schema = rtype.properties if rtype is not None else {}
    for k, v in live.items():
        if k in out or k in secret_tops:
            continue
        ps = schema.get(k)
        if ps is None or ps.hidden or (ps.default is MISSING and not record_unset):
            continue
        if v is not None and (ps.default is MISSING or v != ps.default):
            out[k] = v
    return out, None


def without_unknowns(value: Any) -> Any:
    """``value`` with every Unknown left out (a property whose inputs are not in the state yet): an import
    records the live value there instead."""
    if isinstance(value, Mapping):
        return {k: without_unknowns(v) for k, v in value.items() if not _has_unknown(v)}
    if isinstance(value, list | tuple):
        return [without_unknowns(v) for v in value if not _has_unknown(v)]
    return value


def _has_unknown(value: Any) -> bool:
    if isinstance(value, Unknown):
        return True
    if isinstance(value, Mapping):
        return any(_has_unknown(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_unknown(v) for v in value)
    return False


def adopted_record(
    *,
    address: str,
    type_name: str,
    outcome: Outcome,
    physical_id: str,
    properties: Mapping[str, Any],
    dependencies: tuple[str, ...],
    deletion_policy: str,
    external: bool,
    reason: str,
    now: str,
    sensitive_paths: tuple[str, ...] = (),
    current: ResourceState | None = None,
    deposed: tuple[DeposedInstance, ...] = (),
) -> ResourceState:
    """The state record of an adopted object. ``current`` is the address's record when it already names the
    same object (its creation time and the secrets the driver cannot read back are kept)."""
    attrs = dict(outcome.attributes)
    if current is not None:
        for name in outcome.sensitive_attributes:
            if name not in attrs and name in current.attributes:
                attrs[name] = current.attributes[name]
    return ResourceState(
        address=address,
        type=type_name,
        physical_id=physical_id,
        status=ADOPTED_STATUS,
        properties=dict(properties),
        attributes=attrs,
        dependencies=dependencies,
        deletion_policy="Retain" if external else deletion_policy,
        status_reason=reason,
        created_at=current.created_at if current is not None else now,
        updated_at=now,
        sensitive_paths=sensitive_paths,
        deposed=deposed,
        sensitive_attributes=outcome.sensitive_attributes,
        reference_attribute=outcome.reference_attribute,
        external_id=physical_id if external else None,
    )


def adopt_reason(physical_id: str, external: bool) -> str:
    how = "external_id: hotc never updates or deletes it" if external else "imported: managed from now on"
    return f"adopted the existing object {physical_id} ({how})"


def missing_object(type_name: str, physical_id: str) -> str:
    return (
        f"there is no {type_name} with id {physical_id} in the cloud (a wrong id, or the id of an object of "
        "another type); nothing was recorded"
    )
