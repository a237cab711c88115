"""Protection kept with the stack (``hotc protect``/``unprotect``): a plan that would delete or replace a
protected resource, or destroy a protected stack, is refused by every command that plans (plan, apply -t,
destroy, a saved plan made before the mark), in the local and the S3 backend, and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.clirun import run_hotc as hotc

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 3}
  keep_b: {type: boolean, default: true}
conditions:
  with_b: {get_param: keep_b}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: one}
  b:
    type: OS::Heat::TestResource
    condition: with_b
    properties: {value: two}
  web:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: member}
"""


def _serial(cwd: Path, *b: str) -> int:
    r = hotc(cwd, "state", "pull", "s", *b)
    assert r.returncode == 0, r.stderr
    return int(json.loads(r.stdout)["serial"])


@pytest.fixture(params=["local", "s3"])
def backend(request: Any, tmp_path: Path) -> tuple[str, ...]:
    if request.param == "local":
        return ()
    bucket = request.getfixturevalue("s3_bucket")
    request.getfixturevalue("monkeypatch").setenv("HOTC_STATE_KEY", "protect test key")
    return ("--backend", bucket.url)


def test_protected_resources_and_stack_refuse_every_path(tmp_path: Path, backend: tuple[str, ...]) -> None:
    b = backend
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", *b)
    assert r.returncode == 0, r.stderr
    # a saved plan made before the mark, that deletes b
    r = hotc(tmp_path, "plan", "-t", "t.yaml", "s", "--parameter", "keep_b=false", "-o", "early.json", *b)
    assert r.returncode == 0, r.stderr

    r = hotc(tmp_path, "protect", "s", "b", "web[*]", "--reason", "holds data", *b)
    assert r.returncode == 0, r.stderr
    assert "Protected b of stack 's'" in r.stdout and "holds data" in r.stdout
    serial = _serial(tmp_path, *b)

    refusals = [
        ("plan", "-t", "t.yaml", "s", "--parameter", "keep_b=false"),  # delete b
        ("apply", "-t", "t.yaml", "s", "--parameter", "keep_b=false", "--auto-approve"),
        ("apply", "-t", "t.yaml", "s", "--replace", "b", "--auto-approve"),  # replace b
        ("apply", "-t", "t.yaml", "s", "--parameter", "count=2", "--auto-approve"),  # delete web[2]
        ("destroy", "s", "--auto-approve"),
    ]
    for args in refusals:
        r = hotc(tmp_path, *args, *b)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        assert "protected" in r.stderr and "hotc unprotect s" in r.stderr, (args, r.stderr)
        assert "holds data" in r.stderr
    r = hotc(tmp_path, "apply", "early.json", *b)  # the mark moved the state: the old plan is stale
    assert r.returncode == 1 and "serial" in r.stderr, r.stderr
    assert _serial(tmp_path, *b) == serial  # nothing was written by any refusal

    # what is not protected still changes: a grows, a is replaced
    r = hotc(
        tmp_path,
        "apply",
        "-t",
        "t.yaml",
        "s",
        "--parameter",
        "count=4",
        "--replace",
        "a",
        "--auto-approve",
        *b,
    )
    assert r.returncode == 0, r.stderr

    # the stack's own mark refuses destroy only
    r = hotc(tmp_path, "protect", "s", *b)
    assert r.returncode == 0 and "Protected stack 's'" in r.stdout, r.stderr
    r = hotc(tmp_path, "unprotect", "s", "b", "web[*]", *b)
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--parameter", "keep_b=false", "--auto-approve", *b)
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "destroy", "s", "--auto-approve", *b)
    assert r.returncode == 1 and "would be destroyed" in r.stderr and "hotc unprotect s'" in r.stderr
    r = hotc(tmp_path, "unprotect", "s", *b)
    assert r.returncode == 0 and "no protection marks" in r.stdout
    r = hotc(tmp_path, "destroy", "s", "--auto-approve", *b)
    assert r.returncode == 0, r.stderr


def test_protect_names_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    assert hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve").returncode == 0
    r = hotc(tmp_path, "protect", "s", "wbe")
    assert r.returncode == 1 and "matches no resource" in r.stderr and "'web'" in r.stderr
    r = hotc(tmp_path, "protect", "x")
    assert r.returncode == 1 and "not found" in r.stderr and "s" in r.stderr
    assert not (tmp_path / ".hotc" / "x.lock").exists()  # asking for a stack that is not there locks nothing
    r = hotc(tmp_path, "unprotect", "s", "a")
    assert r.returncode == 1 and "is not protected" in r.stderr
    # the marks are part of the state document (and its schema)
    assert hotc(tmp_path, "protect", "s", "a", "--reason", "r").returncode == 0
    doc = json.loads((tmp_path / ".hotc" / "s.json").read_text())
    assert doc["protected"]["a"]["reason"] == "r" and "@" in doc["protected"]["a"]["by"]
