"""OS::Heat::DeployedServer's own life cycle over the signal store (moto's S3 server; no agents, no Nova): the
create makes the server's metadata object, which its ``os_collect_config`` URL serves; a new ``name`` is an
update in place (as in Heat, whose schema updates every property) that keeps the same object and URL, so the
agents already configured keep polling it; destroy deletes the object (the URL answers 404 after)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.fixtures.s3 import S3Bucket

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  name: {type: string, default: bm-one}
resources:
  bm:
    type: OS::Heat::DeployedServer
    properties: {name: {get_param: name}, software_config_transport: POLL_TEMP_URL}
outputs:
  occ: {value: {get_attr: [bm, os_collect_config]}}
  name: {value: {get_attr: [bm, name]}}
"""


def hotc(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    for k in ("HOTC_BACKEND", "HOTC_SIGNAL_STORE", "OS_CLOUD"):
        env.pop(k, None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def outputs(cwd: Path) -> dict[str, Any]:
    r = hotc(cwd, "output", "ds", "--format", "json", "--show-sensitive")
    assert r.returncode == 0, r.stdout + r.stderr
    return {k: v["value"] for k, v in json.loads(r.stdout).items()}


def fetch(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310 - the test's own S3 server
            json.loads(resp.read())
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_deployed_server_create_rename_in_place_and_delete(tmp_path: Path, s3_bucket: S3Bucket) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    store = ["--signal-store", f"s3://{s3_bucket.name}/sig"]
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "ds", "--auto-approve", *store)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    first = outputs(tmp_path)
    url = first["occ"]["request"]["metadata_url"]
    assert first["name"] == "bm-one" and fetch(url) == 200
    pid = json.loads(hotc(tmp_path, "resource", "show", "ds", "bm", "--format", "json").stdout)["physical_id"]

    r = hotc(tmp_path, "plan", "-t", "t.yaml", "ds", *store, "--parameter", "name=bm-two", "--format", "json")
    assert r.returncode == 0, r.stderr
    [change] = [c for c in json.loads(r.stdout)["resource_changes"] if c["address"] == "bm"]
    assert change["actions"] == ["update"]
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "ds", "--auto-approve", *store, "--parameter", "name=bm-two")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    second = outputs(tmp_path)
    assert second["name"] == "bm-two"
    assert second["occ"] == first["occ"] and fetch(url) == 200  # the same object and URL: agents keep polling
    after = json.loads(hotc(tmp_path, "resource", "show", "ds", "bm", "--format", "json").stdout)
    assert after["physical_id"] == pid

    def server_objects() -> list[str]:
        listed = s3_bucket.client().list_objects_v2(Bucket=s3_bucket.name, Prefix="sig/").get("Contents", [])
        return [o["Key"] for o in listed if "/servers/" in o["Key"]]

    assert server_objects()  # the metadata object (and its deployments) while the server is the stack's
    r = hotc(tmp_path, "destroy", "ds", "--auto-approve", *store)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert fetch(url) == 404
    assert server_objects() == []


def test_a_refresh_reads_os_collect_config_from_the_metadata_object(
    tmp_path: Path, s3_bucket: S3Bucket
) -> None:
    """Heat reads a deployed server's ``os_collect_config`` from its metadata each time (``CACHE_NONE``); hotc's
    read takes it from the server's metadata object in the signal store, which a deployment rewrites with a
    fresh URL. The object gone, the server's deployment data is gone: the refresh plans it made again."""
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    store = ["--signal-store", f"s3://{s3_bucket.name}/sig"]
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "ds", "--auto-approve", *store)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    first = outputs(tmp_path)["occ"]
    s3 = s3_bucket.client()
    listed = s3.list_objects_v2(Bucket=s3_bucket.name, Prefix="sig/").get("Contents", [])
    [key] = [o["Key"] for o in listed if "/servers/" in o["Key"] and not o["Key"].endswith(".deployments")]
    doc = json.loads(s3.get_object(Bucket=s3_bucket.name, Key=key)["Body"].read())
    assert doc["os-collect-config"] == first
    # what a deployment's rewrite does: the same object, a fresh URL in it
    doc["os-collect-config"]["request"]["metadata_url"] = first["request"]["metadata_url"] + "&fresh=1"
    s3.put_object(Bucket=s3_bucket.name, Key=key, Body=json.dumps(doc).encode())

    r = hotc(tmp_path, "plan", "-t", "t.yaml", "ds", *store, "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["output_changes"]["occ"]["actions"] == ["no-op"]  # the state's value
    r = hotc(tmp_path, "plan", "-t", "t.yaml", "ds", *store, "--refresh", "--format", "json")
    assert r.returncode == 0, r.stderr
    planned = json.loads(r.stdout)
    assert planned["output_changes"]["occ"]["actions"] == ["update"]  # read from the object
    occ = planned["output_changes"]["occ"]
    assert occ["after"] is None and occ["sensitive"] is True  # still hidden
    assert "fresh=1" not in r.stdout
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "ds", "--auto-approve", "--refresh", *store)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert outputs(tmp_path)["occ"] == doc["os-collect-config"]
    r = hotc(tmp_path, "plan", "-t", "t.yaml", "ds", *store, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr

    for k in (key, key + ".deployments"):
        s3.delete_object(Bucket=s3_bucket.name, Key=k)
    r = hotc(tmp_path, "plan", "-t", "t.yaml", "ds", *store, "--refresh", "--format", "json")
    assert r.returncode == 0, r.stderr
    planned = json.loads(r.stdout)
    assert [(d["address"], d["actions"]) for d in planned["resource_drift"]] == [("bm", ["delete"])]
    [change] = [c for c in planned["resource_changes"] if c["address"] == "bm"]
    assert "create" in change["actions"] and change["action_reason"] == "replace_because_gone"
