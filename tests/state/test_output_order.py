"""Outputs keep the template's order, as Heat lists them: the state document stays key-sorted (its bytes and
digest deterministic) and records the order in ``output_order`` only when it is not the sorted one."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from hotc.state import codec
from hotc.state.document import OutputState, StackState
from tests.clirun import run_hotc

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((Path(codec.__file__).parent / codec.SCHEMA_FILE).read_text())
ORDER = ["zeta", "alpha", "mid"]


BASE = StackState.new("s")


def _state(names: list[str]) -> StackState:
    return replace(BASE, outputs={n: OutputState(value=n.upper()) for n in names})


def test_the_order_survives_a_round_trip_and_the_bytes_are_deterministic() -> None:
    data = codec.dumps(_state(ORDER))
    doc = json.loads(data)
    assert list(doc["outputs"]) == sorted(ORDER)  # the object stays key-sorted
    assert doc["output_order"] == ORDER
    jsonschema.validate(doc, SCHEMA)
    back = codec.loads(data)
    assert list(back.outputs) == ORDER
    assert codec.dumps(back) == data


def test_sorted_outputs_write_no_order_field() -> None:
    assert "output_order" not in json.loads(codec.dumps(_state(sorted(ORDER))))
    assert "output_order" not in json.loads(codec.dumps(_state([])))


def test_a_new_order_is_a_content_change() -> None:
    assert codec.content_changed(_state(sorted(ORDER)), _state(ORDER))
    assert not codec.content_changed(_state(ORDER), _state(ORDER))


def test_an_order_naming_unknown_or_missing_outputs_still_reads() -> None:
    doc = json.loads(codec.dumps(_state(ORDER)))
    doc["output_order"] = ["mid", "gone", "mid"]
    assert list(codec.state_from_dict(doc).outputs) == ["mid", "alpha", "zeta"]
    doc["output_order"] = [1]
    with pytest.raises(codec.StateFormatError, match="output_order"):
        codec.state_from_dict(doc)


def test_output_and_show_list_outputs_in_the_template_order(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples" / "quickstart.yaml", tmp_path / "quickstart.yaml")
    res = run_hotc(tmp_path, "apply", "-t", "quickstart.yaml", "--auto-approve")
    assert res.returncode == 0, res.stderr
    template_order = ["app_name", "replicas", "web_output", "password_length", "backup"]
    assert template_order != sorted(template_order)
    applied = res.stdout.rsplit("Outputs:", 1)[1]
    assert [line.split(" = ")[0] for line in applied.strip().splitlines()] == template_order
    text = run_hotc(tmp_path, "output", "quickstart").stdout
    assert [line.split(" = ")[0] for line in text.splitlines()] == template_order
    assert list(json.loads(run_hotc(tmp_path, "output", "quickstart", "--format", "json").stdout)) == (
        template_order
    )
    shown = run_hotc(tmp_path, "show", "quickstart").stdout.split("Outputs:")[1]
    assert [line.split(" = ")[0].strip() for line in shown.strip().splitlines()] == template_order
    assert list(
        json.loads(run_hotc(tmp_path, "show", "quickstart", "--format", "json").stdout)["outputs"]
    ) == (template_order)
