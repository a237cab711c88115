"""Stack snapshots (``hotc snapshot create|list|show|delete|restore``) with Heat-native types, in the local and
the S3 backend: the round trip, hidden values never stored in clear in the snapshot document, the restore's plan
(shown before it runs, approved as apply's, held to the policy and the protection marks), and destroy keeping
the snapshots so that a restore brings the stack back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.clirun import run_hotc as hotc

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
  with_extra: {type: boolean, default: false}
  secret: {type: string, hidden: true}
conditions:
  extra: {get_param: with_extra}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}}
  pw:
    type: OS::Heat::Value
    properties: {value: {get_param: secret}}
  extra:
    type: OS::Heat::TestResource
    condition: extra
    properties: {value: added}
outputs:
  out: {value: {get_attr: [a, output]}}
"""

SECRET = "Sn4pshotS3cret-value"
ENV_SECRET = "EnvFileS3cret-value"


@pytest.fixture(params=["local", "s3"])
def backend(request: Any) -> tuple[str, ...]:
    if request.param == "local":
        return ()
    bucket = request.getfixturevalue("s3_bucket")
    request.getfixturevalue("monkeypatch").setenv("HOTC_STATE_KEY", "snapshot test key")
    request.node.bucket = bucket
    return ("--backend", bucket.url)


def _stored(tmp_path: Path, request: Any, b: tuple[str, ...], name: str) -> bytes:
    """The bytes the backend stores for snapshot ``name`` of stack ``s``."""
    if not b:
        return (tmp_path / ".hotc" / "s.snapshots" / f"{name}.json").read_bytes()
    bucket = request.node.bucket
    body: bytes = (
        bucket.client()
        .get_object(Bucket=bucket.name, Key=bucket.key("s", f"snapshots/{name}.json"))["Body"]
        .read()
    )
    return body


def _output(tmp_path: Path, b: tuple[str, ...]) -> Any:
    r = hotc(tmp_path, "output", "s", "out", "--format", "json", *b)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_round_trip(tmp_path: Path, backend: tuple[str, ...], request: Any) -> None:
    b = backend
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", "--parameter", f"secret={SECRET}", *b)
    assert r.returncode == 0, r.stderr

    r = hotc(tmp_path, "snapshot", "create", "s", "--name", "first", *b)
    assert r.returncode == 0, r.stderr
    assert "Snapshot 'first' of stack 's' created: 2 resource(s), 0 physical snapshot(s)." in r.stdout
    r = hotc(tmp_path, "snapshot", "create", "s", "--name", "first", *b)
    assert r.returncode == 1 and "already has a snapshot 'first'" in r.stderr
    r = hotc(tmp_path, "snapshot", "create", "s", *b)  # the default name: the time
    assert r.returncode == 0, r.stderr

    r = hotc(tmp_path, "snapshot", "list", "s", "--format", "json", *b)
    assert r.returncode == 0, r.stderr
    listed = json.loads(r.stdout)["snapshots"]
    assert len(listed) == 2 and "first" in [s["name"] for s in listed]
    assert all(s["status"] == "COMPLETE" for s in listed)
    r = hotc(tmp_path, "snapshot", "show", "s", "first", *b)
    assert r.returncode == 0, r.stderr
    assert "secret: (hidden)" in r.stdout and "v: one" in r.stdout and SECRET not in r.stdout
    assert "a (OS::Heat::TestResource)" in r.stdout

    # the stack moves on: another value, another secret, one more resource
    r = hotc(
        tmp_path,
        "apply",
        "-t",
        "t.yaml",
        "s",
        "--auto-approve",
        "--parameter",
        "secret=changed",
        "--parameter",
        "v=two",
        "--parameter",
        "with_extra=true",
        *b,
    )
    assert r.returncode == 0, r.stderr
    assert _output(tmp_path, b) == "two"

    r = hotc(tmp_path, "snapshot", "restore", "s", "first", "--auto-approve", *b)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Restoring stack 's' to snapshot 'first'" in r.stdout
    assert '~ value: "two" -> "one"' in r.stdout
    assert "- extra (OS::Heat::TestResource) will be deleted" in r.stdout
    assert "1 deleted" in r.stdout
    assert _output(tmp_path, b) == "one"
    # the restored stack is the snapshot's: its template, with the snapshot's parameters (the hidden one too)
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--parameter", f"secret={SECRET}", "--auto-approve", *b)
    assert r.returncode == 0, r.stderr
    assert "No changes" in r.stdout

    r = hotc(tmp_path, "snapshot", "delete", "s", "first", *b)
    assert r.returncode == 0, r.stderr
    assert "Snapshot 'first' of stack 's' deleted" in r.stdout
    r = hotc(tmp_path, "snapshot", "list", "s", "--format", "json", *b)
    assert [s["name"] for s in json.loads(r.stdout)["snapshots"]] != ["first"]
    assert "first" not in [s["name"] for s in json.loads(r.stdout)["snapshots"]]
    r = hotc(tmp_path, "snapshot", "show", "s", "first", *b)
    assert r.returncode == 1 and "has no snapshot 'first'" in r.stderr
    r = hotc(tmp_path, "snapshot", "restore", "s", "first", "--auto-approve", *b)
    assert r.returncode == 1 and "has no snapshot 'first'" in r.stderr
    assert "Traceback" not in r.stderr


