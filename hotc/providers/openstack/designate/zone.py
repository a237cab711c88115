"""OS::Designate::Zone: a DNS zone Designate makes and serves through its pool's DNS servers (bind9 in the test
cloud). As Heat: the create sends the properties that have a value (``primaries`` as Designate's ``masters``;
designateclient sends ``email`` and ``ttl`` for a PRIMARY zone only, ``masters`` for a SECONDARY one only) and
waits until the zone is no longer PENDING (ERROR fails it); a delete waits until the zone is gone, asking again
when a serial update of Designate's took the zone's DELETE action back; an update PATCHes the changed ``email``, ``ttl``,
``description`` and primaries that have a value and waits again; a change of ``name``, ``type`` or ``attributes``
replaces the zone. ``serial`` is read from the zone when asked (it moves with every change of its records).

A zone carries no stamp, so a killed run's zone is not adopted (see :meth:`ZoneDriver.find_adoptable`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    call,
    create_once,
    fresh_finder,
    ignore_missing,
    now,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.designate.common import (
    Live,
    get_zone,
    list_all,
    live,
    present,
    request,
    wait_deleted,
    wait_settled,
    zone_path,
)
from hotc.providers.openstack.live import LiveProps, as_given, match_items, same_text
from hotc.providers.schemas.designate import primaries

#: seconds a zone may stay after its delete was asked before the delete is asked again (see ``delete``)
REDELETE_S = 20.0
#: the properties an update sends when they changed and have a value (Heat's ``handle_update``)
UPDATED = ("email", "ttl", "description")


def create_body(props: Mapping[str, Any]) -> dict[str, Any]:
    """The zone as Heat's create sends it through designateclient's ``zones.create``."""
    zone_type = props.get("type") or "PRIMARY"
    body: dict[str, Any] = {"name": props["name"], "type": zone_type}
    if zone_type == "PRIMARY":
        if props.get("email"):
            body["email"] = props["email"]
        if props.get("ttl"):
            body["ttl"] = props["ttl"]
    elif zone_type == "SECONDARY" and primaries(props):
        body["masters"] = list(primaries(props))
    if props.get("description"):
        body["description"] = props["description"]
    if props.get("attributes"):
        body["attributes"] = dict(props["attributes"])
    return body


def update_body(new: Mapping[str, Any], changed: frozenset[str]) -> dict[str, Any]:
    """What Heat's update PATCHes: each changed property of ``email``, ``ttl``, ``description`` and the primaries
    that has a value (an emptied one is not sent: Designate keeps the old value, as under Heat)."""
    body = {k: new[k] for k in UPDATED if k in changed and new.get(k)}
    if changed & {"primaries", "masters"} and primaries(new):
        body["masters"] = list(primaries(new))
    return body


class ZoneDriver(ListRead):
    list_what = "zones"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body = create_body(props)
        name = str(body["name"])
        find_new = fresh_finder(ctx, "create zone", lambda: list_all(conn, "/zones", "zones", name=name))
        made = create_once(ctx, "create zone", lambda: live(request(conn, "post", "/zones", body)), find_new)
        ctx.record_physical_id(made.id)
        wait_settled(ctx, f"create zone {name}", lambda: get_zone(conn, made.id))
        return read_back(self, ctx, made.id, props, f"zone {made.id} disappeared right after its create")

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        got = present(ctx, f"read zone {physical_id}", lambda: get_zone(conn, physical_id))
        return None if got is None else self.read_outcome(ctx, conn, got, props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list_all(conn, "/zones", "zones")

    def listed_usable(self, obj: Any) -> bool:
        return bool(obj.body.get("status") != "PENDING")

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Live, props: Mapping[str, Any]) -> Outcome:
        z = obj.body
        lp = LiveProps(ctx, conn, props)
        lp.text("name", z.get("name"))
        lp.text("type", z.get("type"))
        lp.text("description", z.get("description"))
        if z.get("type") == "SECONDARY":
            # designateclient never sends a SECONDARY zone's ttl nor email: Designate's own values are no drift
            lp.chosen("ttl", props.get("ttl") if props.get("ttl") else z.get("ttl"))
            lp.chosen("email", props.get("email") if props.get("email") else z.get("email"))
        else:
            lp.chosen("ttl", z.get("ttl"))
            lp.text("email", z.get("email"))
        masters = [str(m) for m in z.get("masters") or []]
        key = "masters" if props.get("masters") and not props.get("primaries") else "primaries"
        given = props.get(key)
        if masters or given:
            lp.put(key, match_items(list(given or []), masters, same_text, lambda m: m))
        else:
            lp.put(key, given)
        if "attributes" in props:
            lp.put("attributes", _attributes(props.get("attributes"), z.get("attributes")))
        return Outcome(obj.id, {"show": dict(z), "serial": z.get("serial")}, properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        body = update_body(new, changed)
        if body:
            call(ctx, f"update zone {physical_id}", request, conn, "patch", zone_path(physical_id), body)
            wait_settled(ctx, f"update zone {physical_id}", lambda: get_zone(conn, physical_id))
        return read_back(self, ctx, physical_id, new, f"zone {physical_id} disappeared during its update")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()

        sent = [0.0]

        def send() -> None:
            ignore_missing(ctx, f"delete zone {physical_id}", request, conn, "delete", zone_path(physical_id))
            sent[0] = now()

        def get() -> Live:
            # Designate bumps a zone's serial a moment after a change of its record sets (its producer's
            # increment_serial task); seen under load: that update, run after the delete, left the zone in place
            # until a second DELETE, many minutes later. So the delete is asked again when the zone's action is
            # no longer DELETE, or when the zone is still there REDELETE_S seconds after the last ask
            got = get_zone(conn, physical_id)
            action = got.body.get("action")
            if action != "DELETE" or now() - sent[0] > REDELETE_S:
                ctx.log(
                    f"delete zone {physical_id}: still there ({got.body.get('status')} {action}); asking again"
                )
                send()
            return got

        send()
        wait_deleted(ctx, f"delete zone {physical_id}", get)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """None: a zone carries no stamp, and its name (the template's) is no evidence that a zone is hotc's.
        Designate keeps zone names unique, so a killed run's zone is never made twice: the next create fails
        with Designate's "Duplicate Zone", and ``hotc import`` takes the zone."""
        return None


def _attributes(given: Any, live_attrs: Any) -> Any:
    """A zone's attributes as given when Designate holds the same pairs (it may add its own, e.g. pool hints)."""
    have = dict(live_attrs or {})
    want = dict(given or {})
    if all(k in have and same_text(v, have[k]) for k, v in want.items()):
        return given
    return {k: as_given(want.get(k), v) for k, v in have.items()}


DRIVERS: dict[str, Driver] = with_defaults({"OS::Designate::Zone": ZoneDriver()})
