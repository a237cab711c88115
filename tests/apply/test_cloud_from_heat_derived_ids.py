"""``hotc import --from-heat --abandon`` of a Heat stack holding the types whose Heat resource keeps no id hotc
can read (a UserRoleAssignment and a GroupRoleAssignment: none; a QoSAssociation: a uuid of Heat's own), against
the real Heat, Keystone and Cinder of the test cloud: the migration finds each from its properties, the written
files plan with no change, hotc then updates the grants and the association and destroys the stack (revoking
the grants from the user and group it did not make). Every check asks openstacksdk."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apply.cloud_cli import hotc
from tests.apply.test_cloud_keystone_users import grants_of

pytestmark = pytest.mark.cloud


def template(p: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {"who": {"type": "string"}, "team": {"type": "string"}},
        "resources": {
            "proj": {"type": "OS::Keystone::Project", "properties": {"name": f"{p}-proj"}},
            "reader": {"type": "OS::Keystone::Role", "properties": {"name": f"{p}-reader"}},
            "grant": {
                "type": "OS::Keystone::UserRoleAssignment",
                "properties": {
                    "user": {"get_param": "who"},
                    "roles": [{"role": {"get_resource": "reader"}, "project": {"get_resource": "proj"}}],
                },
            },
            "team_grant": {
                "type": "OS::Keystone::GroupRoleAssignment",
                "properties": {
                    "group": {"get_param": "team"},
                    "roles": [{"role": {"get_resource": "reader"}, "domain": "default"}],
                },
            },
            "gold": {"type": "OS::Cinder::VolumeType", "properties": {"name": f"{p}-gold"}},
            "silver": {"type": "OS::Cinder::VolumeType", "properties": {"name": f"{p}-silver"}},
            "qos": {
                "type": "OS::Cinder::QoSSpecs",
                "properties": {"name": f"{p}-qos", "specs": {"read_iops_sec": "100"}},
            },
            "assoc": {
                "type": "OS::Cinder::QoSAssociation",
                "properties": {
                    "qos_specs": {"get_resource": "qos"},
                    "volume_types": [{"get_resource": "gold"}],
                },
            },
        },
    }


def test_from_heat_takes_over_role_assignments_and_a_qos_association(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    ident, bs = cloud.identity, cloud.block_storage
    user = ident.create_user(name=f"{p}-who", domain_id="default")
    group = ident.create_group(name=f"{p}-team", domain_id="default")

    def cleanup() -> None:
        ident.delete_user(user.id, ignore_missing=True)
        ident.delete_group(group.id, ignore_missing=True)
        for r in ident.roles():
            if r.name == f"{p}-reader":
                ident.delete_role(r.id, ignore_missing=True)
        for pr in ident.projects():
            if pr.name == f"{p}-proj":
                ident.delete_project(pr.id, ignore_missing=True)
        for q in bs.qos_specs():
            if q.name == f"{p}-qos":
                bs.disassociate_all_qos_spec(q.id)
                bs.delete_qos_spec(q.id, ignore_missing=True, force=True)
        for t in bs.types():
            if str(t.name).startswith(f"{p}-"):
                bs.delete_type(t.id, ignore_missing=True)

    cloud_tracker.defer("keystone and cinder objects of the migrated stack", cleanup)
    heat = cloud.orchestration
    st = heat.create_stack(
        name=cloud_tracker.name("heat"),
        template=template(p),
        parameters={"who": f"{p}-who", "team": f"{p}-team"},
    )
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=900)
    kept = {r.name: r.physical_resource_id for r in heat.resources(st.id)}
    assert not kept["grant"] and not kept["team_grant"]  # what Heat keeps: no id for an assignment
    assert kept["assoc"] and kept["assoc"] != kept["qos"]  # and a uuid of its own for the association
    assert grants_of(cloud, user_id=user.id) == {(kept["reader"], kept["proj"])}
    assert grants_of(cloud, group_id=group.id) == {(kept["reader"], "default")}

    stack = cloud_tracker.name("hotc")
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--from-heat", st.name, "mig", "--abandon")
    if "enable_stack_abandon" in r.stderr:
        msg = "the test cloud's Heat runs without enable_stack_abandon: re-run tests/cloud/setup.sh"
        if os.environ.get("HOTC_REQUIRE_CLOUD"):
            pytest.fail(msg)
        pytest.skip(msg)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "would still change" not in r.stderr, r.stderr
    assert heat.find_stack(st.id, ignore_missing=True) is None  # Heat forgot it, everything stays
    r = hotc(tmp_path, hotc_cloud_env, "resource", "list", stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    rows = rows.get("resources", rows) if isinstance(rows, dict) else rows
    ids = {row["address"]: row["physical_id"] for row in rows}
    assert ids["grant"] == user.id and ids["team_grant"] == group.id and ids["assoc"] == kept["qos"]

    files = ["-t", "mig/template.yaml", "-e", "mig/environment.yaml"]
    r = hotc(tmp_path, hotc_cloud_env, "plan", *files, stack, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    # hotc manages them now: the user's grant moves to the domain, the association takes the second type
    doc = yaml.safe_load((tmp_path / "mig" / "template.yaml").read_text())
    doc["resources"]["grant"]["properties"]["roles"] = [
        {"role": {"get_resource": "reader"}, "domain": "default"}
    ]
    doc["resources"]["assoc"]["properties"]["volume_types"] = [
        {"get_resource": "gold"},
        {"get_resource": "silver"},
    ]
    (tmp_path / "mig" / "template.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    r = hotc(tmp_path, hotc_cloud_env, "apply", *files, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert grants_of(cloud, user_id=user.id) == {(kept["reader"], "default")}
    assert {a.id for a in bs.qos_spec_associations(kept["qos"])} == {kept["gold"], kept["silver"]}
    r = hotc(tmp_path, hotc_cloud_env, "plan", *files, stack, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert grants_of(cloud, user_id=user.id) == set() and grants_of(cloud, group_id=group.id) == set()
    assert ident.find_user(user.id) is not None and ident.find_group(group.id) is not None  # not the stack's
    assert bs.find_qos_spec(kept["qos"]) is None and bs.find_type(kept["gold"]) is None
    assert ident.find_project(kept["proj"]) is None and ident.find_role(kept["reader"]) is None
