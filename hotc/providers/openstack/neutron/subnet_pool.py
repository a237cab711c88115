"""OS::Neutron::SubnetPool: prefixes compared as address space (Neutron merges adjacent prefixes), the address
scope by name or id."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import lookup, with_defaults
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import NeutronDriver, _put


def find_address_scope(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "address scope",
        value,
        conn.network.get_address_scope,
        lambda v: conn.network.address_scopes(name=v),
    )


def same_space(given: Iterable[Any], live: Iterable[Any]) -> bool:
    """Whether two prefix lists cover the same addresses (``10.0.0.0/24, 10.0.1.0/24`` = ``10.0.0.0/23``)."""
    try:
        a = [ipaddress.ip_network(str(p), strict=False) for p in given]
        b = [ipaddress.ip_network(str(p), strict=False) for p in live]
    except ValueError:
        return False

    def collapsed(nets: list[Any]) -> list[Any]:
        out: list[Any] = []
        for version in (4, 6):
            out.extend(ipaddress.collapse_addresses([n for n in nets if n.version == version]))
        return out

    return collapsed(a) == collapsed(b)


class SubnetPoolDriver(NeutronDriver):
    kind, plural, what = "subnet_pool", "subnet_pools", "subnet pool"
    simple = {
        "name": "name",
        "prefixes": "prefixes",
        "default_quota": "default_quota",
        "default_prefixlen": "default_prefixlen",
        "min_prefixlen": "min_prefixlen",
        "max_prefixlen": "max_prefixlen",
        "is_default": "is_default",
    }

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        _put(body, "shared", props.get("shared"))
        _put(body, "project_id", props.get("tenant_id"))
        if props.get("address_scope"):
            body["address_scope_id"] = find_address_scope(ctx, conn, props["address_scope"]).id
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        if "address_scope" in changed:
            scope = new.get("address_scope")
            body["address_scope_id"] = find_address_scope(ctx, conn, scope).id if scope else None
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        given = lp.props.get("prefixes")
        live = list(raw.get("prefixes") or [])
        lp.put("prefixes", given if isinstance(given, list) and same_space(given, live) else live)
        for key in ("default_quota", "default_prefixlen", "min_prefixlen", "max_prefixlen"):
            lp.text(key, raw.get(key))
        for key in ("is_default", "shared"):
            lp.put(key, raw.get(key))
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))
        lp.ref("address_scope", raw.get("address_scope_id"), "address scope", find_address_scope)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::SubnetPool": SubnetPoolDriver()})
