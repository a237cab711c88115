"""`hotc eval EXPR -t T`: one expression against a template's parameters (resources unknown)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hotc.cli.app import app, main
from tests.clirun import run_hotc

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()

TEMPLATE = """\
heat_template_version: wallaby
parameters:
  host: {type: string, default: example.com}
  port: {type: number, default: 8080}
  nets: {type: comma_delimited_list, default: "a,b"}
  secret: {type: string}
conditions:
  is_example: {equals: [{get_param: host}, example.com]}
resources:
  web:
    type: OS::Heat::None
    properties:
      user_data: {get_file: ud.sh}
"""


@pytest.fixture
def tmpl(tmp_path: Path) -> Path:
    (tmp_path / "ud.sh").write_text("echo hi\n")
    p = tmp_path / "site.yaml"
    p.write_text(TEMPLATE)
    return p


def _eval(tmpl: Path, expr: str, *extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["eval", expr, "-t", str(tmpl), *extra])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("expr", "args", "expected"),
    [
        ("{get_param: host}", (), "example.com"),
        ("{get_param: port}", ("--parameter", "port=9000"), 9000),
        (
            "{make_url: {scheme: http, host: {get_param: host}, port: {get_param: port}}}",
            (),
            "http://example.com:8080",
        ),
        ("{get_attr: [web, first_address]}", (), "(known after apply: web.first_address)"),
        ("{if: [is_example, {get_param: nets}, []]}", (), ["a", "b"]),
        ("{if: [is_example, x, y]}", ("--parameter", "host=other"), "y"),
        ("{get_file: ud.sh}", (), "echo hi\n"),
        ("{get_param: 'OS::stack_name'}", (), "site"),
        ("{get_param: 'OS::stack_name'}", ("--stack-name", "prod"), "prod"),
        ("[1, {if: [false, x]}, true]", (), [1, True]),
        ("{list_join: ['-', [{get_param: host}, {get_resource: web}]]}", (), "(known after apply: web.id)"),
    ],
)
def test_eval_values(tmpl: Path, expr: str, args: tuple[str, ...], expected: object) -> None:
    code, out = _eval(tmpl, expr, *args)
    assert code == 0, out
    assert json.loads(out) == expected


def test_eval_json_format(tmpl: Path) -> None:
    code, out = _eval(
        tmpl, "{str_replace: {template: 'ip=$A', params: {$A: {get_attr: [web, ip]}}}}", "--format", "json"
    )
    assert code == 0, out
    assert json.loads(out) == {"value": "(known after apply: web.ip)", "known": False, "waits_on": ["web.ip"]}


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("{get_attr: web}", '<expr>:1:12: error: invalid arguments to "get_attr"'),
        ("{get_param: nope}", '<expr>:1:1: error: the parameter "nope" is not declared'),
        ("{get_param: secret}", "the parameter 'secret' has no value: give it with --parameter secret=VALUE"),
        ("{str_replace_strict: {template: a, params: {b: c}}}", "not found in the template: b"),
        ("{get_attr: [web", "YAML syntax error"),
        ("{'Fn::Join': [',', [a]]}", '"Fn::Join" is not supported in heat_template_version wallaby'),
    ],
)
def test_eval_errors_are_positioned_not_tracebacks(
    tmpl: Path, expr: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["eval", expr, "-t", str(tmpl)])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert message in err, err
    assert "Traceback" not in err


def test_eval_bad_template(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("heat_template_version: 2099-01-01\nresources: {}\n")
    with pytest.raises(SystemExit) as info:
        main(["eval", "{get_param: x}", "-t", str(bad)])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert "bad.yaml:1:" in err and "2021-04-16" in err


def test_eval_through_the_entry_point(tmpl: Path) -> None:
    proc = run_hotc(tmpl.parent, "eval", "{get_attr: [web, first_address]}", "-t", str(tmpl))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == '"(known after apply: web.first_address)"'
