"""OS::Keystone::* resource types (service ``identity``; Keystone's default policy makes them admin-only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import PropSchema, ResourceType
from hotc.providers.schemas._dsl import attrs, boolean, custom, list_, map_, string
from hotc.providers.schemas._rules import known

SERVICE = "identity"

PROJECT = ResourceType(
    name="OS::Keystone::Project",
    properties={
        "name": string(update=True),
        "domain": string(default="default", update=True, constraints=(custom("keystone.domain"),)),
        "description": string(default="", update=True),
        "enabled": boolean(default=True, update=True),
        "parent": string(constraints=(custom("keystone.project"),)),
        "tags": list_(default=[], update=True),
    },
    attributes=attrs(
        name="string", parent_id="string", domain_id="string", enabled="boolean", is_domain="boolean"
    ),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.keystone.project.KeystoneProject",
)

ROLE = ResourceType(
    name="OS::Keystone::Role",
    properties={
        "name": string(update=True),
        "domain": string(constraints=(custom("keystone.domain"),)),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.keystone.role.KeystoneRole",
)


def _roles() -> PropSchema:
    """``roles`` of Heat's KeystoneRoleAssignmentMixin: role grants on a project or a domain."""
    return list_(
        map_(
            {
                "role": string(required=True, constraints=(custom("keystone.role"),)),
                "project": string(constraints=(custom("keystone.project"),)),
                "domain": string(constraints=(custom("keystone.domain"),)),
            }
        ),
        update=True,
        set_like=True,
    )


def roles_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``KeystoneRoleAssignmentMixin.validate_assignment_properties``: each role is granted on a project
    or on a domain, never both, never neither."""
    out: list[tuple[str, str]] = []
    for i, item in enumerate(props.get("roles") or []):
        if not isinstance(item, Mapping) or not known(item):
            continue
        project, domain = item.get("project"), item.get("domain")
        if not known(project, domain):
            continue
        if project is not None and domain is not None:
            out.append(
                (f"roles.{i}", "Cannot define the following properties at the same time: project, domain")
            )
        elif project is None and domain is None:
            out.append(
                (f"roles.{i}", f"Either project or domain must be specified for role {item.get('role')}")
            )
    return out


USER = ResourceType(
    name="OS::Keystone::User",
    properties={
        "name": string(update=True),
        "domain": string(default="default", update=True, constraints=(custom("keystone.domain"),)),
        "description": string(default="", update=True),
        "enabled": boolean(default=True, update=True),
        "email": string(update=True),
        "password": string(update=True),
        "default_project": string(update=True, constraints=(custom("keystone.project"),)),
        "groups": list_(string(constraints=(custom("keystone.group"),)), update=True, set_like=True),
        "roles": _roles(),
    },
    attributes=attrs(
        name="string",
        default_project_id="string",
        domain_id="string",
        enabled="boolean",
        password_expires_at="string",
    ),
    validators=(roles_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.keystone.user.KeystoneUser",
)

GROUP = ResourceType(
    name="OS::Keystone::Group",
    properties={
        "name": string(update=True),
        "domain": string(default="default", update=True, constraints=(custom("keystone.domain"),)),
        "description": string(default="", update=True),
        "roles": _roles(),
    },
    attributes=attrs(),
    validators=(roles_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.keystone.group.KeystoneGroup",
)

USER_ROLE_ASSIGNMENT = ResourceType(
    name="OS::Keystone::UserRoleAssignment",
    properties={
        "user": string(required=True, update=True, constraints=(custom("keystone.user"),)),
        "roles": _roles(),
    },
    attributes=attrs(),
    validators=(roles_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.keystone.role_assignments.KeystoneUserRoleAssignment",
)

GROUP_ROLE_ASSIGNMENT = ResourceType(
    name="OS::Keystone::GroupRoleAssignment",
    properties={
        "group": string(required=True, update=True, constraints=(custom("keystone.group"),)),
        "roles": _roles(),
    },
    attributes=attrs(),
    validators=(roles_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.keystone.role_assignments.KeystoneGroupRoleAssignment",
)

TYPES = (PROJECT, ROLE, USER, GROUP, USER_ROLE_ASSIGNMENT, GROUP_ROLE_ASSIGNMENT)
