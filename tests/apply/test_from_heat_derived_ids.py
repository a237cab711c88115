"""``hotc import --from-heat`` of the types whose Heat resource keeps no id hotc can read, against a fake Heat API
and the fake SDK (no cloud), through the real drivers: Heat keeps no physical id for a UserRoleAssignment or a
GroupRoleAssignment and a random uuid of its own for a QoSAssociation; hotc finds each from the properties (the
actor the assignment names, the QoS specs the association names, resolved against what is migrated before it),
records the live grants and associations, and the plan right after shows no change."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.apply import apply_wiring
from hotc.cli.common import load_for_command
from hotc.errors import HotcError
from hotc.ops.from_heat import run_from_heat
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.providers.drivers import driver_for
from hotc.state import backend_from_config
from tests.apply.test_from_heat import Obj, Resp
from tests.providers.fakesdk import FakeConnection

MAIN = {
    "heat_template_version": "2018-08-31",
    "parameters": {"who": {"type": "string"}, "team": {"type": "string"}},
    "resources": {
        "proj": {"type": "OS::Keystone::Project", "properties": {"name": "p1"}},
        "reader": {"type": "OS::Keystone::Role", "properties": {"name": "reader"}},
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
        "gold": {"type": "OS::Cinder::VolumeType", "properties": {"name": "gold"}},
        "qos": {
            "type": "OS::Cinder::QoSSpecs",
            "properties": {"name": "q1", "specs": {"read_iops_sec": "100"}},
        },
        "assoc": {
            "type": "OS::Cinder::QoSAssociation",
            "properties": {"qos_specs": {"get_resource": "qos"}, "volume_types": [{"get_resource": "gold"}]},
        },
    },
}


class FakeHeat:
    """Heat's API for one stack made from MAIN, with the physical ids Heat keeps: none for the assignments, a
    uuid of Heat's own for the association."""

    def __init__(self, ids: dict[str, str | None]) -> None:
        self.calls: list[str] = []
        self.stack = Obj(
            "legacy", id="st-1", parameters={"OS::stack_name": "legacy", "who": "alice", "team": "ops"}
        )
        self.tree = {"st-1": [Obj(n, MAIN["resources"][n]["type"], pid) for n, pid in ids.items()]}  # type: ignore[index]

    def find_stack(self, name: str, ignore_missing: bool = True) -> Obj | None:
        return self.stack if name in ("legacy", "st-1") else None

    def get_stack(self, st: Any) -> Obj:
        return self.stack

    def resources(self, stack_id: str) -> list[Obj]:
        return self.tree[stack_id]

    def get(self, path: str) -> Resp:
        self.calls.append(f"GET {path}")
        if path.endswith("/template"):
            return Resp(MAIN)
        if path.endswith("/environment"):
            return Resp({"parameters": {"who": "alice", "team": "ops"}, "parameter_defaults": {},
                         "resource_registry": {"resources": {}}, "event_sinks": [], "encrypted_param_names": []})  # fmt: skip
        if path.endswith("/files"):
            return Resp({})
        raise AssertionError(path)


def heat_made(conn: FakeConnection) -> dict[str, str | None]:
    """What Heat's create of MAIN left in the (fake) cloud, and the physical id Heat keeps for each resource."""
    ident, bs = conn.identity, conn.block_storage
    alice = ident.create_user(name="alice", domain_id="default")
    ops = ident.create_group(name="ops", domain_id="default")
    proj = ident.create_project(name="p1", domain_id="default")
    reader = ident.create_role(name="reader")
    ident.assign_project_role_to_user(proj.id, alice.id, reader.id)
    ident.assign_domain_role_to_group("default", ops.id, reader.id)
    gold = bs.create_type(name="gold")
    qos = bs.post("/qos-specs", json={"qos_specs": {"name": "q1", "read_iops_sec": "100"}}).json()[
        "qos_specs"
    ]
    bs.associate_qos_spec(qos["id"], gold.id)
    return {
        "proj": proj.id,
        "reader": reader.id,
        "grant": None,
        "team_grant": None,
        "gold": gold.id,
        "qos": qos["id"],
        "assoc": "5d2a3c9e-heat-own-uuid",
    }


def migrate(tmp: Path, conn: Any) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    run_from_heat(
        stack="legacy",
        heat_stack="legacy",
        directory=Path("mig"),
        abandon=False,
        backend_url=str(tmp / "state"),
        lock_timeout=0.0,
        out=out,
        err=err,
        wiring=replace(apply_wiring(None), drivers=driver_for, cloud=lambda: conn),
        cwd=tmp,
    )
    return out.getvalue(), err.getvalue()


@pytest.fixture
def conn(monkeypatch: pytest.MonkeyPatch) -> FakeConnection:
    c = FakeConnection()
    c.clock.install(monkeypatch)
    c.seed()
    return c


def test_role_assignments_and_qos_association_are_taken_over_by_their_properties(
    tmp_path: Path, conn: FakeConnection
) -> None:
    ids = heat_made(conn)
    conn.orchestration = FakeHeat(ids)  # type: ignore[attr-defined]
    _out, err = migrate(tmp_path, conn)
    assert "would still change" not in err, err
    st = backend_from_config(str(tmp_path / "state"), tmp_path).read("legacy")[0]
    alice = next(u for u in conn.cloud.all("user") if u["name"] == "alice")
    ops = next(g for g in conn.cloud.all("group") if g["name"] == "ops")
    assert st.resources["grant"].physical_id == alice["id"]
    assert st.resources["team_grant"].physical_id == ops["id"]
    assert st.resources["assoc"].physical_id == ids["qos"]  # the specs' id, not Heat's uuid
    grant = st.resources["grant"].properties
    assert grant["roles"] == [{"role": ids["reader"], "project": ids["proj"]}] and grant["user"] == "alice"
    assert st.resources["assoc"].properties["volume_types"] == [ids["gold"]]

    loaded = load_for_command(
        tmp_path / "mig" / "template.yaml", [tmp_path / "mig" / "environment.yaml"], {}, {}, verb="planned"
    )
    plan = make_plan(build_desired(loaded, "legacy", st.lineage, state=st), st, PlanOptions())
    assert not plan.has_changes, [(c.address, c.action, c.reason_detail) for c in plan.changes]


def test_an_assignment_naming_no_user_writes_nothing(tmp_path: Path, conn: FakeConnection) -> None:
    ids = heat_made(conn)
    alice = next(u for u in conn.cloud.all("user") if u["name"] == "alice")
    conn.identity.delete_user(alice["id"])  # the actor went after Heat made the grant
    conn.orchestration = FakeHeat(ids)  # type: ignore[attr-defined]
    with pytest.raises(
        HotcError, match=r"grant: finding the OS::Keystone::UserRoleAssignment Heat made.*alice"
    ):
        migrate(tmp_path, conn)
    assert not (tmp_path / "mig").exists()
    assert backend_from_config(str(tmp_path / "state"), tmp_path).read("legacy")[0] is None
