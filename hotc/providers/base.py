"""Resource-type schemas and the driver protocol (owned by ``hotc.providers``).

A resource type is declared once, as data: a :class:`ResourceType` with its properties (type, required,
default, constraints, ``update_allowed``, ``immutable``), attributes and type-specific replace rules.
``hotc.providers.registry`` maps type names to (schema, driver).

Drivers do I/O (openstacksdk, or in-process for Heat-native types); schemas are pure data used by the
front end (validation) and the planner (update vs replace).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, Protocol

from hotc.errors import HotcError
from hotc.model import model
from hotc.values import MISSING


@model
class PropConstraint:
    kind: str  # length | range | allowed_values | allowed_pattern | custom_constraint | modulo
    spec: Any
    description: str | None = None


@model
class PropSchema:
    type: str  # string | integer | number | boolean | list | map | any
    required: bool = False
    default: Any = MISSING
    update_allowed: bool = False
    immutable: bool = False
    constraints: tuple[PropConstraint, ...] = ()
    schema: Mapping[str, PropSchema] | None = None  # keys of a map (or of each list item when item is a map)
    item: PropSchema | None = None  # schema of list items
    set_like: bool = False  # a list Heat compares as a set (server networks, security group rules)
    description: str = ""
    # Added by the schemas owner (all defaulted, add-only):
    hidden: bool = False  # support status HIDDEN: a legacy name still accepted (see ``alias_of``)
    deprecated: bool = False  # support status DEPRECATED: accepted, validation warns
    alias_of: str | None = None  # a hidden legacy name Heat translates to this sibling property
    # a secret whatever it is derived from (a Barbican secret's payload): masked in plans, encrypted in the state
    sensitive: bool = False


@model
class AttrSchema:
    description: str = ""
    type: str = "any"
    # a credential (a presigned signal URL): what reads it is sensitive (masked in plans and outputs)
    sensitive: bool = False
    # The attribute keeps its value through an in-place update of the resource (Terraform providers' "not
    # computed on update"): e.g. a port's ``network_id``, a volume's ``created_at``. Only declared where no
    # update Heat can make changes it; every other attribute of a resource being updated is planned as
    # "known after apply" (see ``hotc.planner.make.PlanResolver``).
    stable: bool = False
    # Why hotc cannot give this attribute (a URL of a service hotc does not run), or "": a plan that would pass it
    # to a resource is an error naming this reason, never a null sent to the cloud
    unavailable: str = ""


# A replace rule looks at old and new resolved properties and returns property paths that force a
# replacement, with the reason (e.g. server user_data with user_data_update_policy REPLACE).
ReplaceRule = Callable[[Mapping[str, Any], Mapping[str, Any]], list[tuple[str, str]]]

# An update check looks at old and new resolved properties (defaults applied) and returns
# (property path, message) for changes Heat refuses to make at all (a plan error, not a replace):
# immutable properties, a volume shrink, a subnet ``gateway_ip: auto`` update, …
UpdateCheck = Callable[[Mapping[str, Any], Mapping[str, Any]], list[tuple[str, str]]]

# A rebuild rule has the ReplaceRule signature and returns the paths whose change Heat applies as an in-place
# *rebuild* that destroys the root disk (server ``image`` with REBUILD/REBUILD_PRESERVE_EPHEMERAL, ``user_data``
# with REBUILD). The planner shows it as an update with ``rebuild=True``; replace rules win over rebuild rules.
RebuildRule = Callable[[Mapping[str, Any], Mapping[str, Any]], list[tuple[str, str]]]

# A validator checks one resource's resolved properties (defaults applied) for rules that span several
# properties (Heat's ``Resource.validate`` overrides, e.g. a pool needs ``listener`` or ``loadbalancer``) and returns
# (property path, message) pairs. Validators must skip checks whose inputs hold a hotc.values.Unknown.
PropsValidator = Callable[[Mapping[str, Any]], list[tuple[str, str]]]

# Whether a resource left in a *_FAILED state is replaced on the next update, given its live representation
# (the cloud's record as a dict, None when it is gone or was not read). Heat's ``needs_replace_failed``;
# a type without one always replaces a FAILED resource.
FailedReplace = Callable[[Mapping[str, Any] | None], bool]

# Checked on the new resolved properties on every update, changed or not: a reason string when Heat replaces
# the resource regardless of the diff (``needs_replace`` / ``_needs_update`` overrides), else None.
AlwaysReplace = Callable[[Mapping[str, Any]], str | None]


@model
class ResourceType:
    name: str
    properties: Mapping[str, PropSchema] = field(default_factory=dict)
    attributes: Mapping[str, AttrSchema] = field(default_factory=dict)
    replace_rules: tuple[ReplaceRule, ...] = ()
    service: str | None = None  # catalog service type the type needs (compute, network, …); None: in-process
    support: str = (
        "supported"  # supported | deprecated | hidden (placeholder types that validate but do nothing)
    )
    description: str = ""
    # Added by the schemas owner (all defaulted, add-only):
    update_checks: tuple[UpdateCheck, ...] = ()  # plan errors (immutable props are checked generically too)
    rebuild_rules: tuple[RebuildRule, ...] = ()  # in-place rebuilds (see RebuildRule)
    validators: tuple[PropsValidator, ...] = ()  # cross-property checks (see PropsValidator)
    always_replace: AlwaysReplace | None = None  # replace on every stack update whatever changed
    # updated on every stack update even when nothing changed (Heat's _needs_update forced true, e.g. an
    # ExternalResource's always_update): the reason, or None
    always_update: AlwaysReplace | None = None
    never_updates: bool = False  # Heat never updates it in place nor replaces it for a property change (None)
    accepts_any_properties: bool = False  # no "unknown property" errors (OS::Heat::None takes anything)
    heat_class: str = ""  # Heat's implementing class, for reference
    # The resource-level ``update_policy`` section's schema (ResourceGroup: rolling_update, batch_create). Empty:
    # the type takes no update_policy and any key in it is an error, as in Heat.
    update_policy: Mapping[str, PropSchema] = field(default_factory=dict)
    snapshot_delete: bool = False  # ``deletion_policy: Snapshot`` is supported (Server, Volume)
    # See FailedReplace; None: a FAILED resource is always replaced.
    failed_replace: FailedReplace | None = None
    # Which attributes echo which property, path for path (attribute name -> property name): an OS::Heat::Value's
    # ``value`` attribute is its ``value`` property. The planner masks such an attribute only where the property
    # is derived from a secret (``get_attr: [v, value, replicas]`` stays clear beside a secret ``value.password``).
    # Attributes not named here are sensitive whenever any property of the resource is.
    attribute_sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def update_allowed(self) -> frozenset[str]:
        """Top-level property names whose change Heat applies in place (schema ``update_allowed``)."""
        return frozenset(k for k, p in self.properties.items() if p.update_allowed)

    @property
    def immutable(self) -> frozenset[str]:
        """Top-level property names whose change makes Heat's update fail (``immutable``)."""
        return frozenset(k for k, p in self.properties.items() if p.immutable)


