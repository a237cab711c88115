"""The fake identity proxy (Keystone v3): domains (``default`` seeded), projects with tags (Keystone's tag
filter: every tag of a comma-separated ``tags`` query), roles (global or of a domain), users (a password taken
and never shown), groups and memberships, and direct role grants on projects and domains, listed as Keystone's
``/role_assignments`` does. Names are unique per domain (projects, users, groups) or per domain-or-global
(roles), as Keystone keeps them: a second create is a 409. Deleting a user, a group, a project or a role drops
the grants and memberships that name it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from openstack.identity.v3.domain import Domain
from openstack.identity.v3.group import Group, UserGroup
from openstack.identity.v3.project import Project
from openstack.identity.v3.role import Role
from openstack.identity.v3.role_assignment import RoleAssignment
from openstack.identity.v3.user import User

from tests.providers.fakesdk.core import Cloud, Proxy, bad_request, conflict, not_found, oid

CLASSES = {"domain": Domain, "project": Project, "role": Role, "user": User, "group": Group}
# openstacksdk attribute -> Keystone field
FIELDS = {"is_enabled": "enabled", "is_domain": "is_domain"}


class IdentityProxy(Proxy):
    service = "identity"

    def __init__(self, cloud: Cloud) -> None:
        super().__init__(cloud)
        cloud.put("domain", {"id": "default", "name": "Default", "enabled": True, "description": ""})
        cloud.put(
            "project",
            {
                "id": cloud.project_id,
                "name": "admin",
                "domain_id": "default",
                "parent_id": "default",
                "enabled": True,
                "is_domain": False,
                "description": "",
                "tags": [],
            },
        )

    def _res(self, kind: str, obj: Mapping[str, Any]) -> Any:
        return CLASSES[kind].existing(**{k: v for k, v in obj.items() if not k.startswith("_")})

    def _get(self, kind: str, value: Any) -> dict[str, Any]:
        return self.cloud.get(kind, oid(value), f"Could not find {kind}: {oid(value)}.")

    def _body(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return {FIELDS.get(k, k): v for k, v in body.items()}

    def _unique(self, kind: str, name: Any, domain_id: Any, skip: str | None = None) -> None:
        for o in self.cloud.all(kind):
            if o["id"] != skip and o.get("name") == name and o.get("domain_id") == domain_id:
                raise conflict(f"Conflict occurred attempting to store {kind} - Duplicate entry.")

    def _create(self, kind: str, body: Mapping[str, Any], **defaults: Any) -> dict[str, Any]:
        obj = dict(defaults)
        obj.update(self._body(body))
        if not obj.get("name"):
            raise bad_request(f"Invalid input for field 'name': a {kind} needs a name")
        if obj.get("domain_id") is not None:
            self._get("domain", obj["domain_id"])
        self._unique(kind, obj["name"], obj.get("domain_id"))
        obj["id"] = self.cloud.new_id(kind).replace("-", "")
        obj["created_at"] = f"2026-01-01T00:05:{len(self.cloud.table(kind)):02d}Z"
        return self.cloud.put(kind, obj)

    def _update(self, kind: str, value: Any, body: Mapping[str, Any]) -> Any:
        obj = self._get(kind, value)
        fields = self._body(body)
        if "domain_id" in fields and fields["domain_id"] != obj.get("domain_id"):
            raise bad_request(f"Update of `domain_id` of a {kind} is not allowed.")
        if "name" in fields:
            self._unique(kind, fields["name"], obj.get("domain_id"), skip=obj["id"])
        obj.update(fields)
        return self._res(kind, obj)

    def _list(self, kind: str, query: Mapping[str, Any]) -> Iterator[Any]:
        for obj in list(self.cloud.all(kind)):
            if query.get("name") is not None and obj.get("name") != query["name"]:
                continue
            if query.get("domain_id") is not None and obj.get("domain_id") != query["domain_id"]:
                continue
            if query.get("tags") is not None:
                want = str(query["tags"]).split(",")
                if not set(want) <= set(obj.get("tags") or []):
                    continue
            yield self._res(kind, obj)

    def _forget(self, key: str, value: str) -> None:
        for table in ("grant", "membership"):
            for k, g in list(self.cloud.table(table).items()):
                if g.get(key) == value:
                    self.cloud.drop(table, k)

    # -- domains
    def get_domain(self, value: Any) -> Any:
        return self._res("domain", self._get("domain", value))

    def domains(self, **query: Any) -> Iterator[Any]:
        return self._list("domain", query)

    # -- projects
    def create_project(self, **body: Any) -> Any:
        obj = self._create(
            "project", body, enabled=True, is_domain=False, description="", tags=[], domain_id="default"
        )
        obj.setdefault("parent_id", obj["domain_id"])
        if obj.get("parent_id") != obj["domain_id"]:
            self._get("project", obj["parent_id"])
        return self._res("project", obj)

    def get_project(self, value: Any) -> Any:
        return self._res("project", self._get("project", value))

    def projects(self, **query: Any) -> Iterator[Any]:
        return self._list("project", query)

    def update_project(self, value: Any, **body: Any) -> Any:
        return self._update("project", value, body)

    def delete_project(self, value: Any, ignore_missing: bool = True) -> None:
        pid = oid(value)
        if self.cloud.find("project", pid) is None:
            if not ignore_missing:
                raise not_found(f"Could not find project: {pid}.")
            return
        if any(p.get("parent_id") == pid for p in self.cloud.all("project")):
            raise bad_request(f"cannot delete project {pid}: it has children")
        self.cloud.drop("project", pid)
        self._forget("scope", pid)

    # -- roles
    def create_role(self, **body: Any) -> Any:
        return self._res("role", self._create("role", body, domain_id=None))

    def get_role(self, value: Any) -> Any:
        return self._res("role", self._get("role", value))

    def roles(self, **query: Any) -> Iterator[Any]:
        return self._list("role", query)

    def update_role(self, value: Any, **body: Any) -> Any:
        return self._update("role", value, body)

    def delete_role(self, value: Any, ignore_missing: bool = True) -> None:
        rid = oid(value)
        if self.cloud.find("role", rid) is None and not ignore_missing:
            raise not_found(f"Could not find role: {rid}.")
        self.cloud.drop("role", rid)
        self._forget("role", rid)

    # -- users
    def create_user(self, **body: Any) -> Any:
        obj = self._create("user", body, enabled=True, domain_id="default", description="")
        obj["_password"] = obj.pop("password", None)
        obj.setdefault("default_project_id", None)
        obj.setdefault("email", None)
        obj["password_expires_at"] = None
        if obj.get("default_project_id"):
            self._get("project", obj["default_project_id"])
        return self._res("user", obj)

    def get_user(self, value: Any) -> Any:
        return self._res("user", self._get("user", value))

    def users(self, **query: Any) -> Iterator[Any]:
        return self._list("user", query)

    def update_user(self, value: Any, **body: Any) -> Any:
        fields = dict(body)
        password = fields.pop("password", None)
        out = self._update("user", value, fields)
        if password is not None:
            self._get("user", value)["_password"] = password
        return out

    def delete_user(self, value: Any, ignore_missing: bool = True) -> None:
        uid = oid(value)
        if self.cloud.find("user", uid) is None and not ignore_missing:
            raise not_found(f"Could not find user: {uid}.")
        self.cloud.drop("user", uid)
        self._forget("user", uid)

    # -- groups
    def create_group(self, **body: Any) -> Any:
        return self._res("group", self._create("group", body, domain_id="default", description=""))

    def get_group(self, value: Any) -> Any:
        return self._res("group", self._get("group", value))

    def groups(self, **query: Any) -> Iterator[Any]:
        return self._list("group", query)

    def update_group(self, value: Any, **body: Any) -> Any:
        return self._update("group", value, body)

    def delete_group(self, value: Any, ignore_missing: bool = True) -> None:
        gid = oid(value)
        if self.cloud.find("group", gid) is None and not ignore_missing:
            raise not_found(f"Could not find group: {gid}.")
        self.cloud.drop("group", gid)
        self._forget("group", gid)

    def add_user_to_group(self, user: Any, group: Any) -> None:
        uid, gid = self._get("user", user)["id"], self._get("group", group)["id"]
        self.cloud.put("membership", {"id": f"{uid}:{gid}", "user": uid, "group": gid})

    def remove_user_from_group(self, user: Any, group: Any) -> None:
        key = f"{oid(user)}:{oid(group)}"
        if self.cloud.find("membership", key) is None:
            raise not_found(f"{oid(user)} is not a member of group {oid(group)}")
        self.cloud.drop("membership", key)

    def user_groups(self, user: Any) -> Iterator[Any]:
        uid = self._get("user", user)["id"]
        for m in list(self.cloud.all("membership")):
            if m["user"] == uid:
                yield UserGroup.existing(**{k: v for k, v in self._get("group", m["group"]).items()})

    # -- grants
    def _grant(self, kind: str, scope: Any, actor: str, actor_id: Any, role: Any) -> dict[str, Any]:
        sid = self._get(kind, scope)["id"]
        aid = self._get(actor, actor_id)["id"]
        rid = self._get("role", role)["id"]
        return {
            "id": f"{kind}:{sid}:{actor}:{aid}:{rid}",
            "kind": kind,
            "scope": sid,
            actor: aid,
            "role": rid,
        }

    def _assign(self, kind: str, scope: Any, actor: str, actor_id: Any, role: Any) -> None:
        self.cloud.put("grant", self._grant(kind, scope, actor, actor_id, role))

    def _unassign(self, kind: str, scope: Any, actor: str, actor_id: Any, role: Any) -> None:
        g = self._grant(kind, scope, actor, actor_id, role)
        if self.cloud.find("grant", g["id"]) is None:
            raise not_found(f"Could not find role assignment with role: {g['role']}")
        self.cloud.drop("grant", g["id"])

    def assign_project_role_to_user(
        self, project: Any, user: Any, role: Any, *, inherited: bool = False
    ) -> None:
        self._assign("project", project, "user", user, role)

    def assign_domain_role_to_user(
        self, domain: Any, user: Any, role: Any, *, inherited: bool = False
    ) -> None:
        self._assign("domain", domain, "user", user, role)

    def assign_project_role_to_group(
        self, project: Any, group: Any, role: Any, *, inherited: bool = False
    ) -> None:
        self._assign("project", project, "group", group, role)

    def assign_domain_role_to_group(
        self, domain: Any, group: Any, role: Any, *, inherited: bool = False
    ) -> None:
        self._assign("domain", domain, "group", group, role)

    def unassign_project_role_from_user(
        self, project: Any, user: Any, role: Any, *, inherited: bool = False
    ) -> None:
        self._unassign("project", project, "user", user, role)

    def unassign_domain_role_from_user(
        self, domain: Any, user: Any, role: Any, *, inherited: bool = False
    ) -> None:
        self._unassign("domain", domain, "user", user, role)

    def unassign_project_role_from_group(
        self, project: Any, group: Any, role: Any, *, inherited: bool = False
    ) -> None:
        self._unassign("project", project, "group", group, role)

    def unassign_domain_role_from_group(
        self, domain: Any, group: Any, role: Any, *, inherited: bool = False
    ) -> None:
        self._unassign("domain", domain, "group", group, role)

    def role_assignments(self, **query: Any) -> Iterator[Any]:
        for g in list(self.cloud.all("grant")):
            if query.get("user_id") is not None and g.get("user") != query["user_id"]:
                continue
            if query.get("group_id") is not None and g.get("group") != query["group_id"]:
                continue
            actor = {"user": {"id": g["user"]}} if "user" in g else {"group": {"id": g["group"]}}
            yield RoleAssignment.existing(
                role={"id": g["role"]}, scope={g["kind"]: {"id": g["scope"]}}, **actor
            )
