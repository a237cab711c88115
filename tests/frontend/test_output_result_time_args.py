"""Argument shapes Heat checks only when it resolves a function (its ``result()``): inside an output they are
that output's error at create, and ``template validate`` accepts the template (Heat 27 answers
recorded by the differential oracle, tests/oracle). Shapes Heat checks when it parses stay validate errors."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clirun import run_hotc

TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  v: {type: OS::Heat::Value, properties: {value: 2}}
outputs:
  good: {value: {get_attr: [v, value]}}
  merge: {value: {map_merge: [{a: 1}, x]}}
  concat: {value: {list_concat: 5}}
  digest: {value: {digest: [md5]}}
  replace: {value: {map_replace: [{a: 1}, {keys: x}]}}
  split: {value: {str_split: [5, 'a,b']}}
  file: {value: {get_file: [a]}}
"""


def test_result_time_shapes_error_only_their_output(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("creating the stack gives this output an error") == 6
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_hotc(tmp_path, "output", "t", "--format", "json")
    got = json.loads(r.stdout)
    assert got["good"]["value"] == 2
    for name in ("merge", "concat", "digest", "replace", "split", "file"):
        assert got[name]["value"] is None and got[name]["error"], name


def test_parse_time_shapes_stay_validate_errors(tmp_path: Path) -> None:
    # StrSplit refuses a string or a map as its whole argument when Heat parses the template; list_join's
    # shape and map-ness of str_replace likewise
    for value in (
        "{str_split: {a: 1}}",
        "{str_split: ','}",
        "{list_join: ','}",
        "{str_replace: [x, {a: b}]}",
    ):
        (tmp_path / "t.yaml").write_text(
            f"heat_template_version: 2018-08-31\nresources: {{}}\noutputs:\n  o: {{value: {value}}}\n"
        )
        r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
        assert r.returncode == 1, (value, r.stdout)


def test_fn_replace_checks_its_template_string_only_on_resolving(tmp_path: Path) -> None:
    # Heat 27 (oracle case 622): 2013-05-23 Fn::Replace [{a: X}, 5] is accepted by template validate and that
    # output errors with '"Fn::Replace" template must be a string'; a first argument that is no map fails parse
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2013-05-23\nresources: {}\noutputs:\n"
        "  bad: {value: {'Fn::Replace': [{a: X}, 5]}}\n  good: {value: {'Fn::Replace': [{a: X}, abc]}}\n"
    )
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(run_hotc(tmp_path, "output", "t", "--format", "json").stdout)
    assert got["good"]["value"] == "Xbc"
    assert got["bad"]["value"] is None and got["bad"]["error"]
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2013-05-23\nresources: {}\noutputs:\n  bad: {value: {'Fn::Replace': [x, abc]}}\n"
    )
    assert run_hotc(tmp_path, "validate", "-t", "t.yaml").returncode == 1
