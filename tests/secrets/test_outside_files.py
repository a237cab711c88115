"""get_file of a file outside the template's directory tree (/etc/passwd, ~/.ssh/id_rsa): validate warns naming
the file; plan and apply refuse to copy it into saved plans and the state unless --allow-outside-files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.secrets.helpers import hotc

SECRET_FILE_TEXT = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key-7Qx"


def _layout(tmp: Path) -> tuple[Path, Path]:
    """A template in tmp/app reading ../home/.ssh/id_rsa (outside) and scripts/boot.sh (inside)."""
    secret = tmp / "home" / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_text(SECRET_FILE_TEXT)
    app = tmp / "app"
    (app / "scripts").mkdir(parents=True)
    (app / "scripts" / "boot.sh").write_text("echo boot\n")
    (app / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  inside:\n"
        "    type: OS::Heat::TestResource\n"
        "    properties: {value: {get_file: scripts/boot.sh}}\n"
        "  outside:\n"
        "    type: OS::Heat::TestResource\n"
        "    properties: {value: {get_file: ../home/.ssh/id_rsa}}\n"
    )
    return app / "t.yaml", secret


def test_validate_warns_naming_the_file(workdir: Path, capsys: Any) -> None:
    tpl, secret = _layout(workdir)
    code, out, err = hotc(capsys, "validate", "-t", str(tpl))
    assert code == 0 and "OK" in out
    warnings = [line for line in (out + err).splitlines() if "warning: get_file reads" in line]
    assert (
        len(warnings) == 1
        and str(secret) in warnings[0]
        and "outside the template's directory" in warnings[0]
    )
    assert "t.yaml:8:" in warnings[0]  # where the get_file is
    assert "boot.sh" not in out + err  # a file inside the tree is fine


def test_plan_and_apply_refuse_it_without_allow_outside_files(workdir: Path, capsys: Any) -> None:
    tpl, secret = _layout(workdir)
    for args in (
        ("plan", "-t", str(tpl)),
        ("plan", "-t", str(tpl), "-o", "plan.json"),
        ("apply", "-t", str(tpl), "--auto-approve"),
    ):
        code, out, err = hotc(capsys, *args)
        assert code == 1, (args, out, err)
        assert f"error: get_file reads {secret}" in err and "--allow-outside-files" in err
        assert SECRET_FILE_TEXT not in out + err
    assert not (workdir / "plan.json").exists() and not (workdir / ".hotc" / "t.json").exists()
    code, out, err = hotc(capsys, "plan", "--help")
    assert "--allow-outside-files" in out
    code, out, err = hotc(capsys, "apply", "--help")
    assert "--allow-outside-files" in out


def test_allow_outside_files_embeds_it_with_a_warning(workdir: Path, capsys: Any) -> None:
    tpl, secret = _layout(workdir)
    code, out, err = hotc(capsys, "plan", "-t", str(tpl), "-o", "plan.json", "--allow-outside-files")
    assert code == 0, err
    assert f"warning: get_file reads {secret}" in err
    assert SECRET_FILE_TEXT in json.dumps(json.loads((workdir / "plan.json").read_text()))
    code, out, err = hotc(capsys, "apply", "plan.json")  # the saved plan was made with it: no flag again
    assert code == 0, err
    code, out, err = hotc(capsys, "apply", "-t", str(tpl), "--auto-approve", "--allow-outside-files")
    assert code == 0 and "No changes" in out, err


def test_a_symlink_inside_the_tree_to_a_file_outside_counts_as_outside(workdir: Path, capsys: Any) -> None:
    tpl, secret = _layout(workdir)
    (tpl.parent / "key").symlink_to(secret)
    tpl.write_text(tpl.read_text().replace("../home/.ssh/id_rsa", "key"))
    code, out, err = hotc(capsys, "plan", "-t", str(tpl))
    assert code == 1 and f"-> {secret}" in err, err
