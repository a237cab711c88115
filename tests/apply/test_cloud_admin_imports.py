"""The imports the per-family admin-type tests leave out, against the real Keystone, Cinder and Octavia of the
test cloud through the hotc CLI: a UserRoleAssignment and a GroupRoleAssignment (their physical id is the
actor's), a QoSAssociation (the QoS specs' id), an L7 rule (under an imported L7 policy) and a flavor profile,
all made outside hotc; each import is followed by a plan with no change; then hotc manages them (a group's grant
and a rule's value updated in place, a type added to the association, the profile's data) and destroy deletes
what the stack now owns and revokes the grants it took over from the user and group it did not make. Every
check asks openstacksdk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc
from tests.apply.test_cloud_keystone_users import grants_of
from tests.apply.test_cloud_octavia_l7_flavor import _wait_active

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  user: {type: string}
  group: {type: string}
  project: {type: string}
  role: {type: string}
  group_scope: {type: string, default: project}
  qos: {type: string}
  types: {type: comma_delimited_list}
  listener: {type: string}
  path: {type: string, default: /imported}
  topology: {type: string, default: SINGLE}
  profile_name: {type: string}
conditions:
  on_domain: {equals: [{get_param: group_scope}, domain]}
resources:
  ugrant:
    type: OS::Keystone::UserRoleAssignment
    properties:
      user: {get_param: user}
      roles: [{role: {get_param: role}, project: {get_param: project}}]
  ggrant:
    type: OS::Keystone::GroupRoleAssignment
    properties:
      group: {get_param: group}
      roles:
        - if:
            - on_domain
            - {role: {get_param: role}, domain: default}
            - {role: {get_param: role}, project: {get_param: project}}
  assoc:
    type: OS::Cinder::QoSAssociation
    properties: {qos_specs: {get_param: qos}, volume_types: {get_param: types}}
  pol:
    type: OS::Octavia::L7Policy
    properties: {listener: {get_param: listener}, action: REJECT}
  rule:
    type: OS::Octavia::L7Rule
    properties:
      l7policy: {get_resource: pol}
      type: PATH
      compare_type: STARTS_WITH
      value: {get_param: path}
  profile:
    type: OS::Octavia::FlavorProfile
    properties:
      name: {get_param: profile_name}
      provider_name: amphora
      flavor_data: {str_replace: {template: '{"loadbalancer_topology": "T"}', params: {T: {get_param: topology}}}}
"""


