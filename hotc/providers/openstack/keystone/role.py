"""OS::Keystone::Role (admin-only under Keystone's default policy). A role has nowhere to carry hotc's stamp,
so it is adopted only by the name hotc generated for its stack and address."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    adopt_by_generated_name,
    call,
    create_once,
    fresh_finder,
    ignore_missing,
    outcome,
    physical_name,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.get_read import GetRead
from hotc.providers.openstack.keystone.common import find_domain
from hotc.providers.openstack.live import LiveProps


class RoleDriver(GetRead, ListRead):
    read_what = "role"

    list_what = "roles"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"))
        body: dict[str, Any] = {"name": name}
        if props.get("domain"):
            body["domain_id"] = str(find_domain(ctx, conn, props["domain"]).id)
        find_new = fresh_finder(ctx, "create role", lambda: list(conn.identity.roles(name=name)))
        role = create_once(ctx, "create role", lambda: conn.identity.create_role(**body), find_new)
        ctx.record_physical_id(str(role.id))
        return read_back(self, ctx, str(role.id), props, f"role {role.id} disappeared right after its create")

    def get_live(self, conn: Any, physical_id: str) -> Any:
        return conn.identity.get_role(physical_id)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.identity.roles())

    def read_outcome(self, ctx: ActionContext, conn: Any, role: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(role.name)
        lp.ref("domain", role.domain_id, "domain", find_domain)
        return replace(outcome(role, {}), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        if "name" in changed:
            name = physical_name(ctx, new.get("name"))
            call(ctx, f"rename role {physical_id}", conn.identity.update_role, physical_id, name=name)
        return read_back(self, ctx, physical_id, new, f"role {physical_id} disappeared during its update")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(ctx, f"delete role {physical_id}", ctx.cloud().identity.delete_role, physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, "roles", lambda: conn.identity.roles())


DRIVERS: dict[str, Driver] = with_defaults({"OS::Keystone::Role": RoleDriver()})
