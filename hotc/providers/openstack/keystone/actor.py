"""What OS::Keystone::User and OS::Keystone::Group share (:class:`ActorDriver`): an identity that has nowhere to
carry hotc's stamp, so it is adopted only by the name hotc generated for its stack and address; a ``name``,
``domain`` and ``description`` set on create and updated in place; ``roles`` granted through
:mod:`~hotc.providers.openstack.keystone.assignments`; one list call reads them all. A subclass adds its own
fields (a user's email, password, default project and group memberships) through the hooks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Outcome
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
)
from hotc.providers.openstack.get_read import GetRead
from hotc.providers.openstack.keystone import assignments
from hotc.providers.openstack.keystone.common import find_domain
from hotc.providers.openstack.live import LiveProps


class ActorDriver(GetRead, ListRead):
    """Subclasses give ``actor`` (``user`` / ``group``: openstacksdk's ``create_user``, ``groups``, ...) and
    ``name_limit``, and may override the hooks below."""

    actor = ""
    name_limit = 255

    # -- hooks
    def extra_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        """Create fields beyond name, domain and description."""
        return {}

    def after_create(self, ctx: ActionContext, conn: Any, oid: str, props: Mapping[str, Any]) -> None:
        """What the create does once the object exists, before its grants (a user's memberships)."""

    def extra_live(self, lp: LiveProps, conn: Any, obj: Any) -> None:
        """Live properties beyond name, domain, description and roles."""

    def extra_update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        """Update fields beyond name, description and domain."""
        return {}

    def after_update(
        self,
        ctx: ActionContext,
        conn: Any,
        oid: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> None:
        """What the update does after the object's own fields, before its grants (a user's memberships)."""

    def attributes(self, obj: Any) -> dict[str, Any]:
        return {}

    # -- the proxy's calls
    def _m(self, conn: Any, verb: str) -> Any:
        return getattr(conn.identity, f"{verb}_{self.actor}")

    def _all(self, conn: Any, **query: Any) -> list[Any]:
        return list(getattr(conn.identity, f"{self.actor}s")(**query))

    # -- Driver protocol
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"), limit=self.name_limit)
        domain_id = str(find_domain(ctx, conn, props.get("domain") or "default").id)
        body = {"name": name, "domain_id": domain_id, "description": props.get("description") or ""}
        body.update(self.extra_body(ctx, conn, props))
        wanted = assignments.grants(ctx, conn, props.get("roles"))
        what = f"create {self.actor}"
        find_new = fresh_finder(ctx, what, lambda: self._all(conn, name=name, domain_id=domain_id))
        made = create_once(ctx, what, lambda: self._m(conn, "create")(**body), find_new)
        oid = str(made.id)
        ctx.record_physical_id(oid)
        self.after_create(ctx, conn, oid, props)
        assignments.grant_all(ctx, conn, self.actor, oid, wanted)
        return read_back(self, ctx, oid, props, f"{self.actor} {oid} disappeared right after its create")

    @property
    def read_what(self) -> str:  # type: ignore[override]
        return self.actor

    def get_live(self, conn: Any, physical_id: str) -> Any:
        return self._m(conn, "get")(physical_id)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return self._all(conn)

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(obj.name, limit=self.name_limit)
        lp.ref("domain", obj.domain_id, "domain", find_domain)
        lp.text("description", obj.description or "")
        self.extra_live(lp, conn, obj)
        if lp.wants("roles") and props.get("roles") is not None:
            have = assignments.live_grants(ctx, conn, self.actor, str(obj.id))
            lp.put("roles", assignments.live_roles(ctx, conn, props.get("roles"), have))
        return replace(outcome(obj, self.attributes(obj)), properties=lp.result())

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
            body["name"] = physical_name(ctx, new.get("name"), limit=self.name_limit)
        if "description" in changed:
            body["description"] = new.get("description") or ""
        if "domain" in changed:
            body["domain_id"] = str(find_domain(ctx, conn, new.get("domain") or "default").id)
        body.update(self.extra_update_body(ctx, conn, new, changed))
        if body:
            call(ctx, f"update {self.actor} {physical_id}", self._m(conn, "update"), physical_id, **body)
        self.after_update(ctx, conn, physical_id, old, new, changed)
        if "roles" in changed:
            assignments.update_grants(ctx, conn, self.actor, physical_id, old.get("roles"), new.get("roles"))
        return read_back(
            self, ctx, physical_id, new, f"{self.actor} {physical_id} disappeared during its update"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        # deleting a user or a group ends its memberships and grants with it
        conn = ctx.cloud()
        ignore_missing(ctx, f"delete {self.actor} {physical_id}", self._m(conn, "delete"), physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, f"{self.actor}s", lambda: self._all(conn), self.name_limit)
