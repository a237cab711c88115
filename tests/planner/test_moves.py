"""Planned moves (``--move OLD=NEW``, ``moves`` in hotc.toml, ``TEMPLATE_STEM.moves.yaml``): a resource renamed,
moved into or out of a group or a nested template keeps its object. Offline, Heat-native types, through the
command line in-process."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.clirun import Result, run_hotc

SCHEMA = Path(__file__).resolve().parents[2] / "hotc" / "planner" / "plan.schema.json"

FIRST = """
heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: one
  g:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Heat::TestResource
        properties:
          value: member
  user:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [a, output]}
"""

INNER = """
heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: one
"""


def hotc(cwd: Path, *args: str) -> Result:
    return run_hotc(cwd, *args)


def ids(cwd: Path, stack: str = "t") -> dict[str, str]:
    from hotc.state import backend_from_config

    st, _ = backend_from_config(None, cwd).read(stack)
    assert st is not None
    return {a: r.physical_id for a, r in st.resources.items()}


def write(cwd: Path, text: str, name: str = "t.yaml") -> Path:
    (cwd / name).write_text(text)
    return cwd / name


@pytest.fixture
def stack(tmp_path: Path) -> Path:
    write(tmp_path, FIRST)
    write(tmp_path, INNER, "inner.yaml")
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve")
    assert r.returncode == 0, r.stderr
    return tmp_path


def plan_json(cwd: Path, *args: str) -> dict:
    r = hotc(cwd, "plan", "-t", "t.yaml", "--format", "json", *args)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    return doc


def actions(doc: dict) -> dict[str, list[str]]:
    return {c["address"]: c["actions"] for c in doc["resource_changes"]}


RENAMED = FIRST.replace("  a:\n", "  b:\n").replace("[a, output]", "[b, output]")


def test_rename_is_kept_with_move(stack: Path) -> None:
    before = ids(stack)
    write(stack, RENAMED)
    plain = plan_json(stack)
    assert actions(plain)["a"] == ["delete"] and actions(plain)["b"] == ["create"]

    doc = plan_json(stack, "--move", "a=b")
    assert "a" not in actions(doc) and actions(doc)["b"] == ["no-op"]
    assert all(a not in (["create"], ["delete"], ["create", "delete"]) for a in actions(doc).values())
    change = next(c for c in doc["resource_changes"] if c["address"] == "b")
    assert change["moved"] == {"from": "a", "to": "b"}
    assert doc["moves"] == [
        {"from": "a", "to": "b", "source": "--move", "resources": [{"from": "a", "to": "b"}]}
    ]
    assert doc["summary"]["move"] == 1 and doc["summary"]["has_changes"] is True

    r = hotc(stack, "apply", "-t", "t.yaml", "--move", "a=b", "--auto-approve")
    assert r.returncode == 0, r.stderr
    assert "Moved a -> b (state only)" in r.stdout
    after = ids(stack)
    assert "a" not in after and after["b"] == before["a"]
    events = hotc(stack, "events", "t")
    assert "[b]: MOVE_COMPLETE: moved from a" in events.stdout
    again = hotc(stack, "plan", "-t", "t.yaml")
    assert "No changes" in again.stdout, again.stdout


def test_move_then_update(stack: Path) -> None:
    write(stack, RENAMED.replace("value: one", "value: two"))
    r = hotc(stack, "plan", "-t", "t.yaml", "--move", "a=b")
    assert r.returncode == 0, r.stderr
    assert "1 to move" in r.stdout and "0 to create" in r.stdout and "0 to delete" in r.stdout
    assert "  -> a -> b (OS::Heat::TestResource), from --move (a=b); then update" in r.stdout
    assert "~ b (OS::Heat::TestResource) will be updated in place" in r.stdout
    assert "moved from: a" in r.stdout and '~ value: "one" -> "two"' in r.stdout


def test_suggestion_names_the_flag(stack: Path) -> None:
    write(stack, RENAMED)
    r = hotc(stack, "plan", "-t", "t.yaml")
    assert r.returncode == 0
    assert "--move a=b" in r.stderr
    # a changed property: not the same object, no suggestion
    write(stack, RENAMED.replace("value: one", "value: other"))
    assert "--move" not in hotc(stack, "plan", "-t", "t.yaml").stderr


def test_into_and_out_of_a_group(stack: Path) -> None:
    before = ids(stack)
    into = FIRST.replace("count: 2", "count: 3").replace("value: member", "value: one")
    into = into.replace("  a:\n    type: OS::Heat::TestResource\n    properties:\n      value: one\n", "")
    into = into.replace("[a, output]", "[g, resource.2.output]")
    write(stack, into)
    r = hotc(stack, "plan", "-t", "t.yaml")
    assert "--move a=g[2]" in r.stderr, r.stderr
    doc = plan_json(stack, "--move", "a=g[2]")
    assert actions(doc)["g[2]"] == ["no-op"] and "a" not in actions(doc)
    r = hotc(stack, "apply", "-t", "t.yaml", "--move", "a=g[2]", "--auto-approve")
    assert r.returncode == 0, r.stderr
    assert ids(stack)["g[2]"] == before["a"]

    out = FIRST.replace("count: 2", "count: 2").replace("value: one", "value: one")
    write(stack, out)
    doc = plan_json(stack, "--move", "g[2]=a")
    assert actions(doc)["a"] == ["no-op"] and "g[2]" not in actions(doc)
    assert hotc(stack, "apply", "-t", "t.yaml", "--move", "g[2]=a", "--auto-approve").returncode == 0
    assert ids(stack)["a"] == before["a"] and set(ids(stack)) == {"a", "g[0]", "g[1]", "user"}


def test_into_and_out_of_a_nested_template(stack: Path) -> None:
    before = ids(stack)
    nested = FIRST.replace(
        "  a:\n    type: OS::Heat::TestResource\n    properties:\n      value: one\n",
        "  app:\n    type: inner.yaml\n",
    ).replace("{get_attr: [a, output]}", "one")
    write(stack, nested)
    assert "--move a=app.a" in hotc(stack, "plan", "-t", "t.yaml").stderr
    doc = plan_json(stack, "--move", "a=app.a")
    assert actions(doc)["app.a"] == ["no-op"] and "a" not in actions(doc)
    assert hotc(stack, "apply", "-t", "t.yaml", "--move", "a=app.a", "--auto-approve").returncode == 0
    assert ids(stack)["app.a"] == before["a"]

    write(stack, FIRST)
    doc = plan_json(stack, "--move", "app.a=a")
    assert actions(doc)["a"] == ["no-op"]
    assert hotc(stack, "apply", "-t", "t.yaml", "--move", "app.a=a", "--auto-approve").returncode == 0
    assert ids(stack)["a"] == before["a"]


def test_a_whole_group_moves_with_its_members(stack: Path) -> None:
    before = ids(stack)
    write(stack, FIRST.replace("  g:\n", "  h:\n"))
    assert "keep them with: --move g=h (" in hotc(stack, "plan", "-t", "t.yaml").stderr
    doc = plan_json(stack, "--move", "g=h")
    assert actions(doc)["h[0]"] == ["no-op"] and actions(doc)["h[1]"] == ["no-op"]
    assert doc["moves"][0]["resources"] == [{"from": "g[0]", "to": "h[0]"}, {"from": "g[1]", "to": "h[1]"}]
    assert hotc(stack, "apply", "-t", "t.yaml", "--move", "g=h", "--auto-approve").returncode == 0
    assert ids(stack)["h[1]"] == before["g[1]"]


def test_saved_plan_performs_the_move(stack: Path) -> None:
    before = ids(stack)
    write(stack, RENAMED)
    r = hotc(stack, "plan", "-t", "t.yaml", "--move", "a=b", "-o", "p.json")
    assert r.returncode == 0, r.stderr
    show = hotc(stack, "show", "p.json")
    assert "a -> b" in show.stdout
    assert ids(stack) == before  # a plan writes nothing
    r = hotc(stack, "apply", "p.json")
    assert r.returncode == 0, r.stderr
    assert ids(stack)["b"] == before["a"]
    r = hotc(stack, "apply", "p.json")
    assert r.returncode == 1 and "stale" in r.stderr  # the move moved the serial


@pytest.mark.parametrize(
    ("move", "template", "expected"),
    [
        ("x=b", RENAMED, "has no resource 'x' in its state"),
        ("a=user", RENAMED, "user already exists in the state"),
        ("a=zz", RENAMED, "zz is not a resource of the template"),
        ("a=b[", RENAMED, "is not a resource address"),
        ("ab", RENAMED, "expected OLD=NEW"),
        (
            "a=b",
            RENAMED.replace(
                "  b:\n    type: OS::Heat::TestResource", "  b:\n    type: OS::Heat::Value"
            ).replace("[b, output]", "[b, value]"),
            "refused: a is a OS::Heat::TestResource and b is a OS::Heat::Value",
        ),
    ],
)
def test_bad_moves_are_errors(stack: Path, move: str, template: str, expected: str) -> None:
    before = ids(stack)
    write(stack, template)
    for command in (("plan",), ("apply", "--auto-approve")):
        r = hotc(stack, *command, "-t", "t.yaml", "--move", move)
        assert r.returncode == 1, r.stdout
        assert expected in r.stderr and "Traceback" not in r.stderr
    assert ids(stack) == before


def test_move_refused_with_destroy_and_with_a_saved_plan(stack: Path) -> None:
    r = hotc(stack, "plan", "--destroy", "t", "--move", "a=b")
    assert r.returncode == 1 and "--move cannot be combined with --destroy" in r.stderr
    assert hotc(stack, "plan", "-t", "t.yaml", "-o", "p.json").returncode == 0
    r = hotc(stack, "apply", "p.json", "--move", "a=b")
    assert r.returncode == 1 and "--move" in r.stderr


def test_moves_file_beside_the_template(stack: Path) -> None:
    before = ids(stack)
    write(stack, RENAMED)
    write(stack, "moves:\n  - from: a\n    to: b\n", "t.moves.yaml")
    doc = plan_json(stack)
    assert doc["moves"][0]["source"].endswith("t.moves.yaml:2:5")
    assert actions(doc)["b"] == ["no-op"]
    assert hotc(stack, "apply", "-t", "t.yaml", "--auto-approve").returncode == 0
    assert ids(stack)["b"] == before["a"]
    # kept in the repository after the apply: done, a note, no error
    r = hotc(stack, "plan", "-t", "t.yaml")
    assert r.returncode == 0 and "No changes" in r.stdout
    assert "move a=b" in r.stderr and "nothing to do" in r.stderr
    # a typo is still an error, at its line
    write(stack, "moves:\n  - from: a\n    to: b\n  - from: nope\n    to: b2\n", "t.moves.yaml")
    r = hotc(stack, "plan", "-t", "t.yaml")
    assert r.returncode == 1 and "t.moves.yaml:4:5" in r.stderr and "'nope'" in r.stderr
    write(stack, "moves:\n  - {from: a}\n", "t.moves.yaml")
    r = hotc(stack, "plan", "-t", "t.yaml")
    assert r.returncode == 1 and "t.moves.yaml:2:5: error: expected an entry {from: OLD, to: NEW}" in r.stderr


def test_moves_in_the_project_file(stack: Path) -> None:
    before = ids(stack)
    write(stack, RENAMED)
    (stack / "hotc.toml").write_text('[stacks.t]\ntemplate = "t.yaml"\nmoves = ["a=b"]\n')
    r = hotc(stack, "plan", "t")
    assert r.returncode == 0, r.stderr
    assert "hotc.toml [stacks.t].moves (a=b)" in r.stdout
    assert hotc(stack, "apply", "t", "--auto-approve").returncode == 0
    assert ids(stack)["b"] == before["a"]
    (stack / "hotc.toml").write_text('[stacks.t]\ntemplate = "t.yaml"\nmoves = "a=b"\n')
    r = hotc(stack, "plan", "t")
    assert r.returncode == 1 and "moves must be a list" in r.stderr


def test_every_format_shows_the_move(stack: Path) -> None:
    write(stack, RENAMED.replace("value: one", "value: two"))
    assert hotc(stack, "plan", "-t", "t.yaml", "--move", "a=b", "-o", "p.json").returncode == 0
    md = hotc(stack, "plan", "-t", "t.yaml", "--move", "a=b", "--format", "markdown").stdout
    assert "1 to move" in md and "#### ↪️ Moves (state only, no cloud call)" in md
    assert "Moved from: `a`" in md and "--move a=b" in md  # the apply command repeats the flag
    sarif = json.loads(hotc(stack, "plan", "-t", "t.yaml", "--move", "a=b", "--format", "sarif").stdout)
    results = sarif["runs"][0]["results"]
    assert any(r["ruleId"] == "plan/move" and "move a -> b" in r["message"]["text"] for r in results)
    for fmt in ("dot", "mermaid"):
        r = hotc(stack, "graph", "p.json", "--format", fmt, "-o", f"g.{fmt}")
        assert r.returncode == 0, r.stderr
        assert "moved from a" in (stack / f"g.{fmt}").read_text()
    shown = json.loads(hotc(stack, "show", "p.json", "--format", "json").stdout)
    assert shown["moves"][0]["resources"] == [{"from": "a", "to": "b"}]


def test_moves_file_syntax_error_and_a_move_given_twice(stack: Path) -> None:
    write(stack, RENAMED)
    write(stack, "moves:\n  - from: a\n    to: [b\n", "t.moves.yaml")
    r = hotc(stack, "plan", "-t", "t.yaml")
    assert r.returncode == 1 and "t.moves.yaml:4:1: error: not valid YAML" in r.stderr, r.stderr
    write(stack, "moves:\n  - from: a\n    to: b\n", "t.moves.yaml")
    doc = plan_json(stack, "--move", "a=b")
    assert [m["source"] for m in doc["moves"]] == ["--move"] and actions(doc)["b"] == ["no-op"]


def test_swap_two_records(stack: Path) -> None:
    before = ids(stack)
    swapped = FIRST.replace("  a:\n", "  tmp:\n").replace("[a, output]", "[g, resource.0.output]")
    swapped = swapped.replace("value: one", "value: member")  # tmp is g[1]'s object; g[1] gets a's
    write(stack, swapped)
    doc = plan_json(stack, "--move", "g[1]=tmp", "--move", "a=g[1]")
    assert actions(doc)["tmp"] == ["no-op"] and actions(doc)["g[1]"] == ["update"]
    assert (
        hotc(
            stack, "apply", "-t", "t.yaml", "--move", "g[1]=tmp", "--move", "a=g[1]", "--auto-approve"
        ).returncode
        == 0
    )
    after = ids(stack)
    assert after["tmp"] == before["g[1]"] and after["g[1]"] == before["a"]
