"""``hotc import`` is held to the policy: the imported objects are the changes a rule looks at (an import is a
``create`` of its type), and a broken deny rule records nothing."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

from hotc.cli.apply import apply_wiring
from hotc.ops.import_ import run_import
from hotc.ops.plan import Policy
from hotc.state import backend_from_config
from tests.apply.test_adopt import existing, world
from tests.apply.test_import_cmd import TEMPLATE


def _import(tmp: Path, policy: Policy) -> tuple[int, str]:
    from hotc.providers.drivers import driver_for

    cloud, fake = world()
    existing(cloud, "n-1", "OS::Neutron::Net", name="app-net")
    (tmp / "app.yaml").write_text(TEMPLATE)
    err = io.StringIO()
    code = run_import(
        stack="app",
        requests=[("net", "n-1")],
        template=tmp / "app.yaml",
        envs=[],
        params={},
        pfiles={},
        backend_url=str(tmp / "state"),
        lock_timeout=0.0,
        out=io.StringIO(),
        err=err,
        wiring=replace(apply_wiring(None), drivers=lambda t: fake(t) or driver_for(t), cloud=lambda: None),
        cwd=tmp,
        policy=policy,
    )
    return code, err.getvalue()


def _state(tmp: Path) -> Any:
    return backend_from_config(str(tmp / "state"), tmp).read("app")[0]


def test_a_deny_rule_refuses_the_import_and_records_nothing(tmp_path: Path) -> None:
    code, err = _import(tmp_path, Policy(deny=("create:OS::Neutron::*",)))
    assert code == 3
    assert "deny rule create:OS::Neutron::* (from --deny) matches net (OS::Neutron::Net)" in err
    assert "nothing was imported" in err
    assert _state(tmp_path) is None


def test_only_the_imported_objects_are_held_to_the_policy(tmp_path: Path) -> None:
    # the template's subnet and RandomString would be created by the next apply, not by this import
    code, err = _import(tmp_path, Policy(deny=("create:OS::Neutron::Subnet", "create:OS::Heat::*")))
    assert code == 0, err
    assert set(_state(tmp_path).resources) == {"net"}