@model
class Outcome:
    """What a driver reports after an action."""

    physical_id: str | None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    properties: Mapping[str, Any] | None = None  # properties as applied, when the driver normalises them
    # attribute paths holding secrets, stored masked in the state (a RandomString's ``value``)
    sensitive_attributes: tuple[str, ...] = ()
    # the attribute ``get_resource`` gives instead of the physical id (Heat's reference id), if any
    reference_attribute: str | None = None


@model
class ActionContext:
    """Passed to every driver call."""

    address: str
    type: str
    stack_name: str
    lineage: str
    timeout: float
    cloud: Callable[
        [], Any
    ]  # returns an openstack.connection.Connection (lazily; in-process types never call it)
    record_physical_id: Callable[[str], None]  # call as soon as the cloud returns an id, before waiting
    tags: Mapping[str, str] = field(
        default_factory=dict
    )  # hotc-lineage / hotc-address to stamp on the resource
    log: Callable[[str], None] = lambda _msg: None
    # look-ups a driver may share across the resources of one run (a refresh resolves each name once);
    # None: no sharing
    cache: dict[Any, Any] | None = None
    # the signal store (``hotc.state.signal_store.SignalStore``) for types that wait for signals from instances;
    # raises HotcError when none is configured
    signals: Callable[[], Any] = field(default=lambda: _no_signal_store())
    # whether the run was asked to stop (Ctrl-C, SIGTERM): long waits give up instead of blocking the stop
    cancelled: Callable[[], bool] = lambda: False
    # how long this type's action usually takes on this stack (seconds, learned from its events), if known:
    # waits poll around it (hotc.providers.openstack.polling)
    expected: float | None = None
    # a create's shortest duration in the stack's recent history (at least three), if known: its first poll after
    # the first second comes just before it (hotc.providers.openstack.polling.first_poll_at)
    fastest: float | None = None
    # told of every cloud call a driver makes through the shared helpers: its duration in seconds and, when it
    # failed, the HTTP status (None: success): how the run learns that the cloud is busy (429, 503, 409, slow)
    on_call: Callable[[float, int | None], None] = lambda _seconds, _status: None
    # name look-ups of catalog objects (flavors, images, shared or external networks) shared by the actions of
    # one run, so thirty servers of one flavor look it up once; None: every look-up asks the cloud
    lookups: dict[Any, Any] | None = None
    # the resource's update_policy as the plan evaluated it (types whose driver runs batches itself: the
    # deployment groups' batch_create and rolling_update); empty when the template gives none
    update_policy: Mapping[str, Any] = field(default_factory=dict)
    # the recorded name another tool generated for this object (``ResourceState.generated_name``: Heat's, kept
    # by ``hotc import --from-heat``), a generated name as much as hotc's own (``is_generated_name``)
    generated_name: str | None = None
    # whether an id is recorded in the state (a current or an old, deposed instance of some resource): such an
    # object is never what a killed run made without recording, so adoption by a generated name skips it
    recorded: Callable[[str], bool] = lambda _pid: False
    # a create calls it once the object whose id it recorded is usable as it is (a Neutron object as the POST
    # answers it; a server only once ACTIVE): what needs only its id (get_resource) may start, before the
    # driver puts its tags and reads its attributes. Never before record_physical_id; a no-op elsewhere
    ready_for_dependents: Callable[[], None] = lambda: None


