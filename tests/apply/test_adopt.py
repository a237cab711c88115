"""Adopting existing objects through the real planner and executor (fake cloud): Heat's ``external_id`` never
creates, updates or deletes the object; a planned import (``--import``) records the live properties; a missing
object or one of another type is an error that records nothing."""

from __future__ import annotations

import io
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.apply import apply_wiring
from hotc.errors import HotcError
from hotc.ops.apply import ApplyOptions, run_apply
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.providers.base import ActionContext, Outcome
from hotc.state import backend_from_config
from tests.apply.fakes import FakeCloud, FakeDriver


class TypedDriver(FakeDriver):
    """A fake driver per type: it sees only the objects of its type (as a GET by id of another service's
    object is a 404), and reads back the properties of what it holds."""

    def __init__(self, cloud: FakeCloud, type_name: str) -> None:
        super().__init__(cloud)
        self.type_name = type_name

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        out = super().create(ctx, props)
        assert out.physical_id is not None
        self.cloud.objects[out.physical_id]["type"] = self.type_name
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        obj = self.cloud.objects.get(physical_id)
        if obj is None or obj.get("type") != self.type_name:
            return None
        out = super().read(ctx, physical_id, props)
        assert out is not None
        return Outcome(physical_id, out.attributes, properties=dict(obj["props"]))


def world() -> tuple[FakeCloud, Any]:
    cloud = FakeCloud()
    drivers = {
        t: TypedDriver(cloud, t) for t in ("OS::Neutron::Net", "OS::Neutron::Subnet", "OS::Nova::Server")
    }
    return cloud, drivers.get


def existing(cloud: FakeCloud, pid: str, type_name: str, **props: Any) -> None:
    cloud.objects[pid] = {"props": props, "tags": {}, "address": "", "type": type_name}


EXT = """heat_template_version: 2018-08-31
parameters:
  net_id: {type: string, default: net-old}
resources:
  old_net:
    type: OS::Neutron::Net
    external_id: {get_param: net_id}
  sub:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: old_net}
      cidr: 10.9.0.0/24
outputs:
  net_name: {value: {get_attr: [old_net, name]}}
"""


def apply(
    tmp: Path, drivers: Any, text: str, *, destroy: bool = False, params: dict[str, str] | None = None
) -> tuple[int, str, str]:
    tpl = tmp / "app.yaml"
    tpl.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    try:
        rc = run_apply(
            stack="app",
            opts=ApplyOptions(auto_approve=True, backend=str(tmp / "state")),
            out=out,
            err=err,
            interactive=False,
            read_line=lambda: "",
            progress=nullcontext,
            template=None if destroy else tpl,
            params=params or {},
            destroy=destroy,
            cwd=tmp,
            wiring=replace(apply_wiring(None), drivers=drivers),
        )
    except HotcError as exc:
        return 1, out.getvalue(), err.getvalue() + exc.message
    return rc, out.getvalue(), err.getvalue()


def read_state(tmp: Path) -> Any:
    st, _ = backend_from_config(str(tmp / "state"), tmp).read("app")
    return st


def ops(cloud: FakeCloud) -> list[tuple[str, str]]:
    return [(c.op, c.address) for c in cloud.calls]


def test_external_id_adopts_without_creating_updating_or_deleting(tmp_path: Path) -> None:
    cloud, drivers = world()
    existing(cloud, "net-old", "OS::Neutron::Net", name="legacy")
    rc, out, err = apply(tmp_path, drivers, EXT)
    assert rc == 0, out + err
    assert "will be adopted: existing object net-old" in out
    assert ops(cloud) == [("create", "sub")]  # the adopted network is never created
    st = read_state(tmp_path)
    net = st.resources["old_net"]
    assert (net.physical_id, net.external_id, net.deletion_policy, net.status) == (
        "net-old",
        "net-old",
        "Retain",
        "ADOPT_COMPLETE",
    )
    assert net.attributes["name"] == "legacy"  # attributes read from the cloud
    assert st.outputs["net_name"].value == "legacy"
    assert st.resources["sub"].properties["network"] == "net-old"
    assert set(cloud.objects) == {"net-old", st.resources["sub"].physical_id}

    # the same template again: nothing to do
    rc, out, _ = apply(tmp_path, drivers, EXT)
    assert rc == 0 and "No changes" in out

    # destroy: the subnet hotc made is deleted, the adopted network is forgotten and left in place
    rc, out, err = apply(tmp_path, drivers, EXT, destroy=True)
    assert rc == 0, out + err
    assert set(cloud.objects) == {"net-old"}
    assert ("delete", "old_net") not in ops(cloud)


