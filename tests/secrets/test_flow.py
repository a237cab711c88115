"""Sensitivity flows through every edge: hidden parameter / RandomString -> property -> attributes -> get_attr ->
property or output, and is masked wherever it lands (state, outputs, plans, listings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.secrets.helpers import HIDDEN, hotc


def _apply(capsys: Any, *extra: str) -> tuple[int, str, str]:
    return hotc(capsys, "apply", "-t", "s.yaml", "--parameter", f"db_pass={HIDDEN}", "--auto-approve", *extra)


def _random(capsys: Any) -> str:
    code, out, err = hotc(capsys, "output", "s", "rv", "--show-sensitive")
    assert code == 0, err
    return out.strip()


def test_derived_values_are_stored_masked_and_outputs_marked_sensitive(workdir: Path, capsys: Any) -> None:
    code, out, err = _apply(capsys)
    assert code == 0, err
    rnd = _random(capsys)
    assert len(rnd) == 24
    for name in ("s.json", "s.json.backup", "s.events.jsonl"):
        path = workdir / ".hotc" / name
        if path.exists():
            text = path.read_text()
            assert HIDDEN not in text and rnd not in text, name
    doc = json.loads((workdir / ".hotc" / "s.json").read_text())
    # the TestResource fed by the hidden parameter, and the one reading its attribute: attributes masked
    for addr in ("a", "b", "v", "w"):
        attrs = doc["resources"][addr]["attributes"]
        assert attrs and all(set(v) == {"__sensitive__", "encrypted"} for v in attrs.values()), (addr, attrs)
    assert doc["resources"]["plain"]["attributes"]["output"] == "v1"  # what reads no secret stays clear
    outs = doc["outputs"]
    assert {n for n, o in outs.items() if o["sensitive"]} == {"pw", "derived", "rv", "rid", "wout"}
    assert outs["tag_out"] == {"value": "v1", "description": "", "sensitive": False, "error": None}
    # apply printed them masked
    tail = out.split("Apply complete!")[1]
    assert "pw = (sensitive)" in tail and "derived = (sensitive)" in tail and 'tag_out = "v1"' in tail
    assert HIDDEN not in out + err and rnd not in out + err


def test_output_shows_sensitive_values_only_with_show_sensitive(workdir: Path, capsys: Any) -> None:
    assert _apply(capsys)[0] == 0
    rnd = _random(capsys)
    code, out, err = hotc(capsys, "output", "s")
    assert code == 0 and "pw = (sensitive)" in out and 'tag_out = "v1"' in out and "--show-sensitive" in err
    assert HIDDEN not in out and rnd not in out
    code, out, err = hotc(capsys, "output", "s", "pw")
    assert code == 1 and out == "" and "is sensitive" in err and "--show-sensitive" in err
    code, out, _ = hotc(capsys, "output", "s", "--format", "json")
    doc = json.loads(out)
    assert doc["pw"] == {"value": None, "description": "", "sensitive": True}  # hidden: null, flagged
    assert doc["tag_out"]["value"] == "v1"
    code, out, _ = hotc(capsys, "output", "s", "--format", "json", "--show-sensitive")
    doc = json.loads(out)
    assert doc["pw"]["value"] == f"password={HIDDEN}" and doc["derived"]["value"] == f"password={HIDDEN}-v1"
    assert doc["rv"]["value"] == doc["rid"]["value"] == doc["wout"]["value"] == rnd
    code, out, _ = hotc(capsys, "output", "s", "pw", "--show-sensitive", "--format", "json")
    assert code == 0 and json.loads(out) == f"password={HIDDEN}"
    code, out, _ = hotc(capsys, "output", "s", "--show-sensitive")
    assert code == 0 and f'pw = "password={HIDDEN}"' in out
    code, out, _ = hotc(capsys, "output", "--help")
    assert "--show-sensitive" in out


def test_update_plans_mask_values_read_through_get_attr(workdir: Path, capsys: Any) -> None:
    assert _apply(capsys)[0] == 0
    args = ("plan", "-t", "s.yaml", "--parameter", f"db_pass={HIDDEN}", "--parameter", "tag=v2")
    code, out, err = hotc(capsys, *args)
    assert code == 0, err
    assert "~ b (OS::Heat::TestResource)" in out and "~ value: (sensitive) -> (sensitive)" in out
    assert HIDDEN not in out and "v1" not in out.split("~ b (")[1].split("\n\n")[0]
    code, out, _ = hotc(capsys, *args, "--format", "json")
    doc = json.loads(out)
    b = next(c for c in doc["resource_changes"] if c["address"] == "b")
    assert b["before"]["value"] is None and b["after"]["value"] is None  # hidden: null, flagged below
    assert b["before_sensitive"] == {"value": True} and b["after_sensitive"] == {"value": True}
    assert HIDDEN not in out


def test_a_property_that_becomes_sensitive_in_an_update_is_stored_masked(workdir: Path, capsys: Any) -> None:
    assert _apply(capsys)[0] == 0
    tpl = (workdir / "s.yaml").read_text()
    # plain now reads the hidden parameter: an in-place update whose new value must be masked from now on
    (workdir / "s.yaml").write_text(tpl.replace("value: {get_param: tag}", "value: {get_param: db_pass}"))
    code, out, err = _apply(capsys)
    assert code == 0, err
    doc = json.loads((workdir / ".hotc" / "s.json").read_text())
    plain = doc["resources"]["plain"]
    assert plain["sensitive_paths"] == ["value"] and set(plain["properties"]["value"]) == {
        "__sensitive__",
        "encrypted",
    }
    assert HIDDEN not in (workdir / ".hotc" / "s.json").read_text()
    assert doc["outputs"]["tag_out"]["sensitive"] is True


def test_random_string_id_is_masked_everywhere(workdir: Path, capsys: Any) -> None:
    assert _apply(capsys)[0] == 0
    doc = json.loads((workdir / ".hotc" / "s.json").read_text())
    pid = doc["resources"]["rnd"]["physical_id"]
    assert pid.startswith("s-rnd-")
    shown = [
        hotc(capsys, "resource", "list", "s"),
        hotc(capsys, "resource", "list", "s", "--format", "json"),
        hotc(capsys, "resource", "show", "s", "rnd"),
        hotc(capsys, "resource", "show", "s", "rnd", "--format", "json"),
        hotc(capsys, "state", "show", "s", "rnd"),
        hotc(capsys, "state", "show", "s", "rnd", "--format", "json"),
        hotc(capsys, "show", "s"),
        hotc(capsys, "show", "s", "--format", "json"),
        hotc(capsys, "events", "s"),
    ]
    for fmt in ("text", "json", "markdown"):
        shown.append(hotc(capsys, "plan", "--destroy", "s", "--format", fmt))
    for code, out, err in shown:
        assert code == 0, err
        assert pid not in out and pid not in err
    assert "(sensitive)" in shown[6][1]  # show lists it masked, not in clear
    # other physical ids are shown
    assert doc["resources"]["a"]["physical_id"] in shown[6][1]


def test_an_old_instance_keeps_its_secrets_masked_while_it_waits_for_deletion() -> None:
    """During a replacement the new entry starts with nothing sensitive recorded yet (and may read no secret
    at all): the old instance's secrets, recorded when it was deposed, stay masked in every write."""
    from hotc.apply.executor import _as_deposed
    from hotc.state import codec
    from hotc.state.document import ResourceState, StackState

    old = ResourceState(
        "rnd",
        "OS::Heat::RandomString",
        "s-rnd-abc",
        "CREATE_COMPLETE",
        properties={"length": 8, "salt": HIDDEN},
        attributes={"value": "Rnd0mSecretValue"},
        sensitive_paths=("salt",),
        sensitive_attributes=("value",),
        reference_attribute="value",
    )
    new = ResourceState(
        "rnd",
        "OS::Heat::RandomString",
        None,
        "CREATE_IN_PROGRESS",
        properties={"length": 16, "salt": "public"},
        deposed=(_as_deposed(old, "OS::Heat::RandomString"),),
    )
    st = StackState.new("s").with_resource(new)
    data = codec.dumps(st)
    assert b"Rnd0mSecretValue" not in data and HIDDEN.encode() not in data
    back = codec.loads(data, "s").resources["rnd"].deposed[0]
    assert back.sensitive_attributes == ("value",) and back.sensitive_paths == ("salt",)
    from hotc.state.secrets import normalise_key

    k = normalise_key("a passphrase")
    clear = codec.loads(codec.dumps(st, k), "s", k).resources["rnd"].deposed[0]
    assert clear.attributes == {"value": "Rnd0mSecretValue"} and clear.properties["salt"] == HIDDEN