def _no_signal_store() -> Any:
    raise HotcError("no signal store is configured for this run")


# ``deletion_policy`` values a driver's ``delete`` is called with (Retain never reaches a driver: the applier
# forgets the resource instead).
DELETE = "Delete"
SNAPSHOT = "Snapshot"


class Driver(Protocol):
    """Create/read/update/delete (and lifecycle) for one resource type. Every call is idempotent where the
    cloud allows: delete of a gone resource succeeds, read of a gone resource returns None."""

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome: ...

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None: ...

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome: ...

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        """Delete the resource. ``policy`` is its ``deletion_policy``, passed explicitly by the applier:
        ``Snapshot`` makes a backup first and fails, keeping the resource, when that cannot be done. Only a
        driver with ``snapshot_delete = True`` is ever asked for a Snapshot (the applier refuses it for others)."""
        ...

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """A physical id of a resource this stack created (by lineage+address tags) but never recorded."""
        ...


class ReplacePreparer(Protocol):
    """Optional driver methods (Heat's ``prepare_for_replace`` / ``restore_prev_rsrc``) for a type whose
    replacement cannot be created while the old instance still holds something the new one needs: a server's
    explicit ports (a port attaches to one server only), a port's fixed IPs, a key pair's name. A driver that
    has them implements both; drivers without them are fine (see :func:`prepare_for_replace`).

    ``prepare_for_replace(ctx, physical_id, old, new)`` runs right before the replacement is created:
    ``physical_id``/``old`` are the old instance and its properties, ``new`` the replacement's. It frees what the
    replacement needs and returns True when it changed the old instance (so that a failed replacement must
    restore it), False when there was nothing to do.

    ``restore_after_failed_replace(ctx, physical_id, old, new)`` runs when the replacement's create failed after
    a ``prepare_for_replace`` that returned True: it gives the old instance back what prepare took (taking it from
    the failed replacement if that holds it). Both are idempotent."""

    def prepare_for_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> bool: ...

    def restore_after_failed_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None: ...


