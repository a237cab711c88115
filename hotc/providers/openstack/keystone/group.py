"""OS::Keystone::Group (admin-only under Keystone's default policy). A group has nowhere to carry hotc's stamp,
so it is adopted only by the name hotc generated for its stack and address; ``roles`` are grants of
:mod:`~hotc.providers.openstack.keystone.assignments`."""

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
    get_or_none,
    ignore_missing,
    outcome,
    physical_name,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.keystone import assignments
from hotc.providers.openstack.keystone.common import find_domain
from hotc.providers.openstack.live import LiveProps

NAME_LIMIT = 64


class GroupDriver(ListRead):
    list_what = "groups"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"), limit=NAME_LIMIT)
        domain_id = str(find_domain(ctx, conn, props.get("domain") or "default").id)
        body = {"name": name, "domain_id": domain_id, "description": props.get("description") or ""}
        wanted = assignments.grants(ctx, conn, props.get("roles"))
        find_new = fresh_finder(
            ctx, "create group", lambda: list(conn.identity.groups(name=name, domain_id=domain_id))
        )
        group = create_once(ctx, "create group", lambda: conn.identity.create_group(**body), find_new)
        gid = str(group.id)
        ctx.record_physical_id(gid)
        assignments.grant_all(ctx, conn, "group", gid, wanted)
        return read_back(self, ctx, gid, props, f"group {gid} disappeared right after its create")

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        group = get_or_none(ctx, f"read group {physical_id}", conn.identity.get_group, physical_id)
        if group is None:
            return None
        return self.read_outcome(ctx, conn, group, props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.identity.groups())

    def read_outcome(self, ctx: ActionContext, conn: Any, group: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(group.name, limit=NAME_LIMIT)
        lp.ref("domain", group.domain_id, "domain", find_domain)
        lp.text("description", group.description or "")
        if lp.wants("roles") and props.get("roles") is not None:
            have = assignments.live_grants(ctx, conn, "group", str(group.id))
            lp.put("roles", assignments.live_roles(ctx, conn, props.get("roles"), have))
        return replace(outcome(group, {}), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        body: dict[str, Any] = {}
        if "name" in changed:
            body["name"] = physical_name(ctx, new.get("name"), limit=NAME_LIMIT)
        if "description" in changed:
            body["description"] = new.get("description") or ""
        if "domain" in changed:
            body["domain_id"] = str(find_domain(ctx, conn, new.get("domain") or "default").id)
        if body:
            call(ctx, f"update group {physical_id}", conn.identity.update_group, physical_id, **body)
        if "roles" in changed:
            assignments.update_grants(ctx, conn, "group", physical_id, old.get("roles"), new.get("roles"))
        return read_back(self, ctx, physical_id, new, f"group {physical_id} disappeared during its update")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(ctx, f"delete group {physical_id}", ctx.cloud().identity.delete_group, physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, "groups", lambda: conn.identity.groups(), NAME_LIMIT)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Keystone::Group": GroupDriver()})
