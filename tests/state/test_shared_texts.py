"""A long text held by many resources (group members that read the same large file) is stored once per state
document, under its digest: the document stays deterministic and reads back to the same state; a document
without such texts is unchanged (format 3)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from hotc.state import codec, secrets
from hotc.state.document import ResourceState, StackState
from tests.clirun import run_hotc

SCHEMA = json.loads((Path(codec.__file__).parent / codec.SCHEMA_FILE).read_text())
BIG = "#!/bin/sh\n" + "echo configure\n" * 3000  # 45 KB
BASE = StackState.new("s")
STORED = json.dumps(BIG)[1:-1].encode()  # the text as it appears in a JSON document


def _members(n: int, text: str = BIG) -> StackState:
    res = {
        f"g[{i}]": ResourceState(
            f"g[{i}]",
            "OS::Heat::Value",
            f"id-{i}",
            "CREATE_COMPLETE",
            properties={"value": text, "small": "x"},
            attributes={"value": text},
        )
        for i in range(n)
    }
    return replace(BASE, resources=res)


def test_a_text_held_by_every_member_is_stored_once() -> None:
    state = _members(20)
    data = codec.dumps(state)
    assert data.count(STORED) == 1
    assert len(data) < 2 * len(STORED)
    doc = json.loads(data)
    assert doc["format_version"] == codec.SHARED_FORMAT_VERSION
    jsonschema.validate(doc, SCHEMA)
    back = codec.loads(data)
    assert back.resources == state.resources
    assert codec.dumps(back) == data  # deterministic
    assert codec.state_to_dict(back) == doc
    assert codec.state_from_dict(codec.state_to_dict(back)).resources == state.resources


def test_short_texts_keep_format_3() -> None:
    data = codec.dumps(_members(3, "short"))
    doc = json.loads(data)
    assert doc["format_version"] == 3 and "shared" not in doc


def test_an_altered_shared_text_is_a_corrupt_state() -> None:
    doc = json.loads(codec.dumps(_members(2)))
    digest = next(iter(doc["shared"]))
    doc["shared"][digest] = BIG + "rm -rf /\n"
    with pytest.raises(codec.StateFormatError, match="does not match its digest"):
        codec.state_from_dict(doc)


def test_a_newer_format_is_still_refused() -> None:
    doc = json.loads(codec.dumps(_members(2)))
    doc["format_version"] = codec.SHARED_FORMAT_VERSION + 1
    with pytest.raises(codec.StateFormatError, match="newer than this hotc"):
        codec.state_from_dict(doc)


def test_a_long_secret_stays_masked_not_shared() -> None:
    key = secrets.normalise_key("k")
    rs = replace(_members(1).resources["g[0]"], sensitive_paths=("value",), attributes={})
    data = codec.dumps(replace(BASE, resources={"g[0]": rs}), key)
    assert STORED not in data
    assert "shared" not in json.loads(data)
    assert codec.loads(data, key=key).resources["g[0]"].properties["value"] == BIG


def test_an_apply_of_a_group_reading_a_large_file_stores_it_once(tmp_path: Path) -> None:
    (tmp_path / "member.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  blob:\n    type: OS::Heat::Value\n"
        "    properties:\n      value: {get_file: big.sh}\n"
        "outputs:\n  text:\n    value: {get_attr: [blob, value]}\n"
    )
    (tmp_path / "big.sh").write_text(BIG)
    (tmp_path / "g.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  group:\n    type: OS::Heat::ResourceGroup\n"
        "    properties:\n      count: 10\n      resource_def: {type: member.yaml}\n"
        "outputs:\n  first:\n    value: {get_attr: [group, resource.0.text]}\n"
    )
    res = run_hotc(tmp_path, "apply", "-t", "g.yaml", "--auto-approve")
    assert res.returncode == 0, res.stderr
    data = (tmp_path / ".hotc" / "g.json").read_bytes()
    # the template's own copy of the file, the output's value, and one shared copy for the twenty records
    # (ten members' properties and attributes) that hold it
    assert data.count(STORED) == 3 and len(data) < 4 * len(STORED)
    out = run_hotc(tmp_path, "output", "g", "first", "--format", "json")
    assert out.returncode == 0 and json.loads(out.stdout) == BIG
    shown = run_hotc(tmp_path, "resource", "show", "g", "group[3].blob")
    assert shown.returncode == 0 and "echo configure" in shown.stdout, shown.stdout + shown.stderr
    plan = run_hotc(tmp_path, "plan", "-t", "g.yaml", "--detailed-exitcode")
    assert plan.returncode == 0, plan.stdout + plan.stderr  # the state reads back to what was applied
    shutil.rmtree(tmp_path / ".hotc")
