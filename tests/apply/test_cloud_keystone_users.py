"""OS::Keystone::User, Group, UserRoleAssignment and GroupRoleAssignment against the real Keystone of the test
cloud (admin credentials: all are admin-only under Keystone's default policy), through the hotc CLI: created
with memberships and grants; a fresh apply shows no drift; a grant revoked and an email changed outside hotc
show as drift and are planned back; every property is updated in place (Heat's schemas allow it: nothing of
these types is replaced); a user and a group made outside hotc are imported, then managed and deleted; destroy
deletes what the stack made and revokes the grants it made on what it did not. Every check asks openstacksdk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc, named

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  suffix: {type: string, default: ''}
  email: {type: string, default: first@example.org}
  password: {type: string, hidden: true, default: Pa55-first}
  role: {type: string, default: member}
conditions:
  use_reader: {equals: [{get_param: role}, reader]}
resources:
  proj:
    type: OS::Keystone::Project
    properties:
      name: {list_join: ['-', [{get_param: prefix}, proj]]}
  member:
    type: OS::Keystone::Role
    properties:
      name: {list_join: ['-', [{get_param: prefix}, member]]}
  reader:
    type: OS::Keystone::Role
    properties:
      name: {list_join: ['-', [{get_param: prefix}, reader]]}
  grp:
    type: OS::Keystone::Group
    properties:
      name: {list_join: ['-', [{get_param: prefix}, grp, {get_param: suffix}]]}
      description: {get_param: email}
      roles:
        - {role: {get_resource: reader}, domain: default}
  user:
    type: OS::Keystone::User
    properties:
      name: {list_join: ['-', [{get_param: prefix}, user, {get_param: suffix}]]}
      email: {get_param: email}
      password: {get_param: password}
      default_project: {get_resource: proj}
      groups: [{get_resource: grp}]
      roles:
        - role: {if: [use_reader, {get_resource: reader}, {get_resource: member}]}
          project: {get_resource: proj}
  outside_user_roles:
    type: OS::Keystone::UserRoleAssignment
    properties:
      user: {list_join: ['-', [{get_param: prefix}, outside]]}
      roles:
        - {role: {get_resource: member}, project: {get_resource: proj}}
  outside_group_roles:
    type: OS::Keystone::GroupRoleAssignment
    properties:
      group: {list_join: ['-', [{get_param: prefix}, outside-grp]]}
      roles:
        - {role: {get_resource: reader}, project: {get_resource: proj}}
    depends_on: [member]
outputs:
  default_project: {value: {get_attr: [user, default_project_id]}}
"""


def grants_of(cloud: Any, **who: str) -> set[tuple[str, str]]:
    out = set()
    for a in cloud.identity.role_assignments(**who):
        scope = a.scope or {}
        where = (scope.get("project") or scope.get("domain") or {}).get("id")
        out.add((a.role["id"], where))
    return out


