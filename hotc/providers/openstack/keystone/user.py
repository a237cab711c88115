"""OS::Keystone::User (admin-only under Keystone's default policy): what every identity of
:class:`~hotc.providers.openstack.keystone.actor.ActorDriver` has (adopted only by the name hotc generated for
its stack and address; ``roles`` grants), plus ``enabled``, ``email``, ``password``, ``default_project`` and
``groups``, the user's group memberships (a read reports every group the user is in, so a membership added
outside hotc is drift). Keystone never shows a password: a read keeps the recorded one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import call, ignore_missing, with_defaults
from hotc.providers.openstack.keystone.actor import ActorDriver
from hotc.providers.openstack.keystone.common import find_group, find_project
from hotc.providers.openstack.live import LiveProps, resolve_id

NAME_LIMIT = 255


class UserDriver(ActorDriver):
    actor = "user"
    list_what = "users"
    name_limit = NAME_LIMIT

    def extra_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"is_enabled": props.get("enabled", True) is not False}
        if props.get("email") is not None:
            body["email"] = props["email"]
        if props.get("password") is not None:
            body["password"] = props["password"]
        if props.get("default_project"):
            body["default_project_id"] = str(find_project(ctx, conn, props["default_project"]).id)
        return body

    def after_create(self, ctx: ActionContext, conn: Any, oid: str, props: Mapping[str, Any]) -> None:
        for gid in [str(find_group(ctx, conn, g).id) for g in props.get("groups") or []]:
            call(ctx, f"add user {oid} to group {gid}", conn.identity.add_user_to_group, oid, gid)

    def _groups(self, ctx: ActionContext, conn: Any, uid: str) -> list[str]:
        return call(
            ctx, f"list groups of user {uid}", lambda: [str(g.id) for g in conn.identity.user_groups(uid)]
        )

    def extra_live(self, lp: LiveProps, conn: Any, obj: Any) -> None:
        lp.put("enabled", bool(obj.is_enabled))
        lp.text("email", obj.email)
        lp.ref("default_project", obj.default_project_id, "project", find_project)
        if lp.wants("groups"):
            live = self._groups(lp.ctx, conn, str(obj.id))
            if lp.props.get("groups") is None and not live:
                lp.put("groups", None)
            else:
                lp.refs("groups", live, "group", find_group)

    def attributes(self, obj: Any) -> dict[str, Any]:
        return {
            "name": obj.name,
            "default_project_id": obj.default_project_id,
            "domain_id": obj.domain_id,
            "enabled": bool(obj.is_enabled),
            "password_expires_at": obj.password_expires_at,
        }

    def extra_update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if "enabled" in changed:
            body["is_enabled"] = new.get("enabled", True) is not False
        if "email" in changed:
            body["email"] = new.get("email")
        if "password" in changed and new.get("password") is not None:
            body["password"] = new["password"]
        if "default_project" in changed:
            dp = new.get("default_project")
            body["default_project_id"] = str(find_project(ctx, conn, dp).id) if dp else None
        return body

    def after_update(
        self,
        ctx: ActionContext,
        conn: Any,
        oid: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> None:
        if "groups" not in changed:
            return
        want = {str(find_group(ctx, conn, g).id) for g in new.get("groups") or []}
        have = set(self._groups(ctx, conn, oid))
        had = {gid for g in old.get("groups") or [] if (gid := _group_id(ctx, conn, g)) is not None}
        for gid in sorted(want - have):
            call(ctx, f"add user {oid} to group {gid}", conn.identity.add_user_to_group, oid, gid)
        # Heat removes the groups the old list had and the new one has not (a refresh records every live one)
        for gid in sorted((had & have) - want):
            ignore_missing(
                ctx, f"remove user {oid} from group {gid}", conn.identity.remove_user_from_group, oid, gid
            )


def _group_id(ctx: ActionContext, conn: Any, value: Any) -> str | None:
    return resolve_id(ctx, conn, "group", value, find_group)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Keystone::User": UserDriver()})