def test_external_id_change_replaces_the_record_not_the_object(tmp_path: Path) -> None:
    cloud, drivers = world()
    existing(cloud, "net-old", "OS::Neutron::Net", name="legacy")
    existing(cloud, "net-new", "OS::Neutron::Net", name="fresh")
    assert apply(tmp_path, drivers, EXT)[0] == 0
    cloud.calls.clear()
    rc, out, err = apply(tmp_path, drivers, EXT, params={"net_id": "net-new"})
    assert rc == 0, out + err
    assert "record will be replaced: existing object net-new adopted instead of net-old" in out
    assert "net-old is left in place (forgotten)" in out
    st = read_state(tmp_path)
    net = st.resources["old_net"]
    assert (net.physical_id, net.external_id, net.deposed) == ("net-new", "net-new", ())
    assert {"net-old", "net-new"} <= set(cloud.objects)
    assert all(op != "delete" or addr != "old_net" for op, addr in ops(cloud))
    assert ("create", "old_net") not in ops(cloud)
    # the subnet pointed at the old network: Heat replaces it (network is not updatable)
    assert st.resources["sub"].properties["network"] == "net-new"


def test_external_id_of_a_missing_object_fails_and_records_nothing(tmp_path: Path) -> None:
    cloud, drivers = world()
    rc, out, err = apply(tmp_path, drivers, EXT)
    assert rc == 1
    assert "there is no OS::Neutron::Net with id net-old" in err
    assert not cloud.objects  # the subnet waited on the adoption and never started
    st = read_state(tmp_path)
    assert "old_net" not in st.resources


def test_external_id_of_an_object_of_another_type_fails(tmp_path: Path) -> None:
    cloud, drivers = world()
    existing(cloud, "net-old", "OS::Nova::Server", name="a server")
    rc, _out, err = apply(tmp_path, drivers, EXT)
    assert rc == 1 and "there is no OS::Neutron::Net with id net-old" in err
    assert "old_net" not in read_state(tmp_path).resources


def test_external_id_removed_creates_a_new_object_and_forgets_the_adopted_one(tmp_path: Path) -> None:
    cloud, drivers = world()
    existing(cloud, "net-old", "OS::Neutron::Net", name="legacy")
    assert apply(tmp_path, drivers, EXT)[0] == 0
    managed = EXT.replace("    external_id: {get_param: net_id}\n", "    properties: {name: mine}\n")
    rc, out, err = apply(tmp_path, drivers, managed)
    assert rc == 0, out + err
    assert "external_id removed" in out
    st = read_state(tmp_path)
    net = st.resources["old_net"]
    assert net.physical_id != "net-old" and net.external_id is None and net.deletion_policy == "Delete"
    assert "net-old" in cloud.objects and net.physical_id in cloud.objects


def _plan_with_imports(tmp: Path, text: str, imports: tuple[tuple[str, str], ...]) -> Any:
    from hotc.cli.common import load_for_command

    tpl = tmp / "imp.yaml"
    tpl.write_text(text)
    loaded = load_for_command(tpl, [], {}, {}, verb="planned")
    return make_plan(build_desired(loaded, "imp", None), None, PlanOptions(imports=imports))


IMP = """heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: wanted}
"""