def test_role_assignments_association_l7_rule_and_flavor_profile_import(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    ident, bs, lb = cloud.identity, cloud.block_storage, cloud.load_balancer
    made: dict[str, list[Any]] = {"user": [], "group": [], "project": [], "role": [], "qos": [], "type": []}
    made.update({"lb": [], "profile": []})

    def cleanup() -> None:
        for i in made["lb"]:
            lb.delete_load_balancer(i, ignore_missing=True, cascade=True)
        for i in made["profile"]:
            lb.delete_flavor_profile(i, ignore_missing=True)
        for i in made["qos"]:
            try:
                bs.disassociate_all_qos_spec(i)
            except Exception:  # noqa: BLE001 - already gone
                pass
            bs.delete_qos_spec(i, ignore_missing=True, force=True)
        for i in made["type"]:
            bs.delete_type(i, ignore_missing=True)
        for kind in ("user", "group", "role", "project"):
            for i in made[kind]:
                getattr(ident, f"delete_{kind}")(i, ignore_missing=True)

    cloud_tracker.defer("objects made outside hotc, then imported", cleanup)

    # made outside hotc
    user = ident.create_user(name=f"{p}-u", domain_id="default")
    group = ident.create_group(name=f"{p}-g", domain_id="default")
    proj = ident.create_project(name=f"{p}-p", domain_id="default")
    role = ident.create_role(name=f"{p}-r")
    made["user"].append(user.id)
    made["group"].append(group.id)
    made["project"].append(proj.id)
    made["role"].append(role.id)
    ident.assign_project_role_to_user(proj.id, user.id, role.id)
    ident.assign_project_role_to_group(proj.id, group.id, role.id)
    gold, silver = bs.create_type(name=f"{p}-gold"), bs.create_type(name=f"{p}-silver")
    made["type"] += [gold.id, silver.id]
    qos = bs.post("/qos-specs", json={"qos_specs": {"name": f"{p}-q", "read_iops_sec": "7"}}).json()[
        "qos_specs"
    ]
    made["qos"].append(qos["id"])
    bs.associate_qos_spec(qos["id"], gold.id)
    balancer = lb.create_load_balancer(name=f"{p}-lb", vip_subnet_id=cloud_shared.private_subnet_id)
    made["lb"].append(balancer.id)
    _wait_active(cloud, balancer.id)
    listener = lb.create_listener(loadbalancer_id=balancer.id, protocol="HTTP", protocol_port=80)
    _wait_active(cloud, balancer.id)
    pol = lb.create_l7_policy(listener_id=listener.id, action="REJECT")
    _wait_active(cloud, balancer.id)
    rule = lb.create_l7_rule(pol.id, type="PATH", compare_type="STARTS_WITH", rule_value="/imported")
    _wait_active(cloud, balancer.id)
    prof = lb.create_flavor_profile(
        name=f"{p}-prof", provider_name="amphora", flavor_data='{"loadbalancer_topology": "SINGLE"}'
    )
    made["profile"].append(prof.id)

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    params = {"user": user.name, "group": group.id, "project": proj.id, "role": role.name, "qos": qos["id"]}
    params.update({"types": gold.id, "listener": listener.id, "profile_name": prof.name})
    stack = cloud_tracker.name("imp")
    cli = CliStack(
        tmp_path, hotc_cloud_env, stack, [a for k, v in params.items() for a in ("--parameter", f"{k}={v}")]
    )
    mapping = {"ugrant": user.id, "ggrant": group.id, "assoc": qos["id"], "pol": pol.id, "rule": rule.id}
    (tmp_path / "map.json").write_text(json.dumps({**mapping, "profile": prof.id}))
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--file", "map.json", "-t", "t.yaml", *cli.params)
    assert r.returncode == 0, r.stdout + r.stderr
    cli.no_change()
    assert cli.ids() == {**mapping, "profile": prof.id}

    # managed: the group's grant moves to the domain, the association takes a second type, the rule's value and
    # the profile's data change, all in place
    upd = ["--parameter", "group_scope=domain", "--parameter", f"types={gold.id},{silver.id}"]
    upd += ["--parameter", "path=/managed", "--parameter", "topology=ACTIVE_STANDBY"]
    planned = cli.plan(*upd)
    assert {a: c["actions"] for a, c in planned.items()} == {
        "ggrant": ["update"],
        "assoc": ["update"],
        "rule": ["update"],
        "profile": ["update"],
    }
    cli.apply(*upd)
    assert grants_of(cloud, group_id=group.id) == {(role.id, "default")}
    assert {a.id for a in bs.qos_spec_associations(qos["id"])} == {gold.id, silver.id}
    assert lb.get_l7_rule(rule.id, pol.id).rule_value == "/managed"
    assert json.loads(lb.get_flavor_profile(prof.id).flavor_data) == {
        "loadbalancer_topology": "ACTIVE_STANDBY"
    }
    cli.no_change(*upd)

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert grants_of(cloud, user_id=user.id) == set() and grants_of(cloud, group_id=group.id) == set()
    assert ident.find_user(user.id) is not None and ident.find_group(group.id) is not None
    assert (
        list(bs.qos_spec_associations(qos["id"])) == []
    )  # the association is gone; the specs are not its own
    assert lb.find_l7_policy(pol.id) is None and lb.find_flavor_profile(prof.id) is None