def test_eval_never_prints_a_value_derived_from_a_hidden_parameter(workdir: Path, capsys: Any) -> None:
    p = ("-t", "s.yaml", "--parameter", f"db_pass={HIDDEN}")
    code, out, err = hotc(
        capsys, "eval", "{str_replace: {template: x$P, params: {$P: {get_param: db_pass}}}}", *p
    )
    assert (
        code == 0 and out.strip() == "(sensitive)" and HIDDEN not in out + err and "hidden parameter" in err
    )
    code, out, _ = hotc(capsys, "eval", "{get_param: db_pass}", *p, "--format", "json")
    doc = json.loads(out)
    assert doc["value"] is None and doc["sensitive"] is True and HIDDEN not in out
    code, out, _ = hotc(capsys, "eval", "{get_param: tag}", *p)
    assert code == 0 and out.strip() == '"v1"'  # a plain parameter is shown


ERRORS = """\
heat_template_version: 2018-08-31
parameters:
  p: {type: string, hidden: true}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: p}}
  c:
    type: OS::Heat::TestResource
    properties: {value: {map_merge: [{get_attr: [a, output]}]}}
outputs:
  bad: {value: {map_merge: [{get_attr: [a, output]}]}}
  worse: {value: {yaql: {expression: '$.data.x.foo()', data: {x: {get_attr: [a, output]}}}}}
"""


