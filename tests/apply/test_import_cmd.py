"""``hotc import`` without a cloud (fake drivers per type): one object, a bulk map, the live properties recorded,
and every refusal writing nothing."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.apply import apply_wiring
from hotc.cli.import_cmd import read_map
from hotc.errors import HotcError
from hotc.ops.import_ import run_import
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.state import backend_from_config
from tests.apply.test_adopt import existing, world

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: app-net}
  sub:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: 10.5.0.0/24
  pw:
    type: OS::Heat::RandomString
"""


def do_import(tmp: Path, drivers: Any, requests: list[tuple[str, str]], text: str = TEMPLATE) -> str:
    from hotc.providers.drivers import driver_for

    fake = drivers
    drivers = lambda t: fake(t) or driver_for(t)  # noqa: E731 -- the real in-process drivers too
    tpl = tmp / "app.yaml"
    tpl.write_text(text)
    out = io.StringIO()
    run_import(
        stack="app",
        requests=requests,
        template=tpl,
        envs=[],
        params={},
        pfiles={},
        backend_url=str(tmp / "state"),
        lock_timeout=0.0,
        out=out,
        err=io.StringIO(),
        wiring=replace(apply_wiring(None), drivers=drivers, cloud=lambda: None),
        cwd=tmp,
    )
    return out.getvalue()


def read_state(tmp: Path) -> Any:
    return backend_from_config(str(tmp / "state"), tmp).read("app")[0]


def replan(tmp: Path, st: Any) -> dict[str, Any]:
    from hotc.cli.common import load_for_command

    loaded = load_for_command(tmp / "app.yaml", [], {}, {}, verb="planned")
    plan = make_plan(build_desired(loaded, "app", st.lineage, state=st), st, PlanOptions())
    return {c.address: c for c in plan.changes}


def test_import_records_live_properties_and_the_plan_shows_real_differences(tmp_path: Path) -> None:
    cloud, drivers = world()
    existing(cloud, "n-1", "OS::Neutron::Net", name="other-name")
    text = do_import(tmp_path, drivers, [("net", "n-1")])
    assert "Imported net (OS::Neutron::Net): n-1" in text
    st = read_state(tmp_path)
    net = st.resources["net"]
    assert (net.physical_id, net.status, net.deletion_policy, net.external_id) == (
        "n-1",
        "ADOPT_COMPLETE",
        "Delete",
        None,
    )
    assert net.properties == {"name": "other-name"}
    assert st.template["main"].endswith("app.yaml")  # a new stack gets the template record (--existing)
    assert not [c for c in cloud.calls if c.op != "read"]
    ch = replan(tmp_path, st)
    assert ch["net"].action.value == "update" and ch["net"].changed_paths == ("name",)
    assert ch["sub"].action.value == "create"


def test_bulk_import_resolves_references_between_imported_objects(tmp_path: Path) -> None:
    cloud, drivers = world()
    existing(cloud, "n-1", "OS::Neutron::Net", name="app-net")
    existing(cloud, "s-1", "OS::Neutron::Subnet", network="n-1", cidr="10.5.0.0/24")
    mp = tmp_path / "map.yaml"
    mp.write_text("sub: s-1\nnet: n-1\n")
    do_import(tmp_path, drivers, read_map(mp))
    st = read_state(tmp_path)
    assert st.resources["sub"].properties["network"] == "n-1"
    ch = replan(tmp_path, st)
    assert ch["net"].action.value == "no-op" and ch["sub"].action.value == "no-op"


@pytest.mark.parametrize(
    ("requests", "objects", "message"),
    [
        ([("pw", "x")], {}, "RandomString cannot be imported"),
        ([("net", "n-404")], {}, "there is no OS::Neutron::Net with id n-404"),
        (
            [("net", "n-1"), ("sub", "s-404")],
            {"n-1": "OS::Neutron::Net"},
            "no OS::Neutron::Subnet with id s-404",
        ),
        ([("net", "s-1")], {"s-1": "OS::Neutron::Subnet"}, "there is no OS::Neutron::Net with id s-1"),
        ([("nett", "n-1")], {"n-1": "OS::Neutron::Net"}, "the template does not declare it"),
    ],
)
def test_refusals_write_nothing(
    tmp_path: Path, requests: list[tuple[str, str]], objects: dict[str, str], message: str
) -> None:
    cloud, drivers = world()
    for pid, t in objects.items():
        existing(cloud, pid, t)
    with pytest.raises(HotcError, match=message):
        do_import(tmp_path, drivers, requests)
    assert read_state(tmp_path) is None


def test_an_address_already_in_the_state_is_refused(tmp_path: Path) -> None:
    cloud, drivers = world()
    existing(cloud, "n-1", "OS::Neutron::Net")
    existing(cloud, "n-2", "OS::Neutron::Net")
    do_import(tmp_path, drivers, [("net", "n-1")])
    before = read_state(tmp_path)
    with pytest.raises(HotcError, match="the state already has net"):
        do_import(tmp_path, drivers, [("net", "n-2")])
    assert read_state(tmp_path).serial == before.serial


@pytest.mark.parametrize(
    ("text", "message"),
    [("- a\n", "non-empty mapping"), ("{}\n", "non-empty mapping"), ("a: 3\n", "expected 'ADDRESS: ID'")],
)
def test_bad_maps(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "m.yaml"
    p.write_text(text)
    with pytest.raises(HotcError, match=message):
        read_map(p)


def test_import_format_json_prints_what_was_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    import hotc.cli.import_cmd as import_cmd
    from hotc.cli.app import main
    from hotc.providers.drivers import driver_for

    cloud, fake = world()
    existing(cloud, "n-9", "OS::Neutron::Net", name="app-net")
    wiring = replace(apply_wiring(None), drivers=lambda t: fake(t) or driver_for(t), cloud=lambda: None)
    monkeypatch.setattr(import_cmd, "import_wiring", lambda *_a, **_k: wiring)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.yaml").write_text(TEMPLATE)
    with pytest.raises(SystemExit) as done:
        main(["import", "app", "net", "n-9", "-t", "app.yaml", "--format", "json"])
    assert done.value.code in (0, None)
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["exit_code"] == 0 and doc["stack"] == "app"
    assert [(r["address"], r["physical_id"]) for r in doc["resources"]] == [("net", "n-9")]
    assert "Imported net (OS::Neutron::Net): n-9" in err
