"""OS::Keystone::UserRoleAssignment and OS::Keystone::GroupRoleAssignment: the ``roles`` grants
(:mod:`~hotc.providers.openstack.keystone.assignments`) to a user or a group the stack does not make. The
physical id is the actor's id (Heat keeps none: ``hotc import --from-heat`` finds it from the
``user``/``group`` property). Changing the actor (``user``/``group``, updated in place as in
Heat's schema) revokes the grants from the old actor and makes them to the new one, where Heat's update only
touches the old one's; a delete revokes the grants, and a deleted actor is a gone resource."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    NotFound,
    get_or_none,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.keystone import assignments
from hotc.providers.openstack.keystone.common import find_group, find_user
from hotc.providers.openstack.live import LiveProps


class RoleAssignmentDriver:
    actor = ""  # "user" | "group"

    def _find(self, ctx: ActionContext | None, conn: Any, value: Any) -> Any:
        return (find_user if self.actor == "user" else find_group)(ctx, conn, value)

    def _get(self, conn: Any) -> Any:
        return conn.identity.get_user if self.actor == "user" else conn.identity.get_group

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        actor_id = str(self._find(ctx, conn, props.get(self.actor)).id)
        wanted = assignments.grants(ctx, conn, props.get("roles"))
        ctx.record_physical_id(actor_id)
        assignments.grant_all(ctx, conn, self.actor, actor_id, wanted)
        return read_back(
            self,
            ctx,
            actor_id,
            props,
            f"{self.actor} {actor_id} disappeared right after its roles were granted",
        )

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        actor = get_or_none(ctx, f"read {self.actor} {physical_id}", self._get(conn), physical_id)
        if actor is None:
            return None
        lp = LiveProps(ctx, conn, props)
        lp.ref(self.actor, physical_id, self.actor, self._find)
        if props.get("roles") is not None:
            have = assignments.live_grants(ctx, conn, self.actor, physical_id)
            lp.put("roles", assignments.live_roles(ctx, conn, props.get("roles"), have))
        return replace(Outcome(physical_id, {"show": {}}), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        actor_id = str(self._find(ctx, conn, new.get(self.actor)).id)
        if actor_id != physical_id:
            assignments.revoke_items(ctx, conn, self.actor, physical_id, old.get("roles"))
            assignments.grant_all(
                ctx, conn, self.actor, actor_id, assignments.grants(ctx, conn, new.get("roles"))
            )
        elif "roles" in changed:
            assignments.update_grants(ctx, conn, self.actor, actor_id, old.get("roles"), new.get("roles"))
        return read_back(
            self, ctx, actor_id, new, f"{self.actor} {actor_id} disappeared during the update of its roles"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        if get_or_none(ctx, f"read {self.actor} {physical_id}", self._get(conn), physical_id) is None:
            return
        try:
            assignments.revoke_items(ctx, conn, self.actor, physical_id, props.get("roles"))
        except NotFound:
            return

    def physical_id_from_heat(self, ctx: ActionContext, heat_id: str | None, props: Mapping[str, Any]) -> str:
        """Heat keeps no id for a role assignment: hotc's is the actor's, named by the ``user``/``group``."""
        return str(self._find(ctx, ctx.cloud(), props.get(self.actor)).id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        # grants are idempotent: a create a killed run left half-way is made again, never duplicated
        return None


class UserRoleAssignmentDriver(RoleAssignmentDriver):
    actor = "user"


class GroupRoleAssignmentDriver(RoleAssignmentDriver):
    actor = "group"


DRIVERS: dict[str, Driver] = with_defaults(
    {
        "OS::Keystone::UserRoleAssignment": UserRoleAssignmentDriver(),
        "OS::Keystone::GroupRoleAssignment": GroupRoleAssignmentDriver(),
    }
)
