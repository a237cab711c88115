"""Keystone look-ups the identity types (and others naming projects, such as volume type access) share."""

from __future__ import annotations

from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import lookup


def find_project(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    """A project by id or unique name."""
    return lookup(ctx, "project", value, conn.identity.get_project, lambda v: conn.identity.projects(name=v))


def find_domain(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    """A domain by id or unique name (``default`` is the default domain's id)."""
    return lookup(ctx, "domain", value, conn.identity.get_domain, lambda v: conn.identity.domains(name=v))


def find_user(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    """A user by id or unique name."""
    return lookup(ctx, "user", value, conn.identity.get_user, lambda v: conn.identity.users(name=v))


def find_group(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    """A group by id or unique name."""
    return lookup(ctx, "group", value, conn.identity.get_group, lambda v: conn.identity.groups(name=v))


def find_role(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    """A role by id or unique name."""
    return lookup(ctx, "role", value, conn.identity.get_role, lambda v: conn.identity.roles(name=v))
