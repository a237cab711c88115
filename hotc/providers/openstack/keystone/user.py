"""OS::Keystone::User (admin-only under Keystone's default policy). A user has nowhere to carry hotc's stamp, so
it is adopted only by the name hotc generated for its stack and address. ``groups`` are the user's group
memberships (a read reports every group the user is in, so a membership added outside hotc is drift);
``roles`` are grants of :mod:`~hotc.providers.openstack.keystone.assignments`. Keystone never shows a password:
a read keeps the recorded one."""

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
from hotc.providers.openstack.keystone.common import find_domain, find_group, find_project
from hotc.providers.openstack.live import LiveProps, resolve_id

NAME_LIMIT = 255


class UserDriver(ListRead):
    list_what = "users"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"), limit=NAME_LIMIT)
        domain_id = str(find_domain(ctx, conn, props.get("domain") or "default").id)
        body: dict[str, Any] = {
            "name": name,
            "domain_id": domain_id,
            "description": props.get("description") or "",
            "is_enabled": props.get("enabled", True) is not False,
        }
        if props.get("email") is not None:
            body["email"] = props["email"]
        if props.get("password") is not None:
            body["password"] = props["password"]
        if props.get("default_project"):
            body["default_project_id"] = str(find_project(ctx, conn, props["default_project"]).id)
        groups = [str(find_group(ctx, conn, g).id) for g in props.get("groups") or []]
        wanted = assignments.grants(ctx, conn, props.get("roles"))
        find_new = fresh_finder(
            ctx, "create user", lambda: list(conn.identity.users(name=name, domain_id=domain_id))
        )
        user = create_once(ctx, "create user", lambda: conn.identity.create_user(**body), find_new)
        uid = str(user.id)
        ctx.record_physical_id(uid)
        for gid in groups:
            call(ctx, f"add user {uid} to group {gid}", conn.identity.add_user_to_group, uid, gid)
        assignments.grant_all(ctx, conn, "user", uid, wanted)
        return read_back(self, ctx, uid, props, f"user {uid} disappeared right after its create")

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        user = get_or_none(ctx, f"read user {physical_id}", conn.identity.get_user, physical_id)
        if user is None:
            return None
        return self.read_outcome(ctx, conn, user, props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.identity.users())

    def read_outcome(self, ctx: ActionContext, conn: Any, user: Any, props: Mapping[str, Any]) -> Outcome:
        uid = str(user.id)
        lp = LiveProps(ctx, conn, props)
        lp.name(user.name, limit=NAME_LIMIT)
        lp.ref("domain", user.domain_id, "domain", find_domain)
        lp.text("description", user.description or "")
        lp.put("enabled", bool(user.is_enabled))
        lp.text("email", user.email)
        lp.ref("default_project", user.default_project_id, "project", find_project)
        if lp.wants("groups"):
            live = call(
                ctx, f"list groups of user {uid}", lambda: [str(g.id) for g in conn.identity.user_groups(uid)]
            )
            if props.get("groups") is None and not live:
                lp.put("groups", None)
            else:
                lp.refs("groups", live, "group", find_group)
        if lp.wants("roles") and props.get("roles") is not None:
            have = assignments.live_grants(ctx, conn, "user", uid)
            lp.put("roles", assignments.live_roles(ctx, conn, props.get("roles"), have))
        attributes = {
            "name": user.name,
            "default_project_id": user.default_project_id,
            "domain_id": user.domain_id,
            "enabled": bool(user.is_enabled),
            "password_expires_at": user.password_expires_at,
        }
        return replace(outcome(user, attributes), properties=lp.result())

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
        if "enabled" in changed:
            body["is_enabled"] = new.get("enabled", True) is not False
        if "email" in changed:
            body["email"] = new.get("email")
        if "password" in changed and new.get("password") is not None:
            body["password"] = new["password"]
        if "default_project" in changed:
            dp = new.get("default_project")
            body["default_project_id"] = str(find_project(ctx, conn, dp).id) if dp else None
        if "domain" in changed:
            body["domain_id"] = str(find_domain(ctx, conn, new.get("domain") or "default").id)
        if body:
            call(ctx, f"update user {physical_id}", conn.identity.update_user, physical_id, **body)
        if "groups" in changed:
            want = {str(find_group(ctx, conn, g).id) for g in new.get("groups") or []}
            have = set(
                call(
                    ctx,
                    f"list groups of user {physical_id}",
                    lambda: [str(g.id) for g in conn.identity.user_groups(physical_id)],
                )
            )
            had = {gid for g in old.get("groups") or [] if (gid := _group_id(ctx, conn, g)) is not None}
            for gid in sorted(want - have):
                call(
                    ctx,
                    f"add user {physical_id} to group {gid}",
                    conn.identity.add_user_to_group,
                    physical_id,
                    gid,
                )
            # Heat removes the groups the old list had and the new one has not (a refresh records every live one)
            for gid in sorted((had & have) - want):
                ignore_missing(
                    ctx,
                    f"remove user {physical_id} from group {gid}",
                    conn.identity.remove_user_from_group,
                    physical_id,
                    gid,
                )
        if "roles" in changed:
            assignments.update_grants(ctx, conn, "user", physical_id, old.get("roles"), new.get("roles"))
        return read_back(self, ctx, physical_id, new, f"user {physical_id} disappeared during its update")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        # deleting a user ends its memberships and grants with it
        ignore_missing(ctx, f"delete user {physical_id}", ctx.cloud().identity.delete_user, physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, "users", lambda: conn.identity.users(), NAME_LIMIT)


def _group_id(ctx: ActionContext, conn: Any, value: Any) -> str | None:
    return resolve_id(ctx, conn, "group", value, find_group)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Keystone::User": UserDriver()})
