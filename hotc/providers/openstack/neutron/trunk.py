"""OS::Neutron::Trunk: a parent port and its subports; an update changes the trunk's own fields, then removes the
subports no longer listed and adds the new ones (in that order: a port cannot be two subports at once), as
Heat does. The trunk is ready once its status is ACTIVE or DOWN (DOWN until a server uses the parent port)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import call, wait_for, with_defaults
from hotc.providers.openstack.live import LiveProps, match_items
from hotc.providers.openstack.neutron.base import NeutronDriver, _put
from hotc.providers.openstack.neutron.lookup import find_port

READY = ("ACTIVE", "DOWN")
FAILED = ("ERROR", "DEGRADED")

SubportKey = tuple[str, str, int]


def _subports(
    ctx: ActionContext, conn: Any, items: Iterable[Mapping[str, Any]] | None
) -> list[dict[str, Any]]:
    return [
        {
            "port_id": find_port(ctx, conn, sp["port"]).id,
            "segmentation_type": sp["segmentation_type"],
            "segmentation_id": sp["segmentation_id"],
        }
        for sp in items or []
    ]


def _key(sp: Mapping[str, Any]) -> SubportKey:
    return (str(sp["port_id"]), str(sp["segmentation_type"]), int(sp["segmentation_id"]))


class TrunkDriver(NeutronDriver):
    kind, plural, what = "trunk", "trunks", "trunk"
    simple = {"name": "name", "description": "description", "admin_state_up": "admin_state_up"}
    attribute_names = ("port_id",)
    usable_when_made = False  # usable once its sub-ports are in (after_create)

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["port_id"] = find_port(ctx, conn, props["port"]).id
        subports = _subports(ctx, conn, props.get("sub_ports"))
        if subports:
            body["sub_ports"] = subports
        _put(body, "project_id", props.get("tenant_id"))
        return body

    def after_create(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> None:
        self._wait_built(ctx, conn, res.id, "create")

    def _wait_built(self, ctx: ActionContext, conn: Any, trunk_id: str, action: str) -> None:
        def failed(t: Any) -> str | None:
            st = str(t.status or "").upper()
            return f"went to {st}" if st in FAILED else None

        wait_for(
            ctx,
            f"{action} trunk {trunk_id}",
            lambda: self._get(ctx, conn, trunk_id),
            lambda t: t is not None and str(t.status or "").upper() in READY,
            failed,
        )

    def update_extra(self, ctx, conn, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        if "sub_ports" not in changed:
            return
        trunk = self._get(ctx, conn, physical_id)
        live = {_key(sp): sp for sp in (trunk.sub_ports if trunk is not None else []) or []}
        wanted = {_key(sp): sp for sp in _subports(ctx, conn, new.get("sub_ports"))}
        gone = [{"port_id": k[0]} for k in live if k not in wanted]
        added = [dict(sp) for k, sp in wanted.items() if k not in live]
        if gone:
            call(
                ctx,
                f"remove subports of trunk {physical_id}",
                conn.network.delete_trunk_subports,
                physical_id,
                gone,
            )
        if added:
            call(
                ctx,
                f"add subports to trunk {physical_id}",
                conn.network.add_trunk_subports,
                physical_id,
                added,
            )
        self._wait_built(ctx, conn, physical_id, "update")

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("port", raw.get("port_id"), "port", find_port)
        lp.text("description", raw.get("description") or "")
        lp.put("admin_state_up", raw.get("admin_state_up"))
        if lp.wants("sub_ports"):

            def same(given: Mapping[str, Any], live: Mapping[str, Any]) -> bool:
                return (
                    lp.ref_value(given.get("port"), live.get("port_id"), "port", find_port)
                    == given.get("port")
                    and given.get("segmentation_type") == live.get("segmentation_type")
                    and str(given.get("segmentation_id")) == str(live.get("segmentation_id"))
                )

            lp.put(
                "sub_ports",
                match_items(
                    lp.props.get("sub_ports") or [],
                    raw.get("sub_ports") or [],
                    same,
                    lambda sp: {
                        "port": sp.get("port_id"),
                        "segmentation_type": sp.get("segmentation_type"),
                        "segmentation_id": sp.get("segmentation_id"),
                    },
                ),
            )


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::Trunk": TrunkDriver()})
