"""Runs killed (SIGKILL) at random moments while they create record sets in a zone, then one more apply: the
stack converges, every record set a killed run made is adopted by the name hotc generated for it (a record set
has nowhere to carry hotc's stamp), none is orphaned or made twice, a further apply has nothing to do, and
destroy leaves nothing in Designate. The zone is made first by a run that is not killed: a zone's name is the
template's, so a killed run's zone is not adopted (the next create meets Designate's "Duplicate Zone"; see
docs/reference/services.md, Designate). Every check asks Designate."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import REPO, hotc
from tests.apply.test_cloud_apply import recorded_ids, state_of
from tests.fixtures.cloud import require_service
from tests.fixtures.dns import TEST_DOMAIN

pytestmark = pytest.mark.cloud

RECORD_SETS = 6


def template(zone: str, record_sets: int) -> str:
    out = ["heat_template_version: 2018-08-31", "resources:",
           f"  zone: {{type: OS::Designate::Zone, properties: {{name: {zone}, email: a@example.org}}}}"]  # fmt: skip
    for i in range(record_sets):
        out.append(
            f"  rs{i}: {{type: OS::Designate::RecordSet, properties: {{zone: {{get_resource: zone}}, type: A,"
            f" records: [192.0.2.{i + 1}]}}}}"
        )
    return "\n".join(out) + "\n"


def record_sets(cloud: Any, zone_id: str) -> set[str]:
    """The ids of the zone's A record sets (Designate makes its SOA and NS itself)."""
    r = cloud.dns.get(f"/zones/{zone_id}/recordsets?type=A&limit=1000")
    assert r.status_code < 400, r.text
    return {str(rs["id"]) for rs in r.json()["recordsets"]}


def test_killed_runs_of_record_sets_converge_with_nothing_orphaned(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "dns", "87-designate.sh")
    stack = cloud_tracker.name("k")
    zone = f"{cloud_tracker.prefix}-k.{TEST_DOMAIN}"  # swept by the tracker, record sets with it
    (tmp_path / "t.yaml").write_text(template(zone, 0))
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    zone_id = state_of(tmp_path, stack).resources["zone"].physical_id
    (tmp_path / "t.yaml").write_text(template(zone, RECORD_SETS))
    env = {**hotc_cloud_env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    rng = random.Random(os.getpid())
    for _ in range(4):
        p = subprocess.Popen(
            [sys.executable, "-m", "hotc", "apply", "-t", "t.yaml", stack, "--auto-approve"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(1.5, 4.0))  # start-up is ~1-2 s; each record set takes a second or two
        p.kill()
        p.wait()
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    st = state_of(tmp_path, stack)
    assert len(st.resources) == 1 + RECORD_SETS
    assert all(rs.status.endswith("_COMPLETE") for rs in st.resources.values())
    assert all(rs.deposed == () for rs in st.resources.values())
    # nothing orphaned, nothing made twice: the zone's record sets are exactly what the state records
    assert record_sets(cloud, zone_id) == recorded_ids(st) - {zone_id}
    again = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", stack, "--auto-approve")
    assert again.returncode == 0 and "No changes" in again.stdout, again.stdout + again.stderr
    d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, d.stdout[-3000:] + d.stderr[-3000:]
    assert cloud.dns.get(f"/zones/{zone_id}").status_code == 404
