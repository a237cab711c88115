"""The state document: what hotc remembers about one stack (owned by ``hotc.state``).

One JSON document per stack. ``lineage`` is fixed when the stack's state is first created; ``serial`` grows by
one each time the content changes. Resources are keyed by address (``web``, ``group[3]``, ``app.db``).
The JSON form is published as ``hotc/state/state.schema.json``.

This module holds only the data model and its (de)serialisation; backends live beside it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import field, replace
from typing import Any

from hotc.model import model

# 2: a deposed instance carries its ``type`` and ``deletion_policy`` as fields (in 1 they were ``hotc:type``,
# ``hotc:deletion_policy`` and ``hotc:retain`` keys inside its attributes; the reader upgrades them).
# 3: ``groups``: an AutoScalingGroup's current size, cooldown and scaling decisions, kept apart from the
# template (a format-2 document has none: the reader gives ``{}``).
FORMAT_VERSION = 3

# Resource statuses, as Heat names them (ACTION_STATUS).
IN_PROGRESS_SUFFIX = "_IN_PROGRESS"
FAILED_SUFFIX = "_FAILED"


@model
class DeposedInstance:
    """An old instance of a resource that was replaced and still waits for deletion
    (Heat's order: create the new one, update dependents, delete the old one).

    ``type`` is the type the old instance has (a replacement may change the type; None: the resource's own
    type) and ``deletion_policy`` the policy it was created under, which its deletion honours (Retain: it is
    forgotten, Snapshot: it is backed up first)."""

    physical_id: str
    properties: Mapping[str, Any] = field(default_factory=dict)
    attributes: Mapping[str, Any] = field(default_factory=dict)
    status: str = "REPLACED"
    type: str | None = None
    deletion_policy: str = "Delete"  # Delete | Retain | Snapshot
    # what of the old instance is secret (as it was when it was current): stored masked like the resource's own
    sensitive_paths: tuple[str, ...] = ()
    sensitive_attributes: tuple[str, ...] = ()


@model
class ResourceState:
    address: str
    type: str
    physical_id: str | None
    status: str  # e.g. CREATE_COMPLETE, CREATE_IN_PROGRESS, CREATE_FAILED, UPDATE_FAILED, SUSPEND_COMPLETE
    properties: Mapping[str, Any] = field(default_factory=dict)  # as applied (resolved values)
    attributes: Mapping[str, Any] = field(default_factory=dict)  # attribute values read from the cloud
    dependencies: tuple[str, ...] = ()  # addresses this resource depends on
    deletion_policy: str = "Delete"  # Delete | Retain | Snapshot
    status_reason: str = ""
    created_at: str | None = None
    updated_at: str | None = None
    sensitive_paths: tuple[str, ...] = ()  # property paths derived from hidden parameters (stored masked)
    deposed: tuple[DeposedInstance, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)  # the resource's template metadata, resolved
    # attribute paths holding secrets (a RandomString's ``value``): stored masked like ``sensitive_paths``
    sensitive_attributes: tuple[str, ...] = ()
    # the attribute ``get_resource`` gives instead of the physical id (Heat's reference id), if any
    reference_attribute: str | None = None
    # Heat's external_id: the existing object this record adopted. hotc never creates, updates or deletes it;
    # forgetting the record (destroy, removal, an external_id change) leaves the object in place.
    external_id: str | None = None
    # the name another tool generated for this object where the template gives none (Heat's
    # ``<stack>-<resource>-<id>``, kept by ``hotc import --from-heat``): a read takes it for a generated name, as
    # it takes the ones hotc generates, so it is not planned away as a rename
    generated_name: str | None = None
    # the type the template declares, when the environment's registry maps it to ``type`` (an alias): what
    # Heat shows as the resource's type
    declared_type: str | None = None

    @property
    def reference_id(self) -> Any:
        """What ``get_resource`` gives: the physical id, or the ``reference_attribute``'s value (None when it is
        not known: no id yet, or a secret stored masked without the key to decrypt it)."""
        if self.physical_id is None or self.reference_attribute is None:
            return self.physical_id
        value = self.attributes.get(self.reference_attribute)
        if value is None or (isinstance(value, Mapping) and "__sensitive__" in value):
            return None
        return value

    @property
    def failed(self) -> bool:
        return self.status.endswith(FAILED_SUFFIX)

    @property
    def in_progress(self) -> bool:
        return self.status.endswith(IN_PROGRESS_SUFFIX)


@model
class ParameterRecord:
    """A parameter value as applied. Hidden values are never stored in clear: ``digest`` (sha256) or
    ``encrypted`` (when an encryption key is configured) replaces ``value``."""

    value: Any = None
    hidden: bool = False
    digest: str | None = None
    encrypted: str | None = None


@model
class OutputState:
    value: Any = None
    description: str = ""
    sensitive: bool = False
    error: str | None = None


@model
class ScalingDecision:
    """One scaling signal as hotc decided it: ``accepted`` (the group was resized from ``before`` to
    ``after``) or refused with ``reason`` (cooldown, no change in capacity, ...)."""

    time: str
    policy: str  # the ScalingPolicy's address
    signal: str  # where the signal came from (``hotc signal``, signal_url, alarm_url) and its id
    accepted: bool
    before: int
    after: int
    reason: str = ""


@model
class GroupState:
    """What an OS::Heat::AutoScalingGroup knows beyond its members (Heat keeps it in the group's nested stack
    and metadata): its current ``size`` (what scaling made it, apart from the template's desired_capacity),
    ``properties_digest`` (the group's properties as last applied: Heat resizes to desired_capacity only when
    they change), ``cooldown_end`` (ISO time before which a scaling signal is refused) and the latest
    scaling ``decisions`` (newest last, at most :data:`MAX_DECISIONS`)."""

    size: int
    properties_digest: str | None = None
    cooldown_end: str | None = None
    decisions: tuple[ScalingDecision, ...] = ()


MAX_DECISIONS = 50

# The key of a protection mark on the stack itself (every other key is a resource address or a pattern).
STACK_MARK = ""


@model
class ProtectMark:
    """A protection stored with the stack (``hotc protect``): a plan that would delete or replace what it
    covers, or destroy the stack, is refused, whatever command made it. ``by`` and ``at`` say who set it and
    when; ``reason`` why."""

    by: str
    at: str
    reason: str = ""


@model
class AcceptedDrift:
    """A difference between the state and the cloud that ``hotc drift`` and ``plan --refresh-only`` show apart,
    as accepted, until ``until`` (an ISO date, ``YYYY-MM-DD``; from the day after it the difference counts
    again). Keyed in :attr:`StackState.accepted_drift` by ``ADDRESS:PROPERTY_PATH`` (``web[2].port:name``).
    ``by`` and ``at`` say who accepted it and when; ``reason`` why."""

    reason: str
    until: str
    by: str = ""
    at: str = ""


@model
class StackState:
    lineage: str
    serial: int
    stack_name: str
    format_version: int = FORMAT_VERSION
    status: str = "INIT_COMPLETE"  # the stack's own ACTION_STATUS
    status_reason: str = ""
    template_digest: str | None = None  # sha256 over template + environments + files as applied
    template: Mapping[str, Any] = field(
        default_factory=dict
    )  # {"main": path, "files": {path: text}, "environments": [...]}
    parameters: Mapping[str, ParameterRecord] = field(default_factory=dict)
    resources: Mapping[str, ResourceState] = field(default_factory=dict)
    outputs: Mapping[str, OutputState] = field(default_factory=dict)
    created_at: str | None = None
    updated_at: str | None = None
    groups: Mapping[str, GroupState] = field(default_factory=dict)  # AutoScalingGroup address -> its state
    # protection marks: STACK_MARK (the stack), or a resource address or fnmatch pattern -> the mark
    protected: Mapping[str, ProtectMark] = field(default_factory=dict)
    # accepted drift (hotc drift --accept): ``ADDRESS:PROPERTY_PATH`` -> the entry
    accepted_drift: Mapping[str, AcceptedDrift] = field(default_factory=dict)
    # Heat's disable_rollback, as the last apply that gave --rollback or --no-rollback set it (None: never set;
    # a failed apply then rolls back only when asked, as Heat's default for a new stack)
    disable_rollback: bool | None = None

    @staticmethod
    def new(stack_name: str) -> StackState:
        return StackState(lineage=str(uuid.uuid4()), serial=0, stack_name=stack_name)

    def with_resource(self, rs: ResourceState) -> StackState:
        res = dict(self.resources)
        res[rs.address] = rs
        return replace(self, resources=res)

    def without_resource(self, address: str) -> StackState:
        res = dict(self.resources)
        res.pop(address, None)
        return replace(self, resources=res)
