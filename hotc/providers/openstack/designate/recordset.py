"""OS::Designate::RecordSet: the records of one name and type in a zone. As Heat (through designateclient): the
create sends ``name`` (the template's, else a generated ``<stack>-<resource>-<random>``; a name without a final
dot is taken inside the zone: ``www`` is ``www.<zone>``), ``type``, ``records`` and the ``ttl`` and
``description`` that have a value, then waits until the record set is no longer PENDING (ERROR fails it); an
update PUTs the changed ``ttl``, ``description`` and ``records`` that have a value and waits again; a change of
``name``, ``type`` or ``zone`` replaces it. ``zone`` names the zone by id or by name.

The physical id is the record set's id; every call names its zone too (Designate's paths are
``/zones/ZONE/recordsets/ID``), resolved from the ``zone`` property. A killed run's record set is found again only
by the name hotc generated for it (a given name is no evidence that a record set is hotc's)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import SimpleNamespace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    NotFound,
    adopt_by_generated_name,
    call,
    create_once,
    fresh_finder,
    ignore_missing,
    is_generated_name,
    physical_name,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.designate.common import (
    Live,
    find_zone,
    list_all,
    live,
    present,
    request,
    wait_deleted,
    wait_settled,
)
from hotc.providers.openstack.live import LiveProps, as_given, match_items, same_text

#: the properties an update sends when they changed and have a value (Heat's ``handle_update``)
UPDATED = ("ttl", "description", "records")


def full_name(name: str, zone_name: str) -> str:
    """designateclient's ``_canonicalize_record_name``: a name without a final dot is inside the zone."""
    return name if name.endswith(".") else f"{name}.{zone_name}"


def _path(zone_id: str, rs_id: str = "") -> str:
    return f"/zones/{zone_id}/recordsets" + (f"/{rs_id}" if rs_id else "")


class RecordSetDriver(ListRead):
    list_what = "record sets"

    def _zone(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> Live:
        return find_zone(ctx, conn, props.get("zone"))

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        zone = self._zone(ctx, conn, props)
        name = full_name(physical_name(ctx, props.get("name")), zone.name)
        body: dict[str, Any] = {
            "name": name,
            "type": props["type"],
            "records": list(props.get("records") or []),
        }
        for key in ("ttl", "description"):
            if props.get(key):
                body[key] = props[key]

        def listed() -> list[Live]:
            return list_all(conn, _path(zone.id), "recordsets", name=name, type=props["type"])

        find_new = fresh_finder(ctx, "create record set", listed, unique=not props.get("name"))
        made = create_once(
            ctx, "create record set", lambda: live(request(conn, "post", _path(zone.id), body)), find_new
        )
        ctx.record_physical_id(made.id)
        wait_settled(ctx, f"create record set {name}", lambda: self._get(conn, zone.id, made.id))
        return read_back(
            self, ctx, made.id, props, f"record set {made.id} disappeared right after its create"
        )

    def _get(self, conn: Any, zone_id: str, rs_id: str) -> Live:
        return live(request(conn, "get", _path(zone_id, rs_id)))

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        try:
            zone = self._zone(ctx, conn, props)
        except NotFound:
            return None  # its zone is gone, and the record set with it
        got = present(ctx, f"read record set {physical_id}", lambda: self._get(conn, zone.id, physical_id))
        return None if got is None else self.read_outcome(ctx, conn, got, props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list_all(conn, "/recordsets", "recordsets")

    def listed_usable(self, obj: Any) -> bool:
        return bool(obj.body.get("status") != "PENDING")

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Live, props: Mapping[str, Any]) -> Outcome:
        rs = obj.body
        zone_name = str(rs.get("zone_name") or "")
        lp = LiveProps(ctx, conn, props)
        live_name = str(rs.get("name") or "")
        given = props.get("name")
        if given not in (None, ""):
            lp.put("name", given if full_name(str(given), zone_name) == live_name else live_name)
        elif not is_generated_name(ctx, live_name.removesuffix(f".{zone_name}")):
            lp.out["name"] = live_name
        lp.text("type", rs.get("type"))
        lp.text("ttl", rs.get("ttl"))
        lp.text("description", rs.get("description"))
        records = [str(r) for r in rs.get("records") or []]
        lp.put("records", match_items(list(props.get("records") or []), records, same_text, lambda r: r))
        lp.put("zone", _zone_as_given(props.get("zone"), str(rs.get("zone_id") or ""), zone_name))
        return Outcome(obj.id, {"show": dict(rs)}, properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        body = {k: new[k] for k in UPDATED if k in changed and new.get(k)}
        if body:
            zone = self._zone(ctx, conn, new)
            call(
                ctx,
                f"update record set {physical_id}",
                request,
                conn,
                "put",
                _path(zone.id, physical_id),
                body,
            )
            wait_settled(
                ctx, f"update record set {physical_id}", lambda: self._get(conn, zone.id, physical_id)
            )
        return read_back(
            self, ctx, physical_id, new, f"record set {physical_id} disappeared during its update"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        try:
            zone = self._zone(ctx, conn, props)
        except NotFound:
            return  # the zone is gone, and its record sets with it
        path = _path(zone.id, physical_id)
        ignore_missing(ctx, f"delete record set {physical_id}", request, conn, "delete", path)
        wait_deleted(ctx, f"delete record set {physical_id}", lambda: self._get(conn, zone.id, physical_id))

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        if props.get("name"):
            return None
        conn = ctx.cloud()
        try:
            zone = self._zone(ctx, conn, props)
        except NotFound:
            return None

        def listed() -> list[SimpleNamespace]:  # each record set by its name within the zone
            found = list_all(conn, _path(zone.id), "recordsets")
            return [SimpleNamespace(id=o.id, name=o.name.removesuffix(f".{zone.name}")) for o in found]

        return adopt_by_generated_name(ctx, props, "record sets", listed)


def _zone_as_given(given: Any, zone_id: str, zone_name: str) -> Any:
    """The ``zone`` property as given when it names the record set's zone (by id or by name), else its id."""
    if given not in (None, "") and (str(given) == zone_id or same_text(given, zone_name)):
        return given
    return as_given(given, zone_id)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Designate::RecordSet": RecordSetDriver()})
