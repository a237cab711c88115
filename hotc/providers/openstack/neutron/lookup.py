"""Neutron look-ups by name or id, as Heat accepts them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import (
    lookup,
    made_or_found_id,
)


def find_network(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "network",
        value,
        lambda v: conn.network.get_network(v),
        lambda v: conn.network.networks(name=v),
        conn=conn,
    )


def find_subnet(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "subnet", value, conn.network.get_subnet, lambda v: conn.network.subnets(name=v))


def find_port(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "port", value, conn.network.get_port, lambda v: conn.network.ports(name=v))


def find_router(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "router", value, conn.network.get_router, lambda v: conn.network.routers(name=v))


def find_security_group(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    """Security group names are looked up in the current project (every project has a ``default``)."""
    return lookup(
        ctx,
        "security group",
        value,
        conn.network.get_security_group,
        lambda v: conn.network.security_groups(name=v, project_id=conn.current_project_id),
        conn=conn,
    )


def find_subnetpool(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx, "subnet pool", value, conn.network.get_subnet_pool, lambda v: conn.network.subnet_pools(name=v)
    )


def find_qos_policy(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx, "QoS policy", value, conn.network.get_qos_policy, lambda v: conn.network.qos_policies(name=v)
    )


def find_segment(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "segment", value, conn.network.get_segment, lambda v: conn.network.segments(name=v))


def security_group_ids(ctx: ActionContext, conn: Any, values: Iterable[Any]) -> list[str]:
    return [made_or_found_id(ctx, conn, "security_group", v, find_security_group) for v in values]
