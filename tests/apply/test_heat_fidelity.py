"""Heat fidelity classes found by the differential oracle, each checked against what the test cloud's Heat 27 answered for the same
template (recorded by hand while closing the class; the differential oracle is the systematic check).
Offline, in-process CLI: validate, apply, output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hotc.cli.app import main


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def outputs(capsys: pytest.CaptureFixture[str], stack: str) -> dict[str, object]:
    code, out, err = run(capsys, "output", stack, "--format", "json")
    assert code == 0, err
    return {k: v for k, v in json.loads(out).items()}


# ------------------------------------------------------------------ OS::Heat::None discards its properties

NONE_PROPS = """\
heat_template_version: 2018-08-31
resources:
  n:
    type: OS::Heat::None
    properties:
      a: {list_join: [',', 5]}
      b: {str_split: [',', 5]}
      c: {yaql: {expression: '1/0', data: {}}}
      d: {list_join: [',', {get_attr: [v, value]}]}
  v:
    type: OS::Heat::Value
    properties: {value: 5}
  mapped:
    type: My::Disabled
    properties:
      x: {list_join: [',', 5]}
outputs:
  o: {value: {get_attr: [n, anything]}}
  p: {value: {get_attr: [v, value]}}
"""

NONE_ENV = """\
resource_registry:
  My::Disabled: OS::Heat::None
"""


def test_none_properties_are_never_checked_nor_evaluated(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Heat 27: template validate OK, CREATE_COMPLETE, o = null, p = 5
    (work / "n.yaml").write_text(NONE_PROPS)
    (work / "env.yaml").write_text(NONE_ENV)
    code, out, err = run(capsys, "validate", "-t", "n.yaml", "-e", "env.yaml")
    assert code == 0, out + err
    assert "list_join" not in out + err
    code, out, err = run(capsys, "apply", "-t", "n.yaml", "-e", "env.yaml", "--auto-approve", "n")
    assert code == 0, out + err
    got = outputs(capsys, "n")
    assert got["o"]["value"] is None and got["p"]["value"] == 5  # type: ignore[index]


def test_properties_of_a_real_type_are_still_checked(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "v.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  v:\n    type: OS::Heat::Value\n"
        "    properties: {value: {list_join: [',', 5]}}\n"
    )
    code, out, err = run(capsys, "validate", "-t", "v.yaml")
    assert code != 0 and 'invalid arguments to "list_join"' in out + err


# ------------------------------------------------------------------ lazy conditions

LAZY = """\
heat_template_version: 2018-08-31
parameters:
  p: {type: string, default: a}
conditions:
  unused: {equals: [{yaql: {expression: '1/0', data: {}}}, 1]}
  never: false
outputs:
  taken:
    value: {if: [{equals: [{get_param: p}, a]}, ok, {yaql: {expression: '1/0', data: {}}}]}
  disabled:
    condition: never
    value: {yaql: {expression: '1/0', data: {}}}
