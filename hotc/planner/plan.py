"""The Plan: an explicit list of actions with reasons (owned by ``hotc.planner``).

A Plan is what ``hotc plan`` shows and ``hotc apply`` executes, exactly. Its JSON form follows
``/work/shared/design/conventions.md`` (Terraform ``show -json``-like) and is published as
``hotc/planner/plan.schema.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from enum import Enum
from typing import Any

from hotc.model import model
from hotc.planner.moves import Move

PLAN_FORMAT_VERSION = "1.0"


class Action(str, Enum):
    NOOP = "no-op"
    CREATE = "create"
    UPDATE = "update"  # in place (a server image change is UPDATE with rebuild=True)
    REPLACE = "replace"  # JSON actions ["create", "delete"]: new first, then dependents, then old deleted
    DELETE = "delete"
    FORGET = "forget"  # deletion_policy Retain: dropped from state, left in the cloud

    @property
    def json_actions(self) -> list[str]:
        if self is Action.REPLACE:
            return ["create", "delete"]
        return [self.value]


@model(slots=True)
class ResourceChange:
    address: str
    type: str
    action: Action
    before: Mapping[str, Any] | None  # properties in state (None for create)
    after: Mapping[str, Any] | None  # desired properties; may hold hotc.values.Unknown (None for delete)
    replace_paths: tuple[str, ...] = ()  # property paths that force the replacement
    action_reason: str = ""  # e.g. "replace_because_cannot_update", "replace_by_request", "failed_resource"
    reason_detail: str = ""  # human sentence
    rebuild: bool = False
    changed_paths: tuple[str, ...] = ()  # property paths that differ (update/replace)
    depends_on: tuple[str, ...] = ()  # addresses this resource depends on (desired graph; state for deletes)
    sensitive_paths: tuple[str, ...] = ()
    previous_physical_id: str | None = None
    deposed: bool = False  # a leftover old instance of a replace (delete only); previous_physical_id names it
    deletion_policy: str = "Delete"
    index: int | None = None  # group member index
    after_sensitive: bool = False  # the whole value is sensitive (a resource fed as a whole by hidden data)
    import_id: str | None = (
        None  # create by adopting this existing object (Heat's external_id): nothing is made
    )
    # a group member that exists only while the group's rolling update runs (created in one batch, deleted
    # in a later one, as Heat's ResourceGroup does to keep min_in_service members in service)
    temporary: bool = False
    # the hooks (breakpoints) the apply pauses at for this change, in order (hotc.planner.hooks)
    hooks: tuple[str, ...] = ()
    # the address the state recorded this resource at before a planned move (hotc.planner.moves): the apply
    # moves the record (no cloud call) before anything else; the action is what the resource needs besides
    moved_from: str | None = None


@model
class OutputChange:
    name: str
    action: Action  # create | update | delete | no-op
    before: Any = None
    after: Any = None  # may be Unknown
    sensitive: bool = False
    error: str | None = (
        None  # the output cannot be evaluated (Heat stores an output error; the stack goes on)
    )


@model(slots=True)
class GroupBatch:
    """One batch of a group's rolling update (or batched create), in the order Heat runs them.

    ``apply``: leaf addresses whose create/update (or the creation of a replacement) runs in this batch;
    ``cleanup``: leaf addresses whose deletion (a removed member, a temporary member, or the old instance of a
    replaced member) runs in this batch. ``size``: members the group holds once the batch is done (Heat's
    capacity for the batch). ``pause_after``: seconds waited after the batch, before the next one starts."""

    number: int
    members: tuple[str, ...]  # member addresses touched (``web[3]``), for people
    apply: tuple[str, ...] = ()
    cleanup: tuple[str, ...] = ()
    size: int = 0
    updates: int = 0  # Heat's "members that receive the new definition" in this batch
    pause_after: float = 0.0


@model(slots=True)
class GroupRollout:
    """What the plan does to one ResourceGroup / AutoScalingGroup: ``before`` → ``after`` members, and, when
    its update policy applies, the batches. ``policy`` is ``rolling_update`` / ``batch_create`` (ResourceGroup
    update_policy), ``rolling_updates`` (AutoScalingGroup property), or "" when every member changes at once."""

    address: str
    type: str
    before: int
    after: int
    policy: str = ""
    max_batch_size: int = 1
    min_in_service: int = 0
    pause_time: float = 0.0
    batches: tuple[GroupBatch, ...] = ()
    members: tuple[str, ...] = ()  # member addresses the plan touches (created, changed, deleted)
    temporary: tuple[str, ...] = ()  # member addresses created and deleted within this apply
    note: str = ""


@model(slots=True)
class PolicyFinding:
    """A policy rule matched by a planned change. ``level`` deny fails the gate (exit 3), warn only reports."""

    level: str  # deny | warn
    rule: str  # the rule as written: ACTION:TYPE_GLOB[@ADDRESS_GLOB] [when PATH changes]
    source: str  # --deny, --warn, or the policy file and rule number
    address: str
    type: str
    action: str  # the change's action (rebuild for a server rebuild)
    message: str = ""  # the policy author's reason

    def describe(self) -> str:
        why = f": {self.message}" if self.message else ""
        return f"{self.level} rule {self.rule} (from {self.source}) matches {self.action} of {self.address} ({self.type}){why}"


@model
class Plan:
    stack_name: str
    mode: str  # normal | destroy | refresh-only
    changes: tuple[ResourceChange, ...]
    output_changes: tuple[OutputChange, ...] = ()
    state_lineage: str | None = None  # lineage/serial of the state planned against (None: no state yet)
    state_serial: int | None = None
    template_digest: str | None = None
    targets: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()  # --exclude: left out with their dependents
    replace_requests: tuple[str, ...] = ()
    parallelism: int = 40  # hotc.planner.options.DEFAULT_PARALLELISM
    format_version: str = PLAN_FORMAT_VERSION
    # Self-contained inputs for a saved plan: template path, environments, sources (path -> text),
    # parameter values (hidden ones protected). The applier reloads the stack from these.
    inputs: Mapping[str, Any] = field(default_factory=dict)
    # Changes made outside hotc, found by refreshing (refresh-only mode, or a normal plan given refreshed data):
    # actions update (properties differ) or delete (the object is gone).
    resource_drift: tuple[ResourceChange, ...] = ()
    project_id: str | None = None
    # one entry per group with members in the plan (its member count and, with an update policy, its batches)
    groups: tuple[GroupRollout, ...] = ()
    # Policy findings (deny and warn) and planning warnings travel with the plan: JSON, Markdown, SARIF.
    policy_findings: tuple[PolicyFinding, ...] = ()
    warnings: tuple[str, ...] = ()
    # What a reviewer weighs besides the actions (JSON-ready, see hotc.planner.review): the estimated apply
    # duration and critical path, each change's blast radius, the monthly cost delta.
    review: Mapping[str, Any] = field(default_factory=dict)
    # What a refresh read that the plan used and the state does not record: address -> attribute -> live value
    # (a hidden one as a salted digest, hotc.planner.refresh.carried_attributes). A saved plan carries them; its
    # apply reads those resources again and resolves from them, or stops if the cloud changed since the plan.
    refreshed_attributes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # The quota check (JSON-ready, see hotc.planner.quota): the project's limits and usage against what the
    # apply needs at its peak, or why it was not checked; empty when the plan uses no quota.
    quota: Mapping[str, Any] = field(default_factory=dict)
    # the moves the apply performs on the state first (``--move``, hotc.toml, the moves file), each with the
    # recorded leaf addresses it moves (hotc.planner.moves)
    moves: tuple[Move, ...] = ()
    # Where the state was read from (the backend's description, "local directory .hotc", "s3://B/P at URL"):
    # a plan for a new stack names it, so a mistyped stack name or backend shows in the headline.
    backend: str | None = None

    def summary(self) -> dict[str, int]:
        counts = {a.value: 0 for a in Action}
        for c in self.changes:
            counts[c.action.value] += 1
        return counts

    @property
    def creates_stack(self) -> bool:
        """A normal plan for a stack that has no state yet: applying it creates the stack (and records its
        state) even when the template has no resource and no output, as Heat creates an empty stack."""
        return self.mode == "normal" and self.state_lineage is None and not self.targets

    @property
    def new_stack_line(self) -> str | None:
        """For a normal plan of a stack with no state: ``new stack: no state in BACKEND`` (what a reviewer
        checks when the stack was meant to exist); None for a stack that has state."""
        if self.mode != "normal" or self.state_lineage is not None:
            return None
        where = f"no state in {self.backend}" if self.backend else "no state yet"
        return f"new stack: {where}; applying creates stack {self.stack_name!r}"

    @property
    def has_changes(self) -> bool:
        return (
            self.creates_stack
            or bool(self.moves)
            or any(c.action is not Action.NOOP for c in self.changes)
            or any(o.action is not Action.NOOP for o in self.output_changes)
        )
