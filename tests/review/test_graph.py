"""``hotc graph``: DOT and Mermaid of a plan (actions, replacements, critical path), a saved plan, a stack;
SVG/PNG through Graphviz (installed by the project's set-up)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hotc.cli.app import app, main
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.render.graph import from_plan, render_dot, render_mermaid

runner = CliRunner()

V1 = """
heat_template_version: 2018-08-31
parameters:
  n: {type: number, default: 8}
resources:
  pw:
    type: OS::Heat::RandomString
    properties: {length: {get_param: n}}
  cfg:
    type: OS::Heat::Value
    properties: {value: {get_attr: [pw, value]}}
  app:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [cfg, value]}}
  lonely:
    type: OS::Heat::None
"""


def _w(p: Path, text: str) -> Path:
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _plan() -> Plan:
    return Plan(
        stack_name="s",
        mode="normal",
        changes=(
            ResourceChange("a", "OS::Heat::None", Action.REPLACE, {}, {}, action_reason="replace_by_request"),
            ResourceChange("b", "OS::Heat::None", Action.UPDATE, {}, {}, depends_on=("a",)),
            ResourceChange("c", "OS::Heat::None", Action.DELETE, {}, None),
            ResourceChange("d", "OS::Heat::None", Action.NOOP, {}, {}, depends_on=("a",)),
        ),
    )


def test_dot_colours_actions_marks_replacements_and_the_critical_path() -> None:
    model = from_plan(_plan(), ("a", "b"))
    dot = render_dot(model, "t")
    line = {ln.split(" [", 1)[0].strip(): ln for ln in dot.splitlines() if " [label=" in ln}
    assert "peripheries=2" in line['"a"'] and "#cf222e" in line['"a"']  # replace: red, double border
    assert "#bf8700" in line['"b"']  # update: amber
    assert "dashed" in line['"c"']  # delete
    assert "penwidth=3" in line['"a"'] and "penwidth=3" in line['"b"'] and "penwidth=3" not in line['"d"']
    assert '"a" -> "b" [penwidth=3];' in dot and '"a" -> "d";' in dot


def test_mermaid_has_classes_per_action_and_bold_critical_edges() -> None:
    text = render_mermaid(from_plan(_plan(), ("a", "b"), include_noop=False))
    assert text.startswith("flowchart LR\n")
    assert "n0_a[[" in text  # replace as a subroutine shape
    assert "class n0_a replace" in text and "class n1_b update" in text
    assert "linkStyle 0 stroke-width:4px" in text
    assert "_d" not in text  # no-op left out


def test_graph_cli_plan_of_an_update(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _w(tmp_path / "s.yaml", V1)
    assert runner.invoke(app, ["apply", "-t", "s.yaml", "--auto-approve"]).exit_code == 0
    res = runner.invoke(app, ["graph", "-t", "s.yaml", "--parameter", "n=12"])
    assert res.exit_code == 0, res.output
    dot = res.stdout
    line = {ln.split(" [", 1)[0].strip(): ln for ln in dot.splitlines() if " [label=" in ln}
    assert "replace" in line['"pw"'] and "peripheries=2" in line['"pw"']
    assert '"pw" -> "cfg"' in dot and '"cfg" -> "app"' in dot
    assert "no-op" in line['"lonely"']
    # the state's graph: no actions
    res = runner.invoke(app, ["graph", "s"])
    assert res.exit_code == 0 and '"pw" -> "cfg";' in res.stdout and "replace" not in res.stdout
    # a saved plan
    assert runner.invoke(app, ["plan", "-t", "s.yaml", "--parameter", "n=12", "-o", "p.json"]).exit_code == 0
    res = runner.invoke(app, ["graph", "p.json", "--format", "mermaid"])
    assert res.exit_code == 0 and "class" in res.stdout and "replace" in res.stdout


@pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz not installed (tests/cloud/10-infra.sh installs it)"
)
def test_graph_svg_and_png_through_graphviz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _w(tmp_path / "s.yaml", V1)
    res = runner.invoke(app, ["graph", "-t", "s.yaml", "--format", "svg", "-o", "g.svg"])
    assert res.exit_code == 0, res.output
    svg = (tmp_path / "g.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and ">cfg<" in svg
    res = runner.invoke(app, ["graph", "-t", "s.yaml", "--format", "png", "-o", "g.png"])
    assert res.exit_code == 0 and (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_graph_without_graphviz_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot on PATH
    _w(tmp_path / "s.yaml", V1)
    code, _out, err = run(capsys, "graph", "-t", "s.yaml", "--format", "svg", "-o", "g.svg")
    assert code == 1
    assert "apt-get install graphviz" in err and not (tmp_path / "g.svg").exists()


def test_graph_of_an_unknown_stack_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _out, err = run(capsys, "graph", "nothing")
    assert code == 1 and "neither a plan file nor a stack" in err and "Traceback" not in err