def test_hidden_values_never_in_clear(tmp_path: Path, backend: tuple[str, ...], request: Any) -> None:
    b = backend
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "env.yaml").write_text(f"parameters:\n  secret: {ENV_SECRET}\n")
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "-e", "env.yaml", "s", "--auto-approve", *b)
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "snapshot", "create", "s", "--name", "env", *b)
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", "--parameter", f"secret={SECRET}", *b)
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "snapshot", "create", "s", "--name", "param", *b)
    assert r.returncode == 0, r.stderr
    for name in ("env", "param"):
        data = _stored(tmp_path, request, b, name)
        doc = json.loads(data)
        assert doc["state"]["parameters"]["secret"]["hidden"] is True
        assert SECRET.encode() not in data and ENV_SECRET.encode() not in data
    # what the backend's key sealed comes back for the restore (the environment file's value included)
    r = hotc(tmp_path, "snapshot", "restore", "s", "env", "--auto-approve", *b)
    assert r.returncode == 0, r.stdout + r.stderr
    assert SECRET not in r.stdout + r.stderr and ENV_SECRET not in r.stdout + r.stderr
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "-e", "env.yaml", "s", "--auto-approve", *b)
    assert "No changes" in r.stdout, r.stdout + r.stderr


def test_restore_plan_is_shown_approved_and_held_to_policy(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", "--parameter", "secret=x")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "snapshot", "create", "s", "--name", "base")
    assert r.returncode == 0, r.stderr
    args = ("--parameter", "secret=x", "--parameter", "with_extra=true", "--parameter", "v=three")
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", *args)
    assert r.returncode == 0, r.stderr
    before = (tmp_path / ".hotc" / "s.json").read_bytes()

    # not approved (no terminal, no --auto-approve): the plan is shown, nothing changes
    r = hotc(tmp_path, "snapshot", "restore", "s", "base")
    assert r.returncode == 1
    assert "Plan for stack 's': 0 to create, 1 to update, 0 to replace, 1 to delete" in r.stdout
    assert '~ value: "three" -> "one"' in r.stdout
    assert "needs approval" in r.stderr
    # answered with something else than yes
    r = hotc(tmp_path, "snapshot", "restore", "s", "base", input="no\n")
    assert (tmp_path / ".hotc" / "s.json").read_bytes() == before

    # a deny rule refuses it (exit 3), as for any plan
    r = hotc(tmp_path, "snapshot", "restore", "s", "base", "--auto-approve", "--deny", "delete:OS::Heat::*")
    assert r.returncode == 3, r.stdout + r.stderr
    assert (tmp_path / ".hotc" / "s.json").read_bytes() == before

    # so does a protection mark on what it would delete
    r = hotc(tmp_path, "protect", "s", "extra", "--reason", "keep it")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "snapshot", "restore", "s", "base", "--auto-approve")
    assert r.returncode == 1 and "protected" in r.stderr and "keep it" in r.stderr
    r = hotc(tmp_path, "unprotect", "s", "extra")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "snapshot", "restore", "s", "base", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert _output(tmp_path, ()) == "one"


def test_destroy_keeps_snapshots_and_restore_brings_the_stack_back(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", "--parameter", "secret=x")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "snapshot", "create", "s", "--name", "keep")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "destroy", "s", "--auto-approve")
    assert r.returncode == 0, r.stderr
    assert "stack 's' has 1 snapshot(s) (keep): destroy keeps them" in r.stderr
    r = hotc(tmp_path, "snapshot", "restore", "s", "keep", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 to create" in r.stdout
    assert _output(tmp_path, ()) == "one"


def test_errors_are_plain(tmp_path: Path) -> None:
    r = hotc(tmp_path, "snapshot", "create", "nope")
    assert r.returncode == 1 and "stack not found" in r.stderr and "Traceback" not in r.stderr
    r = hotc(tmp_path, "snapshot", "list", "nope")
    assert r.returncode == 1 and "stack not found" in r.stderr
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", "--parameter", "secret=x")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "snapshot", "create", "s", "--name", "../x")
    assert r.returncode == 1 and "snapshot name '../x'" in r.stderr
    r = hotc(tmp_path, "snapshot", "list", "s")
    assert r.returncode == 0 and "has no snapshots" in r.stdout


def test_without_a_state_key_hidden_values_are_given_again(tmp_path: Path, s3_bucket: Any) -> None:
    """An S3 state without HOTC_STATE_KEY keeps only digests of hidden values: the restore asks for them."""
    b = ("--backend", s3_bucket.url)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", "--parameter", f"secret={SECRET}", *b)
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "snapshot", "create", "s", "--name", "nokey", *b)
    assert r.returncode == 0, r.stderr
    data = s3_bucket.client().get_object(
        Bucket=s3_bucket.name, Key=s3_bucket.key("s", "snapshots/nokey.json")
    )
    assert SECRET.encode() not in data["Body"].read()
    r = hotc(tmp_path, "snapshot", "restore", "s", "nokey", "--auto-approve", *b)
    assert r.returncode == 1 and "snapshot 'nokey'" in r.stderr and "secret" in r.stderr, r.stderr
    assert "--parameter NAME=VALUE" in r.stderr
    r = hotc(
        tmp_path, "snapshot", "restore", "s", "nokey", "--auto-approve", "--parameter", f"secret={SECRET}", *b
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No changes" in r.stdout
