"""``hotc import --from-heat`` against a fake Heat API and fake drivers (no cloud): the files written, the state
built (nested stack, group members, RandomString values from Heat, hidden parameters), the plan right after
showing no change, the abandon asked only once everything is written, and every refusal writing nothing."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from hotc.apply.from_heat import heat_path, local_layout
from hotc.cli.apply import apply_wiring
from hotc.errors import HotcError
from hotc.ops.from_heat import run_from_heat
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.state import backend_from_config
from tests.apply.test_adopt import existing, world

URL = "file:///home/me/app/nested/app.yaml"
MAIN = {
    "heat_template_version": "2018-08-31",
    "parameters": {"pw": {"type": "string", "hidden": True}, "label": {"type": "string", "default": "x"}},
    "resources": {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": {"get_param": "label"}}},
        "app": {"type": URL, "properties": {"network": {"get_resource": "net"}}},
        "grp": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 2,
                "resource_def": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
            },
        },
        "val": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "pw"}}},
    },
    "outputs": {
        "sub": {"value": {"get_attr": ["app", "sub_id"]}},
        "first": {"value": {"get_attr": ["grp", "resource.0", "value"]}},
    },
}
NESTED = """heat_template_version: 2018-08-31
parameters:
  network: {type: string}
resources:
  sub:
    type: OS::Neutron::Subnet
    properties: {network: {get_param: network}, cidr: 10.1.0.0/24}
outputs:
  sub_id: {value: {get_resource: sub}}