def prepare_for_replace(
    driver: Any, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> bool:
    """Call the driver's optional ``prepare_for_replace`` (see :class:`ReplacePreparer`); False without one."""
    fn = getattr(driver, "prepare_for_replace", None)
    return bool(fn(ctx, physical_id, old, new)) if callable(fn) else False


def restore_after_failed_replace(
    driver: Any, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> None:
    """Call the driver's optional ``restore_after_failed_replace`` (see :class:`ReplacePreparer`), if any."""
    fn = getattr(driver, "restore_after_failed_replace", None)
    if callable(fn):
        fn(ctx, physical_id, old, new)


class Snapshotter(Protocol):
    """Optional driver methods for a type whose objects Heat snapshots (``handle_snapshot``, ``handle_restore``,
    ``handle_delete_snapshot``): a volume (a Cinder snapshot or backup), a server (a Glance image). A type
    without them takes no physical snapshot: a stack snapshot keeps only its recorded state (see
    :func:`take_snapshot`).

    ``snapshot(ctx, physical_id, props, name, lasting=False)`` takes the physical snapshot, waits for it to be
    usable and returns what restoring and deleting it need (a JSON object, e.g. ``{"snapshot_id": ...}``).
    ``lasting``: it must outlive the object (``deletion_policy: Snapshot``, which deletes the object next).

    ``restore_properties(props, data)`` is the resource's properties made to rebuild it from ``data`` (a
    volume from its snapshot, a server from its image); the planner then decides replace or rebuild.

    ``delete_snapshot(ctx, data)`` deletes the physical snapshot (gone already: done)."""

    def snapshot(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], name: str, lasting: bool = False
    ) -> Mapping[str, Any]: ...

    def restore_properties(self, props: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]: ...

    def delete_snapshot(self, ctx: ActionContext, data: Mapping[str, Any]) -> None: ...


def takes_snapshots(driver: Any) -> bool:
    """Whether the driver takes physical snapshots (:class:`Snapshotter`)."""
    return callable(getattr(driver, "snapshot", None))


def take_snapshot(
    driver: Any, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], name: str
) -> dict[str, Any]:
    """The driver's physical snapshot of the object (see :class:`Snapshotter`); ``{}`` (no physical snapshot)
    for a type without one."""
    fn = getattr(driver, "snapshot", None)
    return dict(fn(ctx, physical_id, props, name)) if callable(fn) else {}


def restore_properties(driver: Any, props: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """``props`` made to rebuild the object from its physical snapshot ``data``; unchanged without one."""
    fn = getattr(driver, "restore_properties", None)
    if not data or not callable(fn):
        return dict(props)
    return dict(fn(props, data))


def delete_snapshot(driver: Any, ctx: ActionContext, data: Mapping[str, Any]) -> None:
    """Delete the physical snapshot ``data`` describes (nothing to do without one)."""
    fn = getattr(driver, "delete_snapshot", None)
    if data and callable(fn):
        fn(ctx, data)


class HeatIdTranslator(Protocol):
    """Optional driver method for a type whose Heat resource keeps no physical id hotc can read (Heat's role
    assignments keep none, its QoSAssociation a random uuid of its own, its FloatingIPAssociation a row id of its
    database, its VolumeAttachment Nova's attachment id, which names no server): ``physical_id_from_heat(ctx, heat_id,
    props)`` gives hotc's physical id of the object the resource's resolved properties name (a role assignment's
    actor, an association's QoS specs), for ``hotc import --from-heat``. ``heat_id`` is what Heat keeps (may be
    empty). Without the method Heat's id is hotc's (see :func:`physical_id_from_heat`)."""

    def physical_id_from_heat(
        self, ctx: ActionContext, heat_id: str | None, props: Mapping[str, Any]
    ) -> str: ...


def physical_id_from_heat(
    driver: Any, ctx: ActionContext, heat_id: str | None, props: Mapping[str, Any]
) -> str | None:
    """hotc's physical id for a resource Heat made: the driver's optional ``physical_id_from_heat`` (see
    :class:`HeatIdTranslator`), else Heat's own id (None when Heat keeps none)."""
    fn = getattr(driver, "physical_id_from_heat", None)
    if callable(fn):
        return str(fn(ctx, heat_id, props))
    return heat_id or None


def translates_heat_ids(driver: Any) -> bool:
    """Whether the driver derives its physical id from the properties (:class:`HeatIdTranslator`)."""
    return callable(getattr(driver, "physical_id_from_heat", None))


@model
class PluginType:
    """One resource type a plugin adds (``hotc.providers.plugins``): its schema and its driver (None: it
    validates and plans, and apply refuses it at plan time with ``unsupported_reason``)."""

    schema: ResourceType
    driver: Driver | None = None
    unsupported_reason: str = ""