def test_planned_import_is_shown_and_checked(tmp_path: Path) -> None:
    plan = _plan_with_imports(tmp_path, IMP, (("net", "n-1"),))
    (c,) = plan.changes
    assert (c.action.value, c.import_id, c.action_reason, c.deletion_policy) == (
        "create",
        "n-1",
        "import_by_request",
        "Delete",
    )
    with pytest.raises(HotcError, match="the template does not declare it"):
        _plan_with_imports(tmp_path, IMP, (("nett", "n-1"),))
    rs = IMP + "  pw: {type: OS::Heat::RandomString}\n"
    with pytest.raises(HotcError, match="OS::Heat::RandomString cannot be imported"):
        _plan_with_imports(tmp_path, rs, (("pw", "x"),))


def test_planned_import_records_the_live_properties(tmp_path: Path) -> None:
    from hotc.planner.api import plan_inputs, save_plan, template_digest

    cloud, drivers = world()
    existing(cloud, "n-1", "OS::Neutron::Net", name="as-is", admin_state_up=False)
    plan = _plan_with_imports(tmp_path, IMP, (("net", "n-1"),))
    from dataclasses import replace

    from hotc.cli.common import load_for_command

    loaded = load_for_command(tmp_path / "imp.yaml", [], {}, {}, verb="planned")
    plan = replace(
        plan,
        template_digest=template_digest(loaded),
        inputs=plan_inputs(loaded, tmp_path / "imp.yaml", [], {}, {}),
    )
    save_plan(plan, tmp_path / "imp.plan")
    out, err = io.StringIO(), io.StringIO()
    rc = run_apply(
        stack="imp",
        opts=ApplyOptions(backend=str(tmp_path / "state")),
        out=out,
        err=err,
        interactive=False,
        read_line=lambda: "",
        progress=nullcontext,
        plan_file=tmp_path / "imp.plan",
        cwd=tmp_path,
        wiring=replace(apply_wiring(None), drivers=drivers),
    )
    assert rc == 0, out.getvalue() + err.getvalue()
    assert not [c for c in cloud.calls if c.op != "read"]
    st, _ = backend_from_config(str(tmp_path / "state"), tmp_path).read("imp")
    net = st.resources["net"]
    assert net.physical_id == "n-1" and net.external_id is None and net.deletion_policy == "Delete"
    # the live values, so the next plan shows the real differences with the template
    assert net.properties == {"name": "as-is", "admin_state_up": False}
    nxt = make_plan(build_desired(loaded, "imp", st.lineage, state=st), st, PlanOptions())
    (c,) = nxt.changes
    assert c.action.value == "update" and set(c.changed_paths) == {"name", "admin_state_up"}


def test_refresh_reports_no_property_drift_for_an_external_id_object(tmp_path: Path) -> None:
    from hotc.planner.refresh import driver_reader, refresh_resources

    cloud, drivers = world()
    existing(cloud, "net-old", "OS::Neutron::Net", name="legacy")
    assert apply(tmp_path, drivers, EXT)[0] == 0
    st = read_state(tmp_path)
    cloud.objects["net-old"]["props"]["admin_state_up"] = False  # changed by hand: not hotc's business
    from hotc.cli.common import load_for_command

    loaded = load_for_command(tmp_path / "app.yaml", [], {}, {}, verb="planned")
    refreshed = refresh_resources(st, driver_reader(st, lambda: None, drivers))
    plan = make_plan(build_desired(loaded, "app", st.lineage, state=st), st, PlanOptions(), refreshed)
    assert not plan.resource_drift and not plan.has_changes
    del cloud.objects["net-old"]  # but its disappearance is reported
    refreshed = refresh_resources(st, driver_reader(st, lambda: None, drivers))
    plan = make_plan(build_desired(loaded, "app", st.lineage, state=st), st, PlanOptions(), refreshed)
    assert [(c.address, c.action.value) for c in plan.resource_drift] == [("old_net", "delete")]
