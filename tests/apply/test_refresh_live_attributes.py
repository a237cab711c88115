"""``apply --refresh`` resolves ``get_attr`` from the attributes its refresh read, as its plan did (no cloud: the
fake SDK and the real Neutron QoS drivers). A QoS policy's ``rules`` are recorded when the policy is written, as
Heat keeps them (its rules are made after it); a rule made outside hotc shows in the refreshed attribute, the
plan updates the Value that reads it, and the apply must agree with that plan (before, it resolved the recorded
attribute and failed with "differs from what the plan promised"), then record the live attribute and outputs."""

from __future__ import annotations

import io
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.apply import apply_wiring
from hotc.ops.apply import ApplyOptions, run_apply
from hotc.providers.drivers import driver_for
from hotc.state import backend_from_config
from tests.providers.fakesdk import FakeConnection

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  qos:
    type: OS::Neutron::QoSPolicy
  bw:
    type: OS::Neutron::QoSBandwidthLimitRule
    properties: {policy: {get_resource: qos}, max_kbps: 1000}
  seen:
    type: OS::Heat::Value
    depends_on: [bw]
    properties: {value: {get_attr: [qos, rules]}}
outputs:
  rules: {value: {get_attr: [qos, rules]}}
"""


def apply(tmp: Path, conn: Any, *, refresh: bool = False) -> tuple[int, str, str]:
    (tmp / "t.yaml").write_text(TEMPLATE)
    out, err = io.StringIO(), io.StringIO()
    rc = run_apply(
        stack="app",
        opts=ApplyOptions(auto_approve=True, backend=str(tmp / "state"), refresh=refresh),
        out=out,
        err=err,
        interactive=False,
        read_line=lambda: "",
        progress=nullcontext,
        template=tmp / "t.yaml",
        params={},
        cwd=tmp,
        wiring=replace(apply_wiring(None), drivers=driver_for, cloud=lambda: conn),
    )
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def conn(monkeypatch: pytest.MonkeyPatch) -> FakeConnection:
    c = FakeConnection()
    c.clock.install(monkeypatch)
    c.seed()
    return c


def rule_types(value: Any) -> list[str]:
    return sorted(r["type"] for r in value or [])


def test_apply_refresh_resolves_and_records_the_live_attributes(tmp_path: Path, conn: FakeConnection) -> None:
    rc, out, err = apply(tmp_path, conn)
    assert rc == 0, out + err
    st = backend_from_config(str(tmp_path / "state"), tmp_path).read("app")[0]
    assert (
        st.outputs["rules"].value == [] and st.resources["seen"].attributes["value"] == []
    )  # as Heat keeps it

    rc, out, err = apply(tmp_path, conn)
    assert rc == 0 and "No changes" in out, out + err  # without a refresh: as recorded

    policy = st.resources["qos"].physical_id
    conn.network.create_qos_dscp_marking_rule(policy, dscp_mark=16)  # made outside hotc
    rc, out, err = apply(tmp_path, conn, refresh=True)
    assert rc == 0, out + err
    st = backend_from_config(str(tmp_path / "state"), tmp_path).read("app")[0]
    both = ["bandwidth_limit", "dscp_marking"]
    assert rule_types(st.resources["qos"].attributes["rules"]) == both
    assert rule_types(st.resources["seen"].attributes["value"]) == both
    assert rule_types(st.outputs["rules"].value) == both
