"""Every standard YAML tag on every kind of node, in validate, plan and apply: a tag that does not fit its node
(``resources: !!seq`` over a mapping), a scalar its tag cannot read (``!!int ''``) and a tag that gives what a
template cannot hold (``!!binary``, ``!!set``) are positioned errors; the rest decode as PyYAML decodes them.
Never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clirun import Result, run_hotc

HEAD = "heat_template_version: 2018-08-31\n"
TAGS = ("str", "int", "float", "bool", "null", "map", "seq", "binary", "timestamp", "set", "omap", "pairs")
# the node each tag is written over (the node starts at column 50 of line 3 in the template below)
NODES = {"scalar": "x1", "mapping": "{a: 1}", "list": "[{a: 1}]", "empty": ""}
KIND_OF_TAG = {
    **{t: "scalar" for t in ("str", "int", "float", "bool", "null", "binary", "timestamp")},
    "map": "mapping",
    "set": "mapping",
    **{t: "list" for t in ("seq", "omap", "pairs")},
}


def _command(tmp: Path, mode: str) -> tuple[str, ...]:
    if mode == "validate":
        return ("validate", "-t", "t.yaml")
    if mode == "plan":
        return ("plan", "-t", "t.yaml", "--backend", str(tmp / "state"))
    return ("apply", "-t", "t.yaml", "--backend", str(tmp / "state"), "--auto-approve")


def _run(tmp: Path, mode: str, text: str) -> Result:
    (tmp / "t.yaml").write_text(text)
    res = run_hotc(tmp, *_command(tmp, mode))
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    assert res.returncode in (0, 1), (res.returncode, out)
    return res


@pytest.mark.parametrize("mode", ["validate", "plan", "apply"])
def test_a_list_tag_over_the_resources_mapping(tmp_path: Path, mode: str) -> None:
    text = HEAD + "resources: !!seq\n  v: {type: OS::Heat::Value, properties: {value: 1}}\n"
    res = _run(tmp_path, mode, text)
    assert res.returncode == 1
    assert "t.yaml:2:12: error: the YAML tag !!seq is for a list, not a mapping" in res.stdout + res.stderr
    assert not (tmp_path / "state").exists() or not list((tmp_path / "state").rglob("*.json"))


@pytest.mark.parametrize("mode", ["validate", "plan", "apply"])
@pytest.mark.parametrize("node", sorted(NODES))
@pytest.mark.parametrize("tag", TAGS)
def test_every_standard_tag_on_every_node_kind(tmp_path: Path, mode: str, tag: str, node: str) -> None:
    text = HEAD + (
        "resources:\n"
        f"  v: {{type: OS::Heat::Value, properties: {{value: !!{tag} {NODES[node]}}}}}\n"
        "outputs:\n  o: {value: {get_attr: [v, value]}}\n"
    )
    res = _run(tmp_path, mode, text)
    out = res.stdout + res.stderr
    kind = "scalar" if node == "empty" else node
    if KIND_OF_TAG[tag] != kind:
        assert res.returncode == 1, out
        want = {"scalar": "a scalar", "mapping": "a mapping", "list": "a list"}
        assert (
            f"t.yaml:3:50: error: the YAML tag !!{tag} is for {want[KIND_OF_TAG[tag]]}, not {want[kind]}"
            in out
        )
    elif tag in ("binary", "set", "int", "float", "bool"):
        # bytes or a set (not JSON data), or ``x1`` that is no number or boolean: positioned, nothing applied
        assert res.returncode == 1, out
        assert "t.yaml:3:50: error: " in out, out
    else:
        assert res.returncode == 0, out


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("!!int ''\n", "1:1"),
        (HEAD + "resources: !!map [a]\n", "2:12"),
        (HEAD + "parameters:\n  p: {type: json, default: !!set {a: !!seq x}}\nresources: {}\n", "3:38"),
        (HEAD + "resources: {v: {type: !!float '', properties: {}}}\n", "2:23"),
        (HEAD + "description: !!omap [{a: !!pairs x}]\nresources: {}\n", "2:26"),
        (HEAD + "resources: {? !!binary x1 : 1}\n", "2:15"),
        ("heat_template_version: !!timestamp [2018-08-31]\nresources: {}\n", "1:24"),
    ],
    ids=[
        "empty-int-document",
        "map-over-list",
        "inside-a-set",
        "empty-float",
        "pairs-in-omap",
        "binary-key",
        "ts",
    ],
)
def test_tags_elsewhere_are_positioned(tmp_path: Path, text: str, where: str) -> None:
    res = _run(tmp_path, "validate", text)
    assert res.returncode == 1
    assert f"t.yaml:{where}: error: " in res.stdout + res.stderr, res.stdout + res.stderr