"""


def test_what_heat_never_evaluates_reports_no_error(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Heat 27: CREATE_COMPLETE, taken = "ok", disabled = null
    (work / "lazy.yaml").write_text(LAZY)
    code, out, err = run(capsys, "apply", "-t", "lazy.yaml", "--auto-approve")
    assert code == 0, out + err
    got = outputs(capsys, "lazy")
    assert got["taken"] == {"value": "ok", "description": "", "sensitive": False}
    assert got["disabled"] == {"value": None, "description": "", "sensitive": False}


@pytest.mark.parametrize(
    "outputs_section",
    [
        "  o:\n    condition: {equals: [{yaql: {expression: '1/0', data: {}}}, 1]}\n    value: 1\n",
        "  o:\n    condition: broken\n    value: 1\n",
        "  o:\n    value: {if: [broken, 1, 2]}\n",
        "  o:\n    value: [{if: [{equals: [{yaql: {expression: '1/0', data: {}}}, 1]}, 1, 2]}]\n",
    ],
    ids=["output-condition", "named-output-condition", "if-in-output", "inline-if-in-output"],
)
def test_a_condition_heat_resolves_and_cannot_rejects_the_stack(
    work: Path, capsys: pytest.CaptureFixture[str], outputs_section: str
) -> None:
    # Heat 27: the stack create is refused (the output's condition is resolved when the outputs load)
    conditions = ""
    if "broken" in outputs_section:  # a named condition: only the output asks for it
        conditions = "conditions:\n  broken: {equals: [{yaql: {expression: '1/0', data: {}}}, 1]}\n"
    (work / "c.yaml").write_text(
        "heat_template_version: 2018-08-31\n" + conditions + "outputs:\n" + outputs_section
    )
    code, out, err = run(capsys, "apply", "-t", "c.yaml", "--auto-approve")
    assert code != 0
    assert "ZeroDivisionError" in out + err
    assert not (work / ".hotc" / "c.json").exists() and "Outputs:" not in out


def test_an_unreferenced_condition_is_not_evaluated_by_plan(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "u.yaml").write_text(
        "heat_template_version: 2018-08-31\nconditions:\n"
        "  unused: {equals: [{yaql: {expression: '1/0', data: {}}}, 1]}\n"
        "  used: true\n"
        "resources:\n  v:\n    type: OS::Heat::Value\n    condition: used\n    properties: {value: 1}\n"
    )
    code, out, err = run(capsys, "plan", "-t", "u.yaml")
    assert code == 0, out + err
    assert "ZeroDivisionError" not in out + err


# ------------------------------------------------------------------ parameter defaults


@pytest.mark.parametrize(
    ("ptype", "default", "reason"),
    [
        ("number", "xyz", "could not convert"),
        ("boolean", "maybe", "Unrecognized value 'maybe'"),
    ],
)
def test_a_default_of_the_wrong_type_passes_validate_and_fails_apply(
    work: Path, capsys: pytest.CaptureFixture[str], ptype: str, default: str, reason: str
) -> None:
    # Heat 27: template validate OK; stack create 400 "Parameter 'p' is invalid: ..."
    (work / "d.yaml").write_text(
        f"heat_template_version: 2018-08-31\nparameters:\n  p:\n    type: {ptype}\n    default: {default}\n"
        "outputs:\n  o: {value: {get_param: p}}\n"
    )
    code, out, err = run(capsys, "validate", "-t", "d.yaml")
    assert code == 0, out + err
    assert "creating the stack would fail" in out + err
    code, out, err = run(capsys, "apply", "-t", "d.yaml", "--auto-approve")
    assert code != 0
    assert "Parameter 'p' is invalid" in out + err and reason in out + err
    assert not (work / ".hotc" / "d.json").exists()


# ------------------------------------------------------------------ yaql results typed as Heat types them

YAQL_SETS = """\
heat_template_version: 2018-08-31
outputs:
  join: {value: {list_join: [',', {yaql: {expression: '$.data.keys()', data: {a: 1, b: 2}}}]}}
  concat: {value: {list_concat: [{yaql: {expression: '$.data.toSet()', data: [1, 2]}}, [3]]}}
  filter: {value: {filter: [[1], {yaql: {expression: '$.data.toSet()', data: [1, 2]}}]}}
  repeat: {value: {repeat: {template: v<%x%>, for_each: {'%x%': {yaql: {expression: '$.data.toSet()', data: [x]}}}}}}
  contains: {value: {contains: [x, {yaql: {expression: '$.data.toSet()', data: [x, y]}}]}}
  length: {value: {yaql: {expression: '$.data.toSet().len()', data: [x, y, x]}}}
  plain: {value: {yaql: {expression: '$.data.toSet()', data: [pear, apple, fig, kiwi, plum, date, lime]}}}
  list: {value: {list_join: [',', {yaql: {expression: '$.data.select($)', data: [x, y]}}]}}
