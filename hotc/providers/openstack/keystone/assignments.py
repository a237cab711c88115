"""Role grants, as Heat's ``KeystoneRoleAssignmentMixin`` makes them: the ``roles`` property of a user, a group,
a UserRoleAssignment or a GroupRoleAssignment is a list of ``{role, project}`` / ``{role, domain}`` grants to
one actor (a user or a group).

A create grants each; an update grants what the new list adds and revokes what it drops (a grant the actor
no longer has is not revoked twice); a delete revokes the grants of the list. A read reports the template's
grants the actor still has, as the template wrote them: a grant revoked outside hotc is drift, a grant made
outside hotc (or by another resource of the stack on the same actor) is not the resource's own, and is never
reported nor revoked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import ProviderError, call, ignore_missing
from hotc.providers.openstack.keystone.common import find_domain, find_project, find_role
from hotc.providers.openstack.live import resolve_id

# (role id, "project" | "domain", scope id)
Grant = tuple[str, str, str]


def _scope(item: Mapping[str, Any]) -> tuple[str, Any]:
    if item.get("project") not in (None, ""):
        return "project", item["project"]
    if item.get("domain") not in (None, ""):
        return "domain", item["domain"]
    raise ProviderError(f"role {item.get('role')}: neither a project nor a domain is given")


def to_grant(ctx: ActionContext, conn: Any, item: Mapping[str, Any]) -> Grant:
    """A ``roles`` item with its role and scope resolved to ids (an error when one names nothing)."""
    kind, value = _scope(item)
    find = find_project if kind == "project" else find_domain
    role = str(find_role(ctx, conn, item.get("role")).id)
    return role, kind, str(find(ctx, conn, value).id)


def grants(ctx: ActionContext, conn: Any, items: Iterable[Mapping[str, Any]] | None) -> list[Grant]:
    out: list[Grant] = []
    for item in items or []:
        g = to_grant(ctx, conn, item)
        if g not in out:
            out.append(g)
    return out


def live_grants(ctx: ActionContext, conn: Any, actor: str, actor_id: str) -> set[Grant]:
    """Every direct grant the actor (``user`` or ``group``) has on a project or a domain."""
    listed = call(
        ctx,
        f"list role assignments of {actor} {actor_id}",
        lambda: list(conn.identity.role_assignments(**{f"{actor}_id": actor_id})),
    )
    out: set[Grant] = set()
    for a in listed:
        role = dict(getattr(a, "role", None) or {}).get("id")
        scope = dict(getattr(a, "scope", None) or {})
        for kind in ("project", "domain"):
            sid = dict(scope.get(kind) or {}).get("id")
            if role and sid:
                out.add((str(role), kind, str(sid)))
    return out


def _call(conn: Any, verb: str, actor: str, actor_id: str, grant: Grant) -> Any:
    role, kind, scope = grant
    if verb == "assign":
        fn = getattr(conn.identity, f"assign_{kind}_role_to_{actor}")
    else:
        fn = getattr(conn.identity, f"unassign_{kind}_role_from_{actor}")
    return fn(scope, actor_id, role)


def grant_all(ctx: ActionContext, conn: Any, actor: str, actor_id: str, wanted: Iterable[Grant]) -> None:
    for g in wanted:
        call(
            ctx,
            f"grant role {g[0]} on {g[1]} {g[2]} to {actor} {actor_id}",
            _call,
            conn,
            "assign",
            actor,
            actor_id,
            g,
        )


def revoke_all(ctx: ActionContext, conn: Any, actor: str, actor_id: str, dropped: Iterable[Grant]) -> None:
    dropped = list(dropped)
    if not dropped:
        return
    have = live_grants(ctx, conn, actor, actor_id)
    for g in dropped:
        if g in have:
            ignore_missing(
                ctx,
                f"revoke role {g[0]} on {g[1]} {g[2]} from {actor} {actor_id}",
                _call,
                conn,
                "unassign",
                actor,
                actor_id,
                g,
            )


def update_grants(
    ctx: ActionContext,
    conn: Any,
    actor: str,
    actor_id: str,
    old: Iterable[Mapping[str, Any]] | None,
    new: Iterable[Mapping[str, Any]] | None,
) -> None:
    """Grant what ``new`` adds to ``old``, revoke what it drops (Heat's ``update_assignment``)."""
    want = grants(ctx, conn, new)
    had = _resolvable(ctx, conn, old)
    grant_all(ctx, conn, actor, actor_id, [g for g in want if g not in had])
    revoke_all(ctx, conn, actor, actor_id, [g for g in had if g not in want])


def _resolvable(ctx: ActionContext, conn: Any, items: Iterable[Mapping[str, Any]] | None) -> list[Grant]:
    """The grants of ``items`` whose role and scope still exist (a deleted project's grants are gone with it)."""
    out: list[Grant] = []
    for item in items or []:
        try:
            g = to_grant(ctx, conn, item)
        except ProviderError:
            continue
        if g not in out:
            out.append(g)
    return out


def revoke_items(
    ctx: ActionContext, conn: Any, actor: str, actor_id: str, items: Iterable[Mapping[str, Any]] | None
) -> None:
    """Revoke the grants of ``items`` the actor still has (Heat's ``delete_assignment``)."""
    revoke_all(ctx, conn, actor, actor_id, _resolvable(ctx, conn, items))


def live_roles(
    ctx: ActionContext, conn: Any, given: Iterable[Mapping[str, Any]] | None, have: set[Grant]
) -> list[Any]:
    """The template's ``roles`` items the actor still has, as the template wrote them (see the module)."""
    out: list[Any] = []
    for item in given or []:
        kind = "project" if item.get("project") not in (None, "") else "domain"
        find = find_project if kind == "project" else find_domain
        role = resolve_id(ctx, conn, "role", item.get("role"), find_role)
        scope = resolve_id(ctx, conn, kind, item.get(kind), find)
        if role is not None and scope is not None and (role, kind, scope) in have:
            out.append(item)
    return out
