"""A local state whose ``.hotc/state.key`` went missing while the state holds ciphertext: plan and apply stop with
a clear error (what was lost, how to restore it) and never make a new key over the old secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.secrets.helpers import HIDDEN, files_under, hotc

PARAM = f"db_pass={HIDDEN}"


def _applied(workdir: Path, capsys: Any) -> bytes:
    code, _out, err = hotc(capsys, "apply", "-t", "s.yaml", "--parameter", PARAM, "--auto-approve")
    assert code == 0, err
    key = workdir / ".hotc" / "state.key"
    assert key.exists()
    return key.read_bytes()


def test_plan_and_apply_refuse_a_state_whose_key_is_missing(workdir: Path, capsys: Any) -> None:
    key = _applied(workdir, capsys)
    (workdir / ".hotc" / "state.key").unlink()
    before = files_under(workdir / ".hotc")
    for args in (
        ("plan", "-t", "s.yaml", "--parameter", PARAM),
        ("plan", "-t", "s.yaml", "--parameter", PARAM, "--format", "json"),
        ("apply", "-t", "s.yaml", "--parameter", PARAM, "--parameter", "tag=v2", "--auto-approve"),
        ("destroy", "s", "--auto-approve"),
    ):
        code, out, err = hotc(capsys, *args)
        assert code == 1, (args, out, err)
        assert "encrypted secrets" in err and "state.key" in err and "HOTC_STATE_KEY" in err, err
        assert "Restore the key file" in err
        # nothing was written: no new key, the state and its backup untouched
        assert not (workdir / ".hotc" / "state.key").exists()
        assert files_under(workdir / ".hotc") == before
    # restoring the key makes everything work again, with the old secrets
    (workdir / ".hotc" / "state.key").write_bytes(key)
    code, out, err = hotc(capsys, "output", "s", "pw", "--show-sensitive")
    assert code == 0 and out.strip() == f"password={HIDDEN}", err
    code, out, err = hotc(capsys, "plan", "-t", "s.yaml", "--parameter", PARAM)
    assert code == 0 and "No changes" in out, out + err


def test_no_new_key_is_made_while_another_stack_holds_ciphertext(workdir: Path, capsys: Any) -> None:
    _applied(workdir, capsys)
    (workdir / ".hotc" / "state.key").unlink()
    (workdir / "other.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::None}\n"
    )
    code, out, err = hotc(capsys, "apply", "-t", "other.yaml", "--auto-approve")
    assert code == 1 and "encrypted secrets" in err and "s.json" in err, out + err
    assert not (workdir / ".hotc" / "state.key").exists()
    assert not (workdir / ".hotc" / "other.json").exists()


def test_a_state_without_ciphertext_needs_no_key(workdir: Path, capsys: Any) -> None:
    (workdir / "plain.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::TestResource, properties: {value: x}}\n"
    )
    code, _out, err = hotc(capsys, "apply", "-t", "plain.yaml", "--auto-approve")
    assert code == 0, err
    (workdir / ".hotc" / "state.key").unlink()
    doc = json.loads((workdir / ".hotc" / "plain.json").read_text())
    assert doc["resources"]["r"]["properties"] == {"value": "x"}
    code, out, err = hotc(capsys, "plan", "-t", "plain.yaml")
    assert code == 0 and "No changes" in out, err