"""


def test_a_yaql_set_is_no_list_for_the_list_functions(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Heat 27: CREATE_COMPLETE; join/concat/filter/repeat/contains carry these errors, the others resolve
    (work / "y.yaml").write_text(YAQL_SETS)
    code, out, err = run(capsys, "apply", "-t", "y.yaml", "--auto-approve")
    assert code == 0, out + err
    got = outputs(capsys, "y")
    errors = {k: v.get("error") for k, v in got.items()}  # type: ignore[union-attr]
    assert '"list_join" must operate on a list' in str(errors["join"])
    assert "Items to concat must be lists" in str(errors["concat"])
    assert '"filter" only works with lists' in str(errors["filter"])
    assert 'for_each" argument to "repeat" must be lists or maps' in str(errors["repeat"])
    assert 'Second argument to "contains" should be a sequence.' in str(errors["contains"])
    assert got["length"]["value"] == 2  # type: ignore[index]
    assert got["list"]["value"] == "x,y"  # type: ignore[index]
    assert sorted(got["plain"]["value"]) == ["apple", "date", "fig", "kiwi", "lime", "pear", "plum"]  # type: ignore[index]


def test_results_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """The same template applied under two PYTHONHASHSEEDs gives the same outputs, byte for byte (a set's order
    must never leak)."""
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    seen = []
    import shutil

    d = tmp_path
    (d / "y.yaml").write_text(YAQL_SETS)
    for seed in ("1", "2"):
        shutil.rmtree(d / ".hotc", ignore_errors=True)
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(repo), "NO_COLOR": "1"}
        env.pop("HOTC_BACKEND", None)
        for argv in (["apply", "-t", "y.yaml", "--auto-approve"], ["output", "y", "--format", "json"]):
            r = subprocess.run(
                [sys.executable, "-m", "hotc", *argv],
                cwd=d,
                env=env,
                text=True,
                capture_output=True,
                timeout=120,
            )
            assert r.returncode == 0, r.stdout + r.stderr
        seen.append(r.stdout)
    assert json.loads(seen[0])["plain"]["value"] == ["apple", "date", "fig", "kiwi", "lime", "pear", "plum"]
    assert seen[0] == seen[1]


# ------------------------------------------------------------------ nested templates validated as Heat does


@pytest.mark.parametrize(
    ("child", "fragment"),
    [
        (
            "parameters:\n  p: {type: string, default: abc, constraints: [{length: {max: 2}}]}\nresources: {}\n",
            "Invalid default abc",
        ),
        ("resources:\n  x: {type: OS::No::Such}\n", "OS::No::Such"),
    ],
    ids=["nested-default-violates-constraint", "nested-unknown-type"],
)
def test_inside_a_nested_template_validate_warns_and_plan_rejects(
    work: Path, capsys: pytest.CaptureFixture[str], child: str, fragment: str
) -> None:
    # Heat 27: POST /validate of the parent 200; POST /stacks 400 (validate_nested_stack at create)
    (work / "child.yaml").write_text("heat_template_version: '2018-08-31'\n" + child)
    (work / "parent.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  c: {type: child.yaml}\n"
    )
    code, out, err = run(capsys, "validate", "-t", "parent.yaml")
    assert code == 0, out + err
    assert fragment in out + err and "creating the stack would fail" in out + err
    code, out, err = run(capsys, "plan", "-t", "parent.yaml")
    assert code != 0 and fragment in out + err
    code, out, err = run(capsys, "validate", "-t", "child.yaml")  # the template itself: Heat rejects it
    assert code != 0 and fragment in out + err


# ------------------------------------------------------------------ an argument shape Heat checks at create only


def test_a_str_split_short_of_arguments_errors_only_its_output(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Heat 27: validate OK; CREATE_COMPLETE; good = 2; bad = null with Heat's str_split message
    (work / "s.yaml").write_text(
        "heat_template_version: 2018-08-31\noutputs:\n  bad: {value: {str_split: [',']}}\n  good: {value: 2}\n"
    )
    code, out, err = run(capsys, "validate", "-t", "s.yaml")
    assert code == 0, out + err
    assert "creating the stack gives this output an error" in out + err
    code, out, err = run(capsys, "apply", "-t", "s.yaml", "--auto-approve")
    assert code == 0, out + err
    got = outputs(capsys, "s")
    assert got["good"]["value"] == 2  # type: ignore[index]
    assert got["bad"]["value"] is None  # type: ignore[index]
    assert 'Incorrect arguments to "str_split" should be' in got["bad"]["error"]  # type: ignore[index]


def test_validate_rejects_an_output_condition_that_cannot_be_evaluated(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Heat 27: POST /validate refuses it (the outputs' conditions are resolved when validate loads them)
    (work / "v.yaml").write_text(
        "heat_template_version: 2018-08-31\nconditions:\n"
        "  broken: {equals: [{yaql: {expression: '1/0', data: {}}}, 1]}\n"
        "  unused: {equals: [{yaql: {expression: '1/0', data: {}}}, 2]}\n"
        "outputs:\n  o: {value: 1, condition: broken}\n"
    )
    code, out, err = run(capsys, "validate", "-t", "v.yaml")
    assert code != 0 and "ZeroDivisionError" in out + err
    assert (out + err).count("ZeroDivisionError") == 1  # the condition nothing asks for is not evaluated


# ------------------------------------------------------------------ wide oracle classes

WIDE = """\
heat_template_version: 2018-08-31
resources:
  v:
    type: OS::Heat::Value
    properties: {value: {yaql: {expression: 'dict($.data.select([$, 1]))', data: [null, 1, '', true, 1.5]}}}
