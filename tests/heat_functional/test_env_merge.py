"""Heat's functional test_env_merge (EnvironmentMergingTests): two environment files merged in order
(parameters and resource_registry, a per-resource mapping); the suite's template and environments, given as
``-e env1.yaml -e env2.yaml``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.heat_functional.heat import HeatStack

TEMPLATE = textwrap.dedent("""
    heat_template_version: 2015-04-30
    parameters:
      p0:
        type: string
        default: CORRECT
      p1:
        type: string
        default: INCORRECT
      p2:
        type: string
        default: INCORRECT
    resources:
      r1:
        type: test::R1
      r2:
        type: test::R2
      r3a:
        type: test::R3
      r3b:
        type: test::R3
""")

ENV_1 = textwrap.dedent("""
    parameters:
      p1: CORRECT
      p2: INCORRECT-E1
    resource_registry:
      test::R1: OS::Heat::RandomString
      test::R2: BROKEN
      test::R3: OS::Heat::None
""")

ENV_2 = textwrap.dedent("""
    parameters:
      p2: CORRECT
    resource_registry:
      test::R2: OS::Heat::RandomString
      resources:
        r3b:
          test::R3: OS::Heat::RandomString
""")


def test_server_environment_merging(tmp_path: Path) -> None:
    (tmp_path / "template.yaml").write_text(TEMPLATE)
    (tmp_path / "env1.yaml").write_text(ENV_1)
    (tmp_path / "env2.yaml").write_text(ENV_2)
    stack = HeatStack(tmp_path, "env_merge")
    r = stack.run(
        "apply", "-t", "template.yaml", "-e", "env1.yaml", "-e", "env2.yaml", "env_merge", "--auto-approve"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # test::R2 is no longer BROKEN (env2 maps it): the stack was made
    assert len(stack.list_resources()) == 4
    r = stack.run("state", "pull", "env_merge")
    parameters = json.loads(r.stdout)["parameters"]
    values = {name: p.get("value") if isinstance(p, dict) else p for name, p in parameters.items()}
    assert values["p1"] == "CORRECT" and values["p2"] == "CORRECT", values
    assert values.get("p0", "CORRECT") == "CORRECT"  # its default, when not stored
    # r3b is a RandomString (env2's per-resource mapping), r3a an OS::Heat::None
    rows = {row["address"]: row for row in stack.resource_rows()}
    assert rows["r3b"]["type"] == "test::R3" and rows["r3b"].get("provider_type") == "OS::Heat::RandomString"
    assert rows["r3a"].get("provider_type") == "OS::Heat::None"
