"""CI ergonomics: --version, shell completion, --no-color, stack list with status and times, heartbeat lines."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import pytest

from hotc import __version__
from hotc.apply.progress import PlainProgress
from hotc.cli.app import main
from hotc.state.events import Event


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"hotc {__version__}"


def test_shell_completion_is_offered(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "--install-completion" in out and "--show-completion" in out


def test_no_color_flag_sets_no_color(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    monkeypatch.setenv("NO_COLOR", "")  # so the teardown restores the variable as it was
    monkeypatch.delenv("NO_COLOR")

    run(capsys, "--no-color", "stack", "list")
    assert os.environ.get("NO_COLOR") == "1"


def test_stack_list_shows_status_and_hides_destroyed_stacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    t = "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::None}\n"
    for name in ("alpha", "beta"):
        (tmp_path / f"{name}.yaml").write_text(t)
        assert run(capsys, "apply", "-t", f"{name}.yaml", "--auto-approve")[0] == 0
    assert run(capsys, "destroy", "beta", "--auto-approve")[0] == 0
    code, out, _ = run(capsys, "stack", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["STACK", "STATUS", "RESOURCES"]
    assert any(ln.startswith("alpha ") and "CREATE_COMPLETE" in ln and " 1 " in ln for ln in lines)
    assert not any(ln.startswith("beta") for ln in lines)
    code, out, _ = run(capsys, "stack", "list", "--all", "--format", "json")
    stacks = {s["stack_name"]: s for s in json.loads(out)["stacks"]}
    assert stacks["alpha"]["resources"] == 1 and stacks["alpha"]["updated_at"]
    assert "beta" in stacks and stacks["beta"]["resources"] == 0


def test_heartbeat_names_what_is_still_in_flight() -> None:
    now = [100.0]
    out = io.StringIO()
    p = PlainProgress(out, heartbeat=0, clock=lambda: now[0])
    p(Event.now("web", "OS::Nova::Server", "CREATE_IN_PROGRESS"))
    p(Event.now("db", "OS::Cinder::Volume", "DELETE_IN_PROGRESS"))
    now[0] = 121.4
    p.beat()
    p(Event.now("db", "OS::Cinder::Volume", "DELETE_COMPLETE"))
    now[0] = 141.0
    p.beat()
    lines = out.getvalue().splitlines()
    assert "db: still deleting… 21 s elapsed" in lines and "web: still creating… 21 s elapsed" in lines
    assert lines[-1] == "web: still creating… 41 s elapsed"
    assert not any("db: still" in ln for ln in lines[lines.index("db: DELETE_COMPLETE after 21.4s") :])


def test_heartbeat_thread_beats_until_the_progress_closes() -> None:
    class Gate(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.seen = threading.Event()

        def write(self, s: str) -> int:
            if "still creating" in s:
                self.seen.set()
            return super().write(s)

    out = Gate()
    with PlainProgress(out, heartbeat=0.01) as p:
        p(Event.now("web", "OS::Nova::Server", "CREATE_IN_PROGRESS"))
        assert out.seen.wait(30), "no heartbeat line"
    assert p._thread is not None and not p._thread.is_alive()


def test_machine_readable_listings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::None}\n"
    )
    assert run(capsys, "apply", "-t", "s.yaml", "--auto-approve")[0] == 0
    code, out, _ = run(capsys, "events", "s", "--format", "json")
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and {"address", "type", "status", "time", "id"} <= set(events[0])
    assert any(e["address"] == "r" and e["status"] == "CREATE_COMPLETE" for e in events)
    code, out, _ = run(capsys, "template", "show", "s", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["files"][doc["main"]].startswith("heat_template_version")
    code, out, _ = run(capsys, "state", "list", "s", "--format", "json")
    assert code == 0 and json.loads(out)["resources"][0]["address"] == "r"
    code, out, _ = run(capsys, "state", "history", "s", "--format", "json")
    versions = json.loads(out)["versions"]
    assert code == 0 and versions[0]["current"] is True and versions[0]["serial"] >= 1
    code, _out, err = run(capsys, "events", "s", "--format", "yaml")
    assert code == 1 and "choose one of text, json" in err


def test_output_descriptions_come_from_the_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::None}\n"
        "outputs:\n  url:\n    description: Where the app answers\n    value: http://x\n  bare: {value: 1}\n"
    )
    assert run(capsys, "apply", "-t", "s.yaml", "--auto-approve")[0] == 0
    code, out, _ = run(capsys, "output", "s", "--format", "json")
    doc = json.loads(out)
    assert (
        code == 0
        and doc["url"]["description"] == "Where the app answers"
        and doc["bare"]["description"] == ""
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "-t", "big.yaml"],
        ["plan", "-t", "big.yaml"],
        ["apply", "-t", "big.yaml", "--auto-approve"],
        ["eval", "{get_param: p}", "-t", "big.yaml"],
        ["graph", "-t", "big.yaml"],
    ],
)
def test_every_command_that_loads_a_template_takes_max_template_size(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hotc.cli.common import DEFAULT_MAX_TEMPLATE_SIZE
    from hotc.parser.yamlload import DEFAULT_MAX_TEMPLATE_SIZE as PARSER_DEFAULT

    assert DEFAULT_MAX_TEMPLATE_SIZE == PARSER_DEFAULT
    monkeypatch.chdir(tmp_path)
    filler = "#" + "x" * 200 + "\n"
    body = "heat_template_version: 2018-08-31\nparameters:\n  p: {type: string, default: v}\n"
    body += "resources:\n  r: {type: OS::Heat::None}\n" + filler * 3000  # about 600 KB, over Heat's 512 KiB
    (tmp_path / "big.yaml").write_text(body)
    code, _out, err = run(capsys, *argv)
    assert code == 1 and "--max-template-size" in err + _out
    code, out, err = run(capsys, *argv, "--max-template-size", "2000000")
    assert code == 0, err


def test_check_suspend_resume_report_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::RandomString}\n"
        "  v: {type: OS::Heat::Value, properties: {value: 1}}\n"
    )
    assert run(capsys, "apply", "-t", "s.yaml", "--auto-approve")[0] == 0
    code, out, _ = run(capsys, "check", "s", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "CHECK_COMPLETE"
    assert sorted((r["address"], r["status"]) for r in doc["resources"]) == [
        ("r", "CHECK_COMPLETE"),
        ("v", "CHECK_COMPLETE"),
    ]
    for verb, final in (("suspend", "SUSPEND_COMPLETE"), ("resume", "RESUME_COMPLETE")):
        code, out, _ = run(capsys, verb, "s", "--format", "json")
        doc = json.loads(out)
        assert code == 0 and doc["status"] == final and doc["stack"] == "s"


def test_apply_and_destroy_report_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  v: {type: OS::Heat::Value, properties: {value: 1}}\n"
    )
    code, _out, err = run(capsys, "apply", "-t", "s.yaml", "--format", "json")
    assert code == 1 and "needs --auto-approve" in err
    code, out, err = run(capsys, "apply", "-t", "s.yaml", "--auto-approve", "--format", "json")
    doc = json.loads(out)  # stdout holds the document alone; the plan and progress went to stderr
    assert code == 0 and doc["exit_code"] == 0 and doc["status"] == "CREATE_COMPLETE"
    assert [(r["address"], r["status"]) for r in doc["resources"]] == [("v", "CREATE_COMPLETE")]
    assert "v: CREATE_COMPLETE" in err
    assert run(capsys, "plan", "-t", "s.yaml", "-o", "p.json")[0] == 0
    code, out, _ = run(capsys, "apply", "p.json", "--format", "json")
    assert code == 0 and json.loads(out)["stack"] == "s"
    code, out, _ = run(capsys, "destroy", "s", "--auto-approve", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "DELETE_COMPLETE"
    assert [(r["address"], r["status"]) for r in doc["resources"]] == [("v", "DELETE_COMPLETE")]