def test_evaluation_errors_never_quote_a_sensitive_value(workdir: Path, capsys: Any) -> None:
    """Heat's evaluation messages quote the value they failed on ("'...' is not a map"): for sensitive
    properties and outputs the message is withheld (its position kept) in apply, events, the state and plans."""
    p = ("--parameter", f"p={HIDDEN}")
    # outputs that fail: stored and shown with the message withheld
    (workdir / "e.yaml").write_text(ERRORS.split("  c:\n")[0] + "outputs:\n" + ERRORS.split("outputs:\n")[1])
    code, out, err = hotc(capsys, "apply", "-t", "e.yaml", *p, "--auto-approve")
    assert code == 0 and "warning: output bad: the value cannot be evaluated" in err, out + err
    assert HIDDEN not in out + err
    code, out, err = hotc(capsys, "output", "e")
    assert "bad = (error: the value cannot be evaluated" in out and "e.yaml:9:" in out and HIDDEN not in out
    # a resource whose sensitive property fails to evaluate: at plan time (a is known now), and at apply time
    # in a fresh stack (a is created first)
    (workdir / "e.yaml").write_text(ERRORS)
    code, out, err = hotc(capsys, "apply", "-t", "e.yaml", "fresh", *p, "--auto-approve")
    assert code == 1 and "create c: the value cannot be evaluated; the message is withheld" in err, out + err
    assert HIDDEN not in out + err
    for f in (workdir / ".hotc").iterdir():
        assert HIDDEN.encode() not in f.read_bytes(), f.name
    code, out, err = hotc(capsys, "plan", "-t", "e.yaml", *p)
    assert code == 1 and "e.yaml:10:" in err and "withheld" in err and HIDDEN not in out + err


GROUPS = """\
heat_template_version: 2018-08-31
parameters:
  p: {type: string, hidden: true}
resources:
  grp:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def: {type: OS::Heat::RandomString, properties: {length: 12}}
  tgrp:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def: {type: OS::Heat::TestResource, properties: {value: {get_param: p}}}
outputs:
  vals: {value: {get_attr: [grp, value]}}
  refs: {value: {get_attr: [grp, refs]}}
  touts: {value: {get_attr: [tgrp, output]}}
"""


def test_group_members_fed_a_secret_are_stored_masked(workdir: Path, capsys: Any) -> None:
    """A ResourceGroup whose resource_def reads a hidden parameter: every member property is sensitive
    (``*``) and stored masked; a group of RandomStrings is secret through get_attr (values, refs)."""
    (workdir / "g.yaml").write_text(GROUPS)
    p = ("--parameter", f"p={HIDDEN}")
    code, out, err = hotc(capsys, "apply", "-t", "g.yaml", *p, "--auto-approve")
    assert code == 0, err
    code, out, _ = hotc(capsys, "output", "g", "--format", "json", "--show-sensitive")
    doc = json.loads(out)
    assert all(o["sensitive"] for o in doc.values()) and doc["touts"]["value"] == [HIDDEN, HIDDEN]
    randoms = doc["vals"]["value"]
    assert len(randoms) == 2 and doc["refs"]["value"] == randoms
    stored = (workdir / ".hotc" / "g.json").read_text()
    assert HIDDEN not in stored and not any(r in stored for r in randoms)
    member = json.loads(stored)["resources"]["tgrp[0]"]
    assert member["sensitive_paths"] == ["*"] and set(member["properties"]["value"]) == {
        "__sensitive__",
        "encrypted",
    }
    code, out, err = hotc(capsys, "plan", "-t", "g.yaml", *p)
    assert code == 0 and "No changes" in out, out + err  # the masked values read back for the diff