outputs:
  keys: {value: {yaql: {expression: 'dict($.data.select([$, 1]))', data: [null, 1, '', 1.5, false]}}}
  stored: {value: {get_attr: [v, value]}}
  strict: {value: {str_replace_strict: {template: x$s, params: {$s: {yaql: {expression: '$.data.toSet()', data: [1]}}}}}}
  plain: {value: {str_replace: {template: x$s, params: {$s: {yaql: {expression: '$.data.toSet()', data: [1]}}}}}}
  renamed: {value: {map_replace: [{b: 1, a: 2, c: 3}, {keys: {b: z}}]}}
  text: {value: {list_join: [';', [{map_merge: [{b: 1}, {a: 2}]}]]}}
  items: {value: {yaql: {expression: '$.data.items().select($[0])', data: {map_merge: [{b: 1}, {a: 2}]}}}}
  numbers: {value: {yaql: {expression: '$.data.toSet()', data: [10, 3, 1, 33, 7, 2.5, true]}}}
"""


def test_wide_oracle_classes(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Heat 27 (oracle cases 1000005, 1000105, 1000139 and others): a map key that is no string shows as JSON
    # text writes it; a yaql set is no list for str_replace's params; shown maps are in key order, while the
    # order they were built in shows inside (yaql's items()), and JSON text is key-sorted
    (work / "w.yaml").write_text(WIDE)
    code, out, err = run(capsys, "apply", "-t", "w.yaml", "--auto-approve")
    assert code == 0, out + err
    got = outputs(capsys, "w")
    assert json.dumps(got["keys"]["value"]) == json.dumps({"": 1, "1": 1, "1.5": 1, "false": 1, "null": 1})  # type: ignore[index]
    assert got["stored"]["value"] == {"": 1, "1": 1, "1.5": 1, "null": 1}  # type: ignore[index]
    assert "params must be strings, numbers, list or map" in str(got["strict"].get("error"))  # type: ignore[union-attr]
    assert "params must be strings, numbers, list or map" in str(got["plain"].get("error"))  # type: ignore[union-attr]
    assert json.dumps(got["renamed"]["value"]) == json.dumps({"a": 2, "c": 3, "z": 1})  # type: ignore[index]
    assert got["text"]["value"] == '{"a": 2, "b": 1}'  # type: ignore[index]
    assert got["items"]["value"] == ["b", "a"]  # type: ignore[index]
    # a set of numbers in Python's set order, as Heat 27 answered it
    assert got["numbers"]["value"] == [1, 2.5, 3, 33, 7, 10]  # type: ignore[index]


PREFLIGHT = """\
heat_template_version: 2018-08-31
resources:
  v1: {type: OS::Heat::Value, properties: {value: {a: 1}}}
  v2:
    type: OS::Heat::Value
    properties:
      value: {yaql: {expression: $.data.m, data: {m: {get_attr: [v1, value]}}}}
  v3:
    type: OS::Heat::Value
    properties:
      value: {yaql: {expression: $.data.m.len(), data: {m: {get_attr: [v1, value]}}}}
"""


def test_a_yaql_over_get_attr_of_a_resource_not_created_yet_is_checked_with_null(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Heat 27 (oracle case 1000242, and this template): the create fails, "Property error: :
    # resources.v3.properties.value: : No method "len" for receiver None"; without v3 it creates
    (work / "p.yaml").write_text(PREFLIGHT)
    code, out, err = run(capsys, "plan", "-t", "p.yaml", "p")
    assert code != 0
    assert "p.yaml:11:14: error: v3: Property error" in out + err and 'No method "len"' in out + err
    assert "Traceback" not in out + err
    (work / "p.yaml").write_text(PREFLIGHT.split("  v3:")[0])
    code, out, err = run(capsys, "apply", "-t", "p.yaml", "--auto-approve")
    assert code == 0, out + err