"""


@dataclass
class Obj:
    name: str
    resource_type: str = ""
    physical_resource_id: str | None = None
    links: list[dict[str, str]] = field(default_factory=list)
    id: str = ""
    status: str = "CREATE_COMPLETE"
    parameters: dict[str, Any] = field(default_factory=dict)


class Resp:
    def __init__(self, data: Any) -> None:
        self.data, self.text = data, json.dumps(data)

    def raise_for_status(self) -> None:
        return None

    def json(self) -> Any:
        return self.data


class FakeOrchestration:
    def __init__(self, abandon_supported: bool = True) -> None:
        self.calls: list[str] = []
        self.abandon_supported = abandon_supported
        self.stack: Obj | None = Obj(
            "webapp", id="st-1", parameters={"OS::stack_name": "webapp", "pw": "******", "label": "lab"}
        )
        nested = [{"rel": "nested", "href": "x"}]
        self.tree: dict[str, list[Obj]] = {
            "st-1": [
                Obj("net", "OS::Neutron::Net", "n-1"),
                Obj("app", URL, "st-app", nested),
                Obj("grp", "OS::Heat::ResourceGroup", "st-grp", nested),
                Obj("val", "OS::Heat::Value", "val-1"),
            ],
            "st-app": [Obj("sub", "OS::Neutron::Subnet", "s-1")],
            "st-grp": [
                Obj("0", "OS::Heat::RandomString", "rs-0"),
                Obj("1", "OS::Heat::RandomString", "rs-1"),
            ],
        }

    def find_stack(self, name: str, ignore_missing: bool = True) -> Obj | None:
        return self.stack if self.stack is not None and name in ("webapp", "st-1") else None

    def get_stack(self, st: Any) -> Obj:
        assert self.stack is not None
        return self.stack

    def resources(self, stack_id: str) -> list[Obj]:
        return self.tree[stack_id]

    def get(self, path: str) -> Resp:
        self.calls.append(f"GET {path}")
        if path.endswith("/template"):
            return Resp(MAIN)
        if path.endswith("/environment"):
            return Resp(
                {
                    "parameters": {"pw": "******", "label": "lab"},
                    "parameter_defaults": {},
                    "resource_registry": {"resources": {}, URL: URL},
                    "event_sinks": [],
                    "encrypted_param_names": [],
                }
            )
        if path.endswith("/files"):
            return Resp({URL: NESTED})
        if path == "/stacks/st-grp":
            return Resp({"stack": {"stack_name": "webapp-grp-abc"}})
        if "/resources/" in path:
            name = path.rsplit("/", 1)[1]
            return Resp({"resource": {"attributes": {"value": f"heat-value-{name}"}}})
        raise AssertionError(path)

    def export_stack(self, st: Any) -> dict[str, Any]:
        self.calls.append("export")
        if not self.abandon_supported:
            raise RuntimeError("BadRequestException: 400: Stack Abandon is not supported.")
        return {"environment": {"parameters": {"pw": "the-password", "label": "lab"}}}

    def abandon_stack(self, st: Any) -> dict[str, Any]:
        self.calls.append("abandon")
        self.stack = None
        return {}


class FakeConn:
    def __init__(self, **kw: Any) -> None:
        self.orchestration = FakeOrchestration(**kw)


def migrate(
    tmp: Path, conn: FakeConn, *, abandon: bool, params: dict[str, str] | None = None
) -> tuple[str, str]:
    from hotc.providers.drivers import driver_for

    cloud, fake = world()
    existing(cloud, "n-1", "OS::Neutron::Net", name="lab")
    existing(cloud, "s-1", "OS::Neutron::Subnet", network="n-1", cidr="10.1.0.0/24")
    out, err = io.StringIO(), io.StringIO()
    run_from_heat(
        stack="web",
        heat_stack="webapp",
        directory=Path("mig"),
        abandon=abandon,
        backend_url=str(tmp / "state"),
        lock_timeout=0.0,
        out=out,
        err=err,
        wiring=replace(apply_wiring(None), drivers=lambda t: fake(t) or driver_for(t), cloud=lambda: conn),
        params=params,
        cwd=tmp,
    )
    return out.getvalue(), err.getvalue()


def read_state(tmp: Path) -> Any:
    return backend_from_config(str(tmp / "state"), tmp).read("web")[0]


def test_migration_with_abandon(tmp_path: Path) -> None:
    conn = FakeConn()
    out, err = migrate(tmp_path, conn, abandon=True)
    files = sorted(str(p.relative_to(tmp_path / "mig")) for p in (tmp_path / "mig").rglob("*") if p.is_file())
    assert files == ["app.yaml", "environment.yaml", "template.yaml"]
    main = (tmp_path / "mig" / "template.yaml").read_text()
    assert "type: app.yaml" in main and "file://" not in main
    env = (tmp_path / "mig" / "environment.yaml").read_text()
    assert "the-password" not in env and "******" not in env and "masks the hidden parameter(s) pw" in env
    assert "file://" not in env
    st = read_state(tmp_path)
    assert set(st.resources) == {"net", "app.sub", "grp[0]", "grp[1]", "val"}
    assert (
        st.resources["app.sub"].physical_id == "s-1"
        and st.resources["app.sub"].properties["network"] == "n-1"
    )
    assert st.resources["grp[1]"].attributes["value"] == "heat-value-1"  # Heat's value, not a new one
    assert st.outputs["first"].value == "heat-value-0" and st.outputs["sub"].value == "s-1"
    # the hidden value Heat's export gave is in the state (digest + ciphertext), never in clear on disk
    assert st.parameters["pw"].hidden
    stored = [p.read_bytes() for p in (tmp_path / "state").rglob("*") if p.is_file()]
    assert stored and not any(b"the-password" in data for data in stored)
    assert not any(b"the-password" in p.read_bytes() for p in (tmp_path / "mig").rglob("*") if p.is_file())
    assert "would still change" not in err
    # the abandon comes last, after everything was written
    assert conn.orchestration.calls[-1] == "abandon" and "Heat abandoned stack 'webapp'" in out
    from hotc.cli.common import load_for_command

    loaded = load_for_command(
        tmp_path / "mig" / "template.yaml",
        [tmp_path / "mig" / "environment.yaml"],
        {"pw": "the-password"},
        {},
        verb="planned",
    )
    plan = make_plan(build_desired(loaded, "web", st.lineage, state=st), st, PlanOptions())
    assert not plan.has_changes, [(c.address, c.action, c.reason_detail) for c in plan.changes]


def test_without_abandon_both_tools_claim_the_resources(tmp_path: Path) -> None:
    conn = FakeConn()
    _out, err = migrate(tmp_path, conn, abandon=False, params={"pw": "the-password"})
    assert "BOTH Heat and hotc now claim" in err
    assert "abandon" not in conn.orchestration.calls and "export" not in conn.orchestration.calls
    assert read_state(tmp_path).resources["val"].properties == {"value": "the-password"}


@pytest.mark.parametrize(
    ("kw", "abandon", "params", "message"),
    [
        ({"abandon_supported": False}, True, None, "enable_stack_abandon"),
        ({}, False, None, "give them with --parameter"),
        ({}, False, {"label": "other"}, "only hidden parameters Heat masks"),
    ],
)
def test_refusals_write_nothing(
    tmp_path: Path, kw: dict[str, Any], abandon: bool, params: dict[str, str] | None, message: str
) -> None:
    conn = FakeConn(**kw)
    with pytest.raises(HotcError, match=message):
        migrate(tmp_path, conn, abandon=abandon, params=params)
    assert not (tmp_path / "mig").exists() and read_state(tmp_path) is None
    assert "abandon" not in conn.orchestration.calls


def test_existing_files_are_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "template.yaml").write_text("mine")
    with pytest.raises(HotcError, match="would overwrite template.yaml"):
        migrate(tmp_path, FakeConn(), abandon=True)
    assert (tmp_path / "mig" / "template.yaml").read_text() == "mine" and read_state(tmp_path) is None


def test_addresses_and_layout() -> None:
    assert heat_path("grp[1].port") == ["grp", "1", "port"]
    assert heat_path("app.db") == ["app", "db"]
    assert local_layout({"file:///a/b/x.yaml": "", "file:///a/c/y.yaml": ""}) == {
        "file:///a/b/x.yaml": "b/x.yaml",
        "file:///a/c/y.yaml": "c/y.yaml",
    }
