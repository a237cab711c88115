"""OS::Keystone::Project (admin-only under Keystone's default policy). A project carries hotc's stamp as project
tags (``hotc-lineage=…``, ``hotc-address=…``, with the ``/`` and ``,`` Keystone refuses in a tag written ``|``
and ``;``), left out of the ``tags`` a read reports. Deleting a project also deletes the ``default`` security
group Neutron made for it, as Heat does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    TAG_LINEAGE,
    call,
    create_once,
    fresh_finder,
    ignore_missing,
    newest,
    outcome,
    physical_name,
    read_back,
    stamp,
    with_defaults,
)
from hotc.providers.openstack.get_read import GetRead
from hotc.providers.openstack.keystone.common import find_domain, find_project
from hotc.providers.openstack.live import LiveProps, match_items


def stamp_tags(ctx: ActionContext) -> list[str]:
    """The stamp as Keystone project tags (at most 255 characters, no ``/`` nor ``,``)."""
    return [f"{k}={v}".replace("/", "|").replace(",", ";")[:255] for k, v in sorted(stamp(ctx).items())]


def is_stamp_tag(ctx: ActionContext, tag: str) -> bool:
    return tag.startswith((TAG_LINEAGE + "=", TAG_ADDRESS + "=")) or tag in stamp_tags(ctx)


class ProjectDriver(GetRead, ListRead):
    read_what = "project"

    list_what = "projects"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"), limit=64)
        domain_id = str(find_domain(ctx, conn, props.get("domain") or "default").id)
        tags = [str(t) for t in props.get("tags") or []]
        tags += [t for t in stamp_tags(ctx) if t not in tags]
        body: dict[str, Any] = {
            "name": name,
            "domain_id": domain_id,
            "description": props.get("description") or "",
            "is_enabled": props.get("enabled", True) is not False,
            "tags": tags,
        }
        if props.get("parent"):
            body["parent_id"] = str(find_project(ctx, conn, props["parent"]).id)
        find_new = fresh_finder(
            ctx, "create project", lambda: list(conn.identity.projects(name=name, domain_id=domain_id))
        )
        project = create_once(ctx, "create project", lambda: conn.identity.create_project(**body), find_new)
        ctx.record_physical_id(str(project.id))
        return read_back(
            self, ctx, str(project.id), props, f"project {project.id} disappeared right after its create"
        )

    def get_live(self, conn: Any, physical_id: str) -> Any:
        return conn.identity.get_project(physical_id)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.identity.projects(tags=f"{TAG_LINEAGE}={ctx.lineage}"))

    def read_outcome(self, ctx: ActionContext, conn: Any, project: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(project.name, limit=64)
        lp.ref("domain", project.domain_id, "domain", find_domain)
        lp.text("description", project.description or "")
        lp.put("enabled", bool(project.is_enabled))
        # a top-level project's parent is its domain
        parent = None if project.parent_id in (None, "", project.domain_id) else project.parent_id
        lp.ref("parent", parent, "project", find_project)
        live_tags = [str(t) for t in project.tags or [] if not is_stamp_tag(ctx, str(t))]
        # Keystone keeps tags as a set: reported in the template's order when they are the same
        lp.put("tags", match_items(props.get("tags") or [], live_tags, lambda g, t: str(g) == t, lambda t: t))
        attributes = {
            "name": project.name,
            "parent_id": project.parent_id,
            "domain_id": project.domain_id,
            "enabled": bool(project.is_enabled),
            "is_domain": bool(project.is_domain),
        }
        return replace(outcome(project, attributes), properties=lp.result())

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
            body["name"] = physical_name(ctx, new.get("name"), limit=64)
        if "description" in changed:
            body["description"] = new.get("description") or ""
        if "enabled" in changed:
            body["is_enabled"] = new.get("enabled", True) is not False
        if "domain" in changed:
            body["domain_id"] = str(find_domain(ctx, conn, new.get("domain") or "default").id)
        if "tags" in changed:
            tags = [str(t) for t in new.get("tags") or []]
            body["tags"] = tags + [t for t in stamp_tags(ctx) if t not in tags]
        if body:
            call(ctx, f"update project {physical_id}", conn.identity.update_project, physical_id, **body)
        return read_back(self, ctx, physical_id, new, f"project {physical_id} disappeared during its update")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        groups = call(
            ctx,
            f"list the default security group of project {physical_id}",
            lambda: list(conn.network.security_groups(project_id=physical_id, name="default")),
        )
        for group in groups:
            ignore_missing(
                ctx, f"delete security group {group.id}", conn.network.delete_security_group, group.id
            )
        ignore_missing(ctx, f"delete project {physical_id}", conn.identity.delete_project, physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        want = stamp_tags(ctx)
        projects = call(ctx, "list projects", lambda: list(conn.identity.projects(tags=",".join(want))))
        found = newest(p for p in projects if all(t in (p.tags or []) for t in want))
        return None if found is None else str(found.id)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Keystone::Project": ProjectDriver()})
