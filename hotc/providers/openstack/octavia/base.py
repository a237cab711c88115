"""What the Octavia types share: look-ups, the wait for a load balancer to be ACTIVE, and
:class:`OctaviaChild`, the create/read/update/delete of a load balancer child with the LB-ACTIVE dance around each
call."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.openstack.batch import ListRead, lineage_tag
from hotc.providers.openstack.common import (
    ProviderError,
    beside,
    call,
    create_once,
    fresh_finder,
    get_or_none,
    ignore_missing,
    lookup,
    merge_tags,
    newest,
    outcome,
    physical_name,
    remember_made,
    settle,
    stamp_tags,
    user_tags,
    wait_for,
    wait_gone,
)
from hotc.providers.openstack.live import LiveProps

T = TypeVar("T")


def find_load_balancer(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "load balancer",
        value,
        conn.load_balancer.get_load_balancer,
        lambda v: conn.load_balancer.load_balancers(name=v),
    )


def find_listener(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "listener",
        value,
        conn.load_balancer.get_listener,
        lambda v: conn.load_balancer.listeners(name=v),
    )


def find_pool(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "pool", value, conn.load_balancer.get_pool, lambda v: conn.load_balancer.pools(name=v))


def find_l7_policy(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "L7 policy",
        value,
        conn.load_balancer.get_l7_policy,
        lambda v: conn.load_balancer.l7_policies(name=v),
    )


def find_flavor_profile(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "load balancer flavor profile",
        value,
        conn.load_balancer.get_flavor_profile,
        lambda v: conn.load_balancer.flavor_profiles(name=v),
    )


_LB_OF = (
    "hotc.load balancer of"  # ctx.lookups[(_LB_OF, child id)]: the load balancer of a child this run made
)


def remember_lb(ctx: ActionContext, child_id: Any, lb_id: str) -> None:
    """Note that the child ``child_id`` this run made belongs to the load balancer ``lb_id`` (a child never moves
    to another load balancer): its own children find their load balancer with no read of it."""
    shared = getattr(ctx, "lookups", None)
    if isinstance(shared, dict) and child_id:
        shared[(_LB_OF, str(child_id))] = lb_id


def made_lb(ctx: ActionContext | None, child_ref: Any) -> str | None:
    """The load balancer of ``child_ref`` when this run made that child (see :func:`remember_lb`), else None."""
    shared = getattr(ctx, "lookups", None)
    found = shared.get((_LB_OF, str(child_ref))) if isinstance(shared, dict) else None
    return str(found) if found else None


def lb_of_listener(ctx: ActionContext | None, conn: Any, listener_ref: Any) -> str:
    """The load balancer of a listener (given by name or id)."""
    known = made_lb(ctx, listener_ref)
    if known is not None:
        return known
    listener = find_listener(ctx, conn, listener_ref)
    lb_id = _first_id(listener.load_balancers)
    if not lb_id:
        raise ProviderError(f"listener {listener.id} belongs to no load balancer")
    return lb_id


def find_lb_flavor(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "load balancer flavor",
        value,
        conn.load_balancer.get_flavor,
        lambda v: conn.load_balancer.flavors(name=v),
    )


def _status_failed(obj: Any) -> str | None:
    st = str(getattr(obj, "provisioning_status", "") or "").upper()
    return "provisioning_status went to ERROR" if st == "ERROR" else None


def wait_lb(ctx: ActionContext, conn: Any, lb_id: str, what: str) -> Any:
    """Wait until the load balancer is ACTIVE (not PENDING_*); ERROR stops with an error."""
    return wait_for(
        ctx,
        f"{what}: wait for load balancer {lb_id}",
        lambda: conn.load_balancer.get_load_balancer(lb_id),
        lambda o: o is not None and str(o.provisioning_status).upper() == "ACTIVE",
        _status_failed,
    )


#: how many times a change refused because a sibling's change holds the load balancer is tried again
BUSY_ROUNDS = 20


def _lb_busy(exc: ProviderError) -> bool:
    return exc.status_code == 409 and "immutable" in exc.message


def while_lb_busy(ctx: ActionContext, conn: Any, lb_id: str, what: str, change: Callable[[], T]) -> T:
    """``change()``, made again after the load balancer is ACTIVE each time Octavia refuses it because the load
    balancer is busy (409 "... is immutable and cannot be updated": a sibling child's change took it between
    the wait and this call, as children made in parallel do), as Heat's Octavia resources retry a conflict
    until their timeout. Other errors, and a load balancer still busy after ``BUSY_ROUNDS`` rounds, raise."""
    for round_ in range(1, BUSY_ROUNDS + 1):
        try:
            return change()
        except ProviderError as exc:
            if not _lb_busy(exc) or round_ == BUSY_ROUNDS:
                raise
            ctx.log(
                f"{what}: load balancer {lb_id} is busy with another change; waiting for it (round {round_})"
            )
            wait_lb(ctx, conn, lb_id, what)
    raise AssertionError("unreachable")


def fresh_finder_during(
    ctx: ActionContext, what: str, list_matches: Callable[[], Iterable[Any]], during: Callable[[], Any]
) -> Callable[[], Any]:
    """:func:`~hotc.providers.openstack.common.fresh_finder`, its list call (what matches before the create)
    made in a thread while ``during()`` runs (the look-ups and the wait for the load balancer that come before
    the create anyway), so it costs no round trip of its own on the create's path. Both end before the create is
    sent, so the list cannot see what the create makes."""
    box, _ = beside(lambda: fresh_finder(ctx, what, list_matches), during, "hotc-list")
    return box[0] if box else (lambda: None)


def is_uuid(value: Any) -> bool:
    """Whether ``value`` is written as a UUID (Octavia's ids are), so it can be used as an id without a look-up."""
    text = str(value)
    if len(text) != 36:
        return False
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _first_id(items: Any) -> str | None:
    for item in items or []:
        if isinstance(item, Mapping) and item.get("id"):
            return str(item["id"])
    return None


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        body[key] = value


# properties Octavia picks when the template leaves them empty (compared only when given)
CHOSEN = frozenset({"vip_address", "provider", "availability_zone", "monitor_address", "monitor_port"})


class OctaviaChild(ListRead):
    """Create/update/delete of a load balancer child with the LB-ACTIVE dance around each call."""

    kind = ""  # proxy's singular name: listener, pool, health_monitor
    plural = ""
    what = ""
    simple: Mapping[str, str] = {}
    named = True

    # hooks
    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        raise NotImplementedError

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for prop, field in self.simple.items():
            _put(body, field, props.get(prop))
        if self.named:
            body["name"] = physical_name(ctx, props.get("name"))
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for prop, field in self.simple.items():
            if prop in changed:
                body[field] = new.get(prop)
        if self.named and "name" in changed:
            body["name"] = physical_name(ctx, new.get("name"))
        return body

    def attributes(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    # plumbing (members override these: they live under a pool)
    def _create(self, conn: Any, props: Mapping[str, Any], body: dict[str, Any]) -> Any:
        return getattr(conn.load_balancer, f"create_{self.kind}")(**body)

    def _get(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return getattr(conn.load_balancer, f"get_{self.kind}")(pid)

    def _update(self, conn: Any, pid: str, props: Mapping[str, Any], body: dict[str, Any]) -> Any:
        return getattr(conn.load_balancer, f"update_{self.kind}")(pid, **body)

    def _delete(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return getattr(conn.load_balancer, f"delete_{self.kind}")(pid, ignore_missing=False)

    def _list(self, conn: Any, props: Mapping[str, Any], **query: Any) -> list[Any]:
        return list(getattr(conn.load_balancer, self.plural)(**query))

    # protocol
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        ready: dict[str, Any] = {}

        def prepare() -> None:
            ready["lb_id"] = self.lb_of_props(ctx, conn, props)
            ready["body"] = self.create_body(ctx, conn, props)
            ready["body"]["tags"] = merge_tags(ctx, props.get("tags"))
            wait_lb(ctx, conn, ready["lb_id"], f"create {self.what}")

        find_new = fresh_finder_during(
            ctx, f"create {self.what}", lambda: self._list(conn, props, tags=stamp_tags(ctx)), prepare
        )
        lb_id, body = str(ready["lb_id"]), ready["body"]
        obj = while_lb_busy(
            ctx,
            conn,
            lb_id,
            f"create {self.what}",
            lambda: create_once(
                ctx, f"create {self.what}", lambda: self._create(conn, props, body), find_new
            ),
        )
        ctx.record_physical_id(obj.id)
        remember_made(ctx, self.kind, obj.id)  # its children in this run name it with no look-up
        remember_lb(ctx, obj.id, lb_id)
        return self._settle(ctx, conn, lb_id, obj.id, props, f"create {self.what}")

    def _settle(
        self, ctx: ActionContext, conn: Any, lb_id: str, pid: str, props: Mapping[str, Any], what: str
    ) -> Outcome:
        wait_lb(ctx, conn, lb_id, what)
        obj = wait_for(
            ctx,
            f"{what} {pid}",
            lambda: self._get(conn, pid, props),
            lambda o: o is not None and str(o.provisioning_status).upper() == "ACTIVE",
            _status_failed,
        )
        return self._outcome(obj)

    def _outcome(self, obj: Any) -> Outcome:
        return outcome(obj, self.attributes(obj.to_dict(original_names=True)))

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(getattr(conn.load_balancer, self.plural)(tags=[lineage_tag(ctx)]))

    def listed_usable(self, obj: Any) -> bool:
        status = str(obj.provisioning_status).upper()
        return not status.startswith("PENDING_") and status != "DELETED"

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        try:
            obj = get_or_none(ctx, f"read {self.what} {physical_id}", self._get, conn, physical_id, props)
        except ProviderError as exc:
            if exc.status_code == 404:
                return None
            raise
        obj = settle(
            ctx,
            f"read {self.what} {physical_id}",
            obj,
            lambda: self._get(conn, physical_id, props),
            lambda o: str(o.provisioning_status).upper().startswith("PENDING_"),
        )
        if obj is None or str(obj.provisioning_status).upper() == "DELETED":
            return None
        return self.read_outcome(ctx, conn, obj, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        """Attributes and live properties of ``obj`` (also one from a list call)."""
        raw = obj.to_dict(original_names=True)
        lp = LiveProps(ctx, conn, props)
        if self.named:
            lp.name(raw.get("name"))
        for prop, field in self.simple.items():
            if prop == "description":
                lp.text(prop, raw.get(field) or "")
            elif prop in CHOSEN:
                lp.chosen(prop, raw.get(field))
            else:
                lp.put(prop, raw.get(field))
        lp.put("tags", user_tags(raw.get("tags")))
        self.live_properties(lp, raw)
        return replace(self._outcome(obj), properties=lp.result())

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        """Subclasses report their references from the API representation ``raw``."""
        return None

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        lb_id = self.lb_of_props(ctx, conn, new)
        body = self.update_body(ctx, conn, new, changed)
        if "tags" in changed:
            body["tags"] = merge_tags(ctx, new.get("tags"))
        if body:
            wait_lb(ctx, conn, lb_id, f"update {self.what}")
            while_lb_busy(
                ctx,
                conn,
                lb_id,
                f"update {self.what}",
                lambda: call(
                    ctx, f"update {self.what} {physical_id}", self._update, conn, physical_id, new, body
                ),
            )
        return self._settle(ctx, conn, lb_id, physical_id, new, f"update {self.what}")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        try:
            lb_id: str | None = self.lb_of_props(ctx, conn, props)
        except ProviderError:  # the parent is gone, so is this
            lb_id = None
        if (
            lb_id is None
            or get_or_none(ctx, "read load balancer", conn.load_balancer.get_load_balancer, lb_id) is None
        ):
            return
        if self.read(ctx, physical_id, props) is None:
            return
        for attempt in (1, 2):
            wait_lb(ctx, conn, lb_id, f"delete {self.what}")
            ignore_missing(ctx, f"delete {self.what} {physical_id}", self._delete, conn, physical_id, props)
            try:
                wait_gone(
                    ctx,
                    f"delete {self.what} {physical_id}",
                    lambda: self._live(conn, physical_id, props),
                    failures=("ERROR",),
                    attr="provisioning_status",
                )
                break
            except ProviderError as exc:
                if attempt == 2:
                    raise ProviderError(
                        f"{exc.message} (Octavia left the {self.what} in ERROR; deleting the load balancer "
                        "removes it with cascade)"
                    ) from exc
                ctx.log(f"{self.what} {physical_id} went to ERROR on delete; retrying once")
        wait_lb(ctx, conn, lb_id, f"delete {self.what}")

    def _live(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        obj = self._get(conn, pid, props)
        return None if obj is None or str(obj.provisioning_status).upper() == "DELETED" else obj

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        found = self._find(ctx, ctx.cloud(), props)
        return None if found is None else str(found.id)

    def _find(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> Any:
        try:
            found = call(ctx, f"search {self.what}", self._list, conn, props, tags=stamp_tags(ctx))
        except ProviderError:
            return None
        return newest(found)


def lb_of_pool(ctx: ActionContext, conn: Any, pool_ref: Any) -> tuple[str, str]:
    """The id of a pool (given by name or id) and of its load balancer (no read when this run made the pool)."""
    known = made_lb(ctx, pool_ref)
    if known is not None:
        return str(pool_ref), known
    pool = find_pool(ctx, conn, pool_ref)
    lb_id = _first_id(pool.loadbalancers)
    if not lb_id:
        for lid in pool.listeners or []:
            listener = conn.load_balancer.get_listener(lid["id"])
            lb_id = _first_id(listener.load_balancers)
            if lb_id:
                break
    if not lb_id:
        raise ProviderError(f"pool {pool.id} belongs to no load balancer")
    return str(pool.id), lb_id
