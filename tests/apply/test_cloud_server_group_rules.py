"""OS::Nova::ServerGroup's ``rules`` against the real Nova of the test cloud (one fake compute host), through the
hotc CLI and beside Heat 27 on the same template: an anti-affinity group with ``max_server_per_host: 2`` holds
two servers on the test cloud's one compute host (anti-affinity alone allows one a host); Nova shows the
policy and the rule as Heat's group has them; a fresh plan shows no drift; a new rule value replaces the group
and its members (neither is updated in place, as in Heat's schema); destroy deletes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apply.cloud_cli import CliStack, hotc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  per_host: {type: number, default: 2}
resources:
  sg:
    type: OS::Nova::ServerGroup
    properties:
      name: {list_join: ['-', [{get_param: prefix}, sg]]}
      policies: [anti-affinity]
      rules: {max_server_per_host: {get_param: per_host}}
  vm:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Nova::Server
        properties:
          name: {list_join: ['-', [{get_param: prefix}, vm, '%index%']]}
          image: hotc-tiny
          flavor: m1.tiny
          networks: [{network: hotc-private}]
          scheduler_hints: {group: {get_resource: sg}}
"""


def group_of(cloud: Any, name: str) -> Any:
    [g] = [g for g in cloud.compute.server_groups(all_projects=True) if g.name == name]
    return g


def test_anti_affinity_rules_as_in_heat(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    heat = cloud.orchestration
    tpl = yaml.safe_load(TEMPLATE)
    tpl["heat_template_version"] = "2018-08-31"  # (YAML reads the version as a date)
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=tpl, parameters={"prefix": f"{p}h"})
    cloud_tracker.track(st)

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    stack = cloud_tracker.name("hotc")
    cli = CliStack(tmp_path, hotc_cloud_env, stack, ["--parameter", f"prefix={p}o"])
    cloud_tracker.defer(
        "hotc stack", lambda: hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    )
    cli.apply()
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=900)

    ours, theirs = group_of(cloud, f"{p}o-sg"), group_of(cloud, f"{p}h-sg")
    assert (
        (ours.policy, ours.rules)
        == (theirs.policy, theirs.rules)
        == ("anti-affinity", {"max_server_per_host": 2})
    )
    ids = cli.ids()
    assert set(ours.member_ids) == {ids["vm[0]"], ids["vm[1]"]} and len(theirs.member_ids) == 2
    cli.no_change()

    # another rule value: the group is replaced, and its members with it (scheduler_hints name the old group)
    planned = cli.plan("--parameter", "per_host=3")
    for a in ("sg", "vm[0]", "vm[1]"):
        assert "create" in planned[a]["actions"] and "delete" in planned[a]["actions"], planned[a]
    cli.apply("--parameter", "per_host=3")
    again = group_of(cloud, f"{p}o-sg")
    assert again.id != ours.id and again.rules == {"max_server_per_host": 3}
    new = cli.ids()
    assert set(again.member_ids) == {new["vm[0]"], new["vm[1]"]}
    assert cloud.compute.find_server_group(ours.id) is None
    cli.no_change("--parameter", "per_host=3")

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.compute.find_server_group(again.id) is None
