"""Keystone drivers offline, through the fake openstacksdk connection: projects (stamped with tags), roles,
users (groups, grants, a password never read back), groups, and user/group role assignments: create, read with
no drift, drift made outside hotc, in-place update, delete, and adoption of what a killed run made."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

PROJECT, ROLE = "OS::Keystone::Project", "OS::Keystone::Role"
USER, GROUP = "OS::Keystone::User", "OS::Keystone::Group"
URA, GRA = "OS::Keystone::UserRoleAssignment", "OS::Keystone::GroupRoleAssignment"


def grants(conn: FakeConnection) -> set[tuple[str, str, str, str]]:
    return {
        (g["kind"], g["scope"], g.get("user") or g.get("group") or "", g["role"])
        for g in conn.cloud.all("grant")
    }


def test_project_create_drift_update_adopt_and_delete(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "proj", PROJECT)
    d = driver(PROJECT)
    props: dict[str, Any] = {"name": "p1", "description": "one", "tags": ["blue"]}
    out = d.create(ctx, props)
    obj = conn.cloud.get("project", out.physical_id)
    assert obj["domain_id"] == "default" and "blue" in obj["tags"]
    assert any(t.startswith("hotc-lineage=") for t in obj["tags"])
    assert drift(PROJECT, props, d.read(ctx, out.physical_id, props)) == []
    obj["description"] = "changed outside"
    obj["tags"].append("red")
    assert drift(PROJECT, props, d.read(ctx, out.physical_id, props)) == ["description", "tags"]
    new = dict(props, name="p2", description="two", enabled=False, tags=["green"])
    d.update(ctx, out.physical_id, props, new, frozenset({"name", "description", "enabled", "tags"}))
    assert (
        obj["name"] == "p2"
        and obj["enabled"] is False
        and "green" in obj["tags"]
        and "blue" not in obj["tags"]
    )
    assert any(t.startswith("hotc-lineage=") for t in obj["tags"])  # the stamp survives a tags update
    assert drift(PROJECT, new, d.read(ctx, out.physical_id, new)) == []
    assert d.find_adoptable(ctx, new) == out.physical_id
    # its default security group goes with it
    conn.network.create_security_group(name="default", project_id=out.physical_id)
    d.delete(ctx, out.physical_id, new)
    assert conn.cloud.find("project", out.physical_id) is None
    assert not [g for g in conn.cloud.all("security_group") if g.get("project_id") == out.physical_id]
    assert d.read(ctx, out.physical_id, new) is None
    d.delete(ctx, out.physical_id, new)  # already gone


def test_project_of_a_killed_create_is_adopted_by_its_tags(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "proj", PROJECT)
    conn.cloud.fail_next("identity.get_project", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        driver(PROJECT).create(ctx, {"name": "p1"})
    (made,) = [p for p in conn.cloud.all("project") if p["name"] == "p1"]
    # the next run (same stack lineage) finds it; another stack does not
    again = ctx_for(conn, "proj", PROJECT, lineage=ctx.lineage)
    assert driver(PROJECT).find_adoptable(again, {"name": "p1"}) == made["id"]
    assert driver(PROJECT).find_adoptable(ctx_for(conn, "proj", PROJECT), {"name": "p1"}) is None


def test_project_parent_is_reported_and_a_name_must_be_unique(conn: FakeConnection) -> None:
    parent = driver(PROJECT).create(ctx_for(conn, "parent", PROJECT), {"name": "top"})
    ctx = ctx_for(conn, "child", PROJECT)
    props = {"name": "child", "parent": "top"}
    out = driver(PROJECT).create(ctx, props)
    assert conn.cloud.get("project", out.physical_id)["parent_id"] == parent.physical_id
    assert drift(PROJECT, props, driver(PROJECT).read(ctx, out.physical_id, props)) == []
    with pytest.raises(ProviderError, match="Duplicate"):
        driver(PROJECT).create(ctx_for(conn, "again", PROJECT), {"name": "child"})


def test_role_create_rename_adopt_by_generated_name_and_delete(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "role", ROLE)
    d = driver(ROLE)
    out = d.create(ctx, {})
    obj = conn.cloud.get("role", out.physical_id)
    assert obj["name"].startswith("hotc-t-role-") and obj["domain_id"] is None
    assert drift(ROLE, {}, d.read(ctx, out.physical_id, {})) == []
    obj["name"] = "renamed"  # a rename of an unnamed role is drift
    assert drift(ROLE, {}, d.read(ctx, out.physical_id, {})) == ["name"]
    d.update(ctx, out.physical_id, {}, {"name": "r2"}, frozenset({"name"}))
    assert obj["name"] == "r2"
    assert d.find_adoptable(ctx, {"name": "r2"}) is None  # a given name is not hotc's to adopt
    d.delete(ctx, out.physical_id, {"name": "r2"})
    assert conn.cloud.find("role", out.physical_id) is None


def test_role_of_a_killed_create_is_adopted_by_its_generated_name(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "role", ROLE)
    conn.cloud.fail_next("identity.get_role", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        driver(ROLE).create(ctx, {})
    (made,) = conn.cloud.all("role")
    assert driver(ROLE).find_adoptable(ctx_for(conn, "role", ROLE), {}) == made["id"]
    assert driver(ROLE).find_adoptable(ctx_for(conn, "other", ROLE), {}) is None
    scoped = driver(ROLE).create(ctx_for(conn, "scoped", ROLE), {"domain": "default"})
    assert conn.cloud.get("role", scoped.physical_id)["domain_id"] == "default"


def test_user_with_groups_and_roles_create_drift_update_and_delete(conn: FakeConnection) -> None:
    proj = driver(PROJECT).create(ctx_for(conn, "proj", PROJECT), {"name": "app"})
    member = driver(ROLE).create(ctx_for(conn, "r1", ROLE), {"name": "member"})
    reader = driver(ROLE).create(ctx_for(conn, "r2", ROLE), {"name": "reader"})
    ops = driver(GROUP).create(ctx_for(conn, "g1", GROUP), {"name": "ops"})
    devs = driver(GROUP).create(ctx_for(conn, "g2", GROUP), {"name": "devs"})
    ctx = ctx_for(conn, "user", USER)
    d = driver(USER)
    props: dict[str, Any] = {
        "name": "alice",
        "email": "a@example.org",
        "password": "s3cret",
        "default_project": "app",
        "groups": ["ops"],
        "roles": [{"role": "member", "project": "app"}, {"role": "reader", "domain": "default"}],
    }
    out = d.create(ctx, props)
    uid = out.physical_id
    user = conn.cloud.get("user", uid)
    assert user["default_project_id"] == proj.physical_id and user["_password"] == "s3cret"
    assert out.attributes["show"].get("password") is None  # never read back
    assert (
        out.attributes["default_project_id"] == proj.physical_id and out.attributes["domain_id"] == "default"
    )
    assert grants(conn) == {
        ("project", proj.physical_id, uid, member.physical_id),
        ("domain", "default", uid, reader.physical_id),
    }
    live = d.read(ctx, uid, props)
    assert drift(USER, props, live) == []
    assert live is not None and live.properties is not None and "password" not in live.properties
    # outside hotc: a grant revoked, the user added to another group, the email changed
    conn.identity.unassign_domain_role_from_user("default", uid, reader.physical_id)
    conn.identity.add_user_to_group(uid, devs.physical_id)
    user["email"] = "b@example.org"
    assert drift(USER, props, d.read(ctx, uid, props)) == ["email", "groups", "roles"]
    # the update puts it back: grants added and removed, groups swapped, password changed
    conn.identity.assign_domain_role_to_user("default", uid, reader.physical_id)
    conn.identity.remove_user_from_group(uid, devs.physical_id)
    new = dict(
        props,
        email="c@example.org",
        password="n3w",
        enabled=False,
        groups=["devs"],
        roles=[{"role": "reader", "project": proj.physical_id}],
    )
    changed = frozenset({"email", "password", "enabled", "groups", "roles"})
    d.update(ctx, uid, props, new, changed)
    assert user["email"] == "c@example.org" and user["_password"] == "n3w" and user["enabled"] is False
    assert [g.id for g in conn.identity.user_groups(uid)] == [devs.physical_id]
    assert grants(conn) == {("project", proj.physical_id, uid, reader.physical_id)}
    assert drift(USER, new, d.read(ctx, uid, new)) == []
    assert ops.physical_id  # (the group itself is untouched)
    d.delete(ctx, uid, new)
    assert conn.cloud.find("user", uid) is None and grants(conn) == set()
    assert d.read(ctx, uid, new) is None


def test_user_grant_of_a_missing_role_fails_and_the_unnamed_user_is_adopted(conn: FakeConnection) -> None:
    driver(PROJECT).create(ctx_for(conn, "proj", PROJECT), {"name": "app"})
    ctx = ctx_for(conn, "user", USER)
    with pytest.raises(ProviderError, match="role 'nope' not found"):
        driver(USER).create(ctx, {"roles": [{"role": "nope", "project": "app"}]})
    assert conn.cloud.all("user") == []  # the roles are resolved before the user is made
    conn.cloud.fail_next("identity.get_user", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        driver(USER).create(ctx, {})
    (made,) = conn.cloud.all("user")
    assert made["name"].startswith("hotc-t-user-")
    assert driver(USER).find_adoptable(ctx_for(conn, "user", USER), {}) == made["id"]
    assert driver(USER).find_adoptable(ctx_for(conn, "user", USER), {"name": "bob"}) is None


def test_group_create_drift_update_adopt_and_delete(conn: FakeConnection) -> None:
    driver(PROJECT).create(ctx_for(conn, "proj", PROJECT), {"name": "app"})
    role = driver(ROLE).create(ctx_for(conn, "r", ROLE), {"name": "member"})
    ctx = ctx_for(conn, "grp", GROUP)
    d = driver(GROUP)
    props: dict[str, Any] = {"description": "first", "roles": [{"role": "member", "project": "app"}]}
    out = d.create(ctx, props)
    gid = out.physical_id
    obj = conn.cloud.get("group", gid)
    assert obj["name"].startswith("hotc-t-grp-") and len(obj["name"]) <= 64
    assert len(grants(conn)) == 1
    assert drift(GROUP, props, d.read(ctx, gid, props)) == []
    obj["description"] = "outside"
    assert drift(GROUP, props, d.read(ctx, gid, props)) == ["description"]
    new = dict(
        props, name="admins", description="second", roles=[{"role": role.physical_id, "domain": "default"}]
    )
    d.update(ctx, gid, props, new, frozenset({"name", "description", "roles"}))
    assert obj["name"] == "admins" and obj["description"] == "second"
    assert grants(conn) == {("domain", "default", gid, role.physical_id)}
    assert drift(GROUP, new, d.read(ctx, gid, new)) == []
    conn.cloud.put("domain", {"id": "d2", "name": "other", "enabled": True})
    with pytest.raises(ProviderError, match="domain_id"):  # Keystone cannot move a group
        d.update(ctx, gid, new, dict(new, domain="other"), frozenset({"domain"}))
    d.delete(ctx, gid, new)
    assert conn.cloud.find("group", gid) is None and grants(conn) == set()
    conn.cloud.fail_next("identity.get_group", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        d.create(ctx, {})
    (made,) = conn.cloud.all("group")
    assert d.find_adoptable(ctx_for(conn, "grp", GROUP), {}) == made["id"]


@pytest.mark.parametrize(("type_name", "actor"), [(URA, "user"), (GRA, "group")])
def test_role_assignment_grant_drift_update_move_and_revoke(
    conn: FakeConnection, type_name: str, actor: str
) -> None:
    proj = driver(PROJECT).create(ctx_for(conn, "proj", PROJECT), {"name": "app"})
    member = driver(ROLE).create(ctx_for(conn, "r1", ROLE), {"name": "member"})
    reader = driver(ROLE).create(ctx_for(conn, "r2", ROLE), {"name": "reader"})
    make = conn.identity.create_user if actor == "user" else conn.identity.create_group
    a1, a2 = make(name="one", domain_id="default"), make(name="two", domain_id="default")
    # a grant made outside hotc is not the resource's: never reported, never revoked
    getattr(conn.identity, f"assign_domain_role_to_{actor}")("default", a1.id, member.physical_id)
    outside = ("domain", "default", a1.id, member.physical_id)
    ctx = ctx_for(conn, "ra", type_name)
    d = driver(type_name)
    props: dict[str, Any] = {actor: "one", "roles": [{"role": "member", "project": "app"}]}
    out = d.create(ctx, props)
    assert out.physical_id == a1.id
    assert grants(conn) == {outside, ("project", proj.physical_id, a1.id, member.physical_id)}
    assert drift(type_name, props, d.read(ctx, a1.id, props)) == []
    revoke = getattr(conn.identity, f"unassign_project_role_from_{actor}")
    revoke(proj.physical_id, a1.id, member.physical_id)
    assert drift(type_name, props, d.read(ctx, a1.id, props)) == ["roles"]
    d.update(ctx, a1.id, props, props, frozenset({"roles"}))  # a refresh's update grants it again
    new = dict(props, roles=[{"role": "reader", "project": "app"}])
    d.update(ctx, a1.id, props, new, frozenset({"roles"}))
    assert grants(conn) == {outside, ("project", proj.physical_id, a1.id, reader.physical_id)}
    # another actor: the grants move to it
    moved = dict(new, **{actor: a2.id})
    out2 = d.update(ctx, a1.id, new, moved, frozenset({actor}))
    assert out2.physical_id == a2.id
    assert grants(conn) == {outside, ("project", proj.physical_id, a2.id, reader.physical_id)}
    assert drift(type_name, moved, d.read(ctx, a2.id, moved)) == []
    assert d.find_adoptable(ctx, moved) is None  # grants are idempotent: a killed create is made again
    d.delete(ctx, a2.id, moved)
    assert grants(conn) == {outside}
    d.delete(ctx, a2.id, moved)  # nothing left to revoke
    # the actor deleted: the resource is gone
    getattr(conn.identity, f"delete_{actor}")(a2.id)
    assert d.read(ctx, a2.id, moved) is None
    d.delete(ctx, a2.id, moved)
