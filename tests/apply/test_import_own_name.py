"""An object imported under a template that gives it no name (so the template asks for the name hotc generates)
keeps a name of its own in the cloud: the next plan shows the rename, with or without a refresh, and a refresh
does not report it as a change made outside hotc (no one changed it after the import). Before, the import left
the name out of the state, so a plain plan showed nothing and a refresh plan called it drift. No cloud: the fake
SDK and the real Keystone role and Octavia flavor profile drivers."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.apply import apply_wiring
from hotc.cli.common import load_for_command
from hotc.ops.import_ import run_import
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.planner.refresh import driver_reader, refresh_resources
from hotc.providers.drivers import driver_for
from hotc.state import backend_from_config
from tests.providers.fakesdk import FakeConnection

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  role: {type: OS::Keystone::Role}
  named: {type: OS::Keystone::Role, properties: {name: kept}}
"""


@pytest.fixture
def conn(monkeypatch: pytest.MonkeyPatch) -> FakeConnection:
    c = FakeConnection()
    c.clock.install(monkeypatch)
    c.seed()
    return c


def test_an_imported_objects_own_name_is_planned_as_a_rename_with_or_without_refresh(
    tmp_path: Path, conn: FakeConnection
) -> None:
    own = conn.identity.create_role(name="made-by-hand")
    kept = conn.identity.create_role(name="kept")
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    wiring = replace(apply_wiring(None), drivers=driver_for, cloud=lambda: conn)
    rc = run_import(
        stack="app",
        requests=[("role", own.id), ("named", kept.id)],
        template=tmp_path / "t.yaml",
        envs=[],
        params={},
        pfiles={},
        backend_url=str(tmp_path / "state"),
        lock_timeout=0.0,
        out=io.StringIO(),
        err=io.StringIO(),
        wiring=wiring,
        cwd=tmp_path,
    )
    assert rc == 0
    state = backend_from_config(str(tmp_path / "state"), tmp_path).read("app")[0]
    assert state.resources["role"].properties.get("name") == "made-by-hand"

    loaded = load_for_command(tmp_path / "t.yaml", [], {}, {}, verb="planned")

    def plan(refreshed: Any = None) -> Any:
        return make_plan(
            build_desired(loaded, "app", state.lineage, state=state), state, PlanOptions(), refreshed
        )

    for p in (plan(), plan(refresh_resources(state, driver_reader(state, lambda: conn, driver_for)))):
        acted = {c.address: c.action.value for c in p.changes if c.action.value != "no-op"}
        assert acted == {"role": "update"}, acted  # renamed to the name hotc generates; ``named`` is as given
        assert p.resource_drift == ()
