"""An update chain against REAL Heat on the test cloud: a stack update re-resolves ``get_attr`` of a resource updated in
place and carries the new value to its dependents in the same update (a dependent whose value did not change
is left alone). hotc (Heat-native types, in-process) must replace the same resources and give the same output
after one apply."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.app import main
from hotc.state import backend_from_config

pytestmark = pytest.mark.cloud

BODY = """\
heat_template_version: 2018-08-31
parameters:
  tag: {type: string}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      %(a_props)s
  b:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [a, output]}
      update_replace: true
  v:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [b, output]}
outputs:
  out: {value: {get_attr: [v, value]}}
"""
CASES = {
    "output-changes": BODY % {"a_props": "value: {list_join: ['-', [a, {get_param: tag}]]}"},
    "output-kept": BODY % {"a_props": "{value: same, client_name: {get_param: tag}}"},
}


def _wait(conn: Any, stack_id: str, want: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = conn.orchestration.get_stack(stack_id)
        if st.status == want:
            return
        if st.status.endswith("_FAILED"):
            raise AssertionError(f"Heat stack {st.name}: {st.status}: {st.status_reason}")
        time.sleep(1)
    raise AssertionError(f"Heat stack {stack_id} not {want} after {timeout}s")


def _delete(conn: Any, stack_id: str) -> None:
    conn.orchestration.delete_stack(stack_id, ignore_missing=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            st = conn.orchestration.get_stack(stack_id)
        except Exception:  # noqa: BLE001 -- gone
            return
        if st is None or st.status == "DELETE_COMPLETE":
            return
        time.sleep(2)


def heat_effects(conn: Any, tracker: Any, name: str, template: str) -> tuple[set[str], Any]:
    st = conn.orchestration.create_stack(
        name=name, template=template, parameters={"tag": "v1"}, timeout_mins=5
    )
    tracker.defer(f"Heat stack {name}", lambda: _delete(conn, st.id))
    _wait(conn, st.id, "CREATE_COMPLETE")
    before = {r.name: r.physical_resource_id for r in conn.orchestration.resources(st.id)}
    resp = conn.orchestration.put(
        f"/stacks/{name}/{st.id}", json={"template": template, "parameters": {"tag": "v2"}}
    )
    assert resp.status_code == 202, resp.text
    deadline = time.monotonic() + 60
    while conn.orchestration.get_stack(st.id).status == "CREATE_COMPLETE" and time.monotonic() < deadline:
        time.sleep(1)
    _wait(conn, st.id, "UPDATE_COMPLETE")
    after = {r.name: r.physical_resource_id for r in conn.orchestration.resources(st.id)}
    out = conn.orchestration.get(f"/stacks/{name}/{st.id}/outputs/out").json()["output"]["output_value"]
    _delete(conn, st.id)
    return {n for n in before if before[n] != after[n]}, out


def hotc_effects(work: Path, template: str) -> tuple[set[str], Any]:
    (work / "s.yaml").write_text(template)
    for tag in ("v1", "v2"):
        try:
            main(["apply", "-t", str(work / "s.yaml"), "--parameter", f"tag={tag}", "--auto-approve"])
        except SystemExit as exc:
            assert not exc.code, f"hotc apply tag={tag} failed"
        if tag == "v1":
            before = backend_from_config(None, work).read("s")[0]
    after = backend_from_config(None, work).read("s")[0]
    replaced = {
        a for a in before.resources if before.resources[a].physical_id != after.resources[a].physical_id
    }
    return replaced, after.outputs["out"].value


@pytest.mark.parametrize("case", sorted(CASES))
def test_update_carries_attributes_like_heat(
    cloud: Any, cloud_tracker: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    template = CASES[case]
    heat_replaced, heat_out = heat_effects(cloud, cloud_tracker, cloud_tracker.name(case), template)
    hotc_replaced, hotc_out = hotc_effects(tmp_path, template)
    assert (hotc_replaced, hotc_out) == (heat_replaced, heat_out)
    assert heat_out == ("a-v2" if case == "output-changes" else "same")
