"""OS::Keystone::Project and OS::Keystone::Role against the real Keystone of the test cloud (its admin
credentials: both are admin-only under Keystone's default policy), through the hotc CLI: created; a fresh apply
shows no drift; a change made outside hotc shows as drift; what Heat updates in place (project name, description,
enabled, tags; role name) keeps the same object; what it does not (a project's parent, a role's domain) replaces
it; objects made outside hotc are imported and then managed; destroy deletes. Every check asks openstacksdk."""

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
  description: {type: string, default: first}
  enabled: {type: boolean, default: true}
  parent: {type: string, default: ''}
  role_domain: {type: string, default: ''}
resources:
  proj:
    type: OS::Keystone::Project
    properties:
      name: {list_join: ['-', [{get_param: prefix}, proj, {get_param: suffix}]]}
      description: {get_param: description}
      enabled: {get_param: enabled}
      parent: {get_param: parent}
      tags: [blue, {get_param: description}]
  role:
    type: OS::Keystone::Role
    properties:
      name: {list_join: ['-', [{get_param: prefix}, role, {get_param: suffix}]]}
      domain: {get_param: role_domain}
outputs:
  domain: {value: {get_attr: [proj, domain_id]}}
"""


def test_project_and_role_create_drift_update_replace_import_delete(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("stk")
    projects: list[str] = []
    roles: list[str] = []

    def cleanup() -> None:
        for rid in roles:
            cloud.identity.delete_role(rid, ignore_missing=True)
        for pid in reversed(projects):
            cloud.identity.delete_project(pid, ignore_missing=True)

    cloud_tracker.defer("keystone projects and roles", cleanup)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    params = ["--parameter", f"prefix={p}"]

    cli = CliStack(tmp_path, hotc_cloud_env, stack, params)
    apply, plan, no_change = cli.apply, cli.plan, cli.no_change

    apply()
    [proj] = named(cloud.identity.projects(), f"{p}-proj-")
    [role] = named(cloud.identity.roles(), f"{p}-role-")
    projects.append(proj.id)
    roles.append(role.id)
    assert proj.description == "first" and proj.is_enabled and proj.domain_id == "default"
    assert {"blue", "first"} <= set(proj.tags) and any(t.startswith("hotc-lineage=") for t in proj.tags)
    assert role.domain_id is None
    no_change()
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "domain")
    assert r.returncode == 0 and "default" in r.stdout, r.stdout + r.stderr

    # drift: a description changed outside hotc is planned back, in place
    cloud.identity.update_project(proj.id, description="changed outside")
    planned = plan()
    assert set(planned) == {"proj"} and planned["proj"]["actions"] == ["update"]
    assert planned["proj"]["changed_paths"] == [["description"]]

    # in place: project name, description, enabled, tags; role name
    upd = ["--parameter", "suffix=b", "--parameter", "description=second", "--parameter", "enabled=false"]
    planned = plan(*upd)
    assert {a: c["actions"] for a, c in planned.items()} == {"proj": ["update"], "role": ["update"]}
    apply(*upd)
    after = cloud.identity.get_project(proj.id)
    assert after.name == f"{p}-proj-b" and after.description == "second" and after.is_enabled is False
    assert {"blue", "second"} <= set(after.tags) and "first" not in after.tags
    assert cloud.identity.get_role(role.id).name == f"{p}-role-b"
    no_change(*upd)

    # replaced: a project's parent, a role's domain
    parent = cloud.identity.create_project(name=f"{p}-parent", domain_id="default")
    projects.insert(0, parent.id)
    # (with a new name: the replacement is made before the old one goes, and Keystone keeps project names unique in
    # a domain, so Heat's replace of a project that keeps its name fails the same way)
    rep = [*upd, "--parameter", f"parent={parent.id}", "--parameter", "role_domain=default"]
    rep += ["--parameter", "suffix=c"]
    planned = plan(*rep)
    assert set(planned) == {"proj", "role"}
    for c in planned.values():
        assert "create" in c["actions"] and "delete" in c["actions"]
    apply(*rep)
    assert cloud.identity.find_project(proj.id) is None
    assert cloud.identity.find_role(role.id) is None
    [proj2] = named(cloud.identity.projects(), f"{p}-proj-c")
    [role2] = named(cloud.identity.roles(domain_id="default"), f"{p}-role-c")
    projects.append(proj2.id)
    roles.append(role2.id)
    assert proj2.parent_id == parent.id and role2.domain_id == "default"
    no_change(*rep)

    # made outside hotc, imported into another stack, then managed (and deleted) by it
    op = cloud.identity.create_project(name=f"{p}-iproj", domain_id="default", description="outside")
    orole = cloud.identity.create_role(name=f"{p}-irole")
    projects.append(op.id)
    roles.append(orole.id)
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  ip: {{type: OS::Keystone::Project, properties: {{name: {p}-iproj, description: outside}}}}\n"
        f"  ir: {{type: OS::Keystone::Role, properties: {{name: {p}-irole}}}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({"ip": op.id, "ir": orole.id}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.identity.find_project(op.id) is None and cloud.identity.find_role(orole.id) is None

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.identity.find_project(proj2.id) is None and cloud.identity.find_role(role2.id) is None