def test_users_groups_and_role_assignments(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("stk")
    made: dict[str, list[str]] = {"user": [], "group": [], "role": [], "project": []}

    def cleanup() -> None:
        for uid in made["user"]:
            cloud.identity.delete_user(uid, ignore_missing=True)
        for gid in made["group"]:
            cloud.identity.delete_group(gid, ignore_missing=True)
        for rid in made["role"]:
            cloud.identity.delete_role(rid, ignore_missing=True)
        for pid in made["project"]:
            cloud.identity.delete_project(pid, ignore_missing=True)

    cloud_tracker.defer("keystone users, groups, roles, projects", cleanup)
    outside = cloud.identity.create_user(name=f"{p}-outside", domain_id="default")
    outside_grp = cloud.identity.create_group(name=f"{p}-outside-grp", domain_id="default")
    made["user"].append(outside.id)
    made["group"].append(outside_grp.id)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    params = ["--parameter", f"prefix={p}"]

    cli = CliStack(tmp_path, hotc_cloud_env, stack, params)
    apply, plan = cli.apply, cli.plan

    apply()
    [proj] = named(cloud.identity.projects(), f"{p}-proj")
    [member] = named(cloud.identity.roles(), f"{p}-member")
    [reader] = named(cloud.identity.roles(), f"{p}-reader")
    [grp] = named(cloud.identity.groups(), f"{p}-grp-")
    [user] = named(cloud.identity.users(), f"{p}-user-")
    made["user"].append(user.id)
    made["group"].append(grp.id)
    made["role"] += [member.id, reader.id]
    made["project"].append(proj.id)
    assert user.email == "first@example.org" and user.default_project_id == proj.id
    assert [g.id for g in cloud.identity.user_groups(user.id)] == [grp.id]
    assert grants_of(cloud, user_id=user.id) == {(member.id, proj.id)}
    assert grants_of(cloud, group_id=grp.id) == {(reader.id, "default")}
    assert grants_of(cloud, user_id=outside.id) == {(member.id, proj.id)}
    assert grants_of(cloud, group_id=outside_grp.id) == {(reader.id, proj.id)}
    assert plan() == {}
    # the user's attributes derive from its hidden password: sensitive, shown only when asked
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "default_project")
    assert r.returncode == 1 and "sensitive" in r.stderr, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "default_project", "--show-sensitive")
    assert r.returncode == 0 and proj.id in r.stdout, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "show", stack)
    assert r.returncode == 0 and "Pa55-first" not in r.stdout + r.stderr

    # drift: a grant revoked and an email changed outside hotc
    cloud.identity.unassign_project_role_from_user(proj.id, outside.id, member.id)
    cloud.identity.update_user(user.id, email="hand@example.org")
    planned = plan()
    assert {a: c["actions"] for a, c in planned.items()} == {
        "outside_user_roles": ["update"],
        "user": ["update"],
    }
    assert planned["user"]["changed_paths"] == [["email"]]
    apply("--refresh")
    assert grants_of(cloud, user_id=outside.id) == {(member.id, proj.id)}
    assert cloud.identity.get_user(user.id).email == "first@example.org"

    # in place: names, email, password, a grant's role swapped, a membership dropped
    upd = ["--parameter", "suffix=b", "--parameter", "email=second@example.org"]
    upd += ["--parameter", "password=Pa55-second", "--parameter", "role=reader"]
    planned = plan(*upd)
    assert {a: c["actions"] for a, c in planned.items()} == {"grp": ["update"], "user": ["update"]}
    apply(*upd)
    after = cloud.identity.get_user(user.id)
    assert after.name == f"{p}-user-b" and after.email == "second@example.org"
    assert cloud.identity.get_group(grp.id).name == f"{p}-grp-b"
    assert grants_of(cloud, user_id=user.id) == {(reader.id, proj.id)}
    assert plan(*upd) == {}

    # made outside hotc, imported into another stack, then managed and deleted by it
    iu = cloud.identity.create_user(name=f"{p}-iuser", domain_id="default", email="i@example.org")
    ig = cloud.identity.create_group(name=f"{p}-igrp", domain_id="default", description="outside")
    made["user"].append(iu.id)
    made["group"].append(ig.id)
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  iu: {{type: OS::Keystone::User, properties: {{name: {p}-iuser, email: i@example.org}}}}\n"
        f"  ig: {{type: OS::Keystone::Group, properties: {{name: {p}-igrp, description: outside}}}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({"iu": iu.id, "ig": ig.id}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.identity.find_user(iu.id) is None and cloud.identity.find_group(ig.id) is None

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.identity.find_user(user.id) is None and cloud.identity.find_group(grp.id) is None
    # the users and groups the stack did not make are kept, without the stack's grants
    assert cloud.identity.find_user(outside.id) is not None
    assert grants_of(cloud, user_id=outside.id) == set()
    assert grants_of(cloud, group_id=outside_grp.id) == set()
