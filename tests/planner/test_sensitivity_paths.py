"""Sensitivity per value path: the leaves derived from a secret are masked, their siblings in the same map or
list are not; an attribute a type declares to echo a property (a Value's ``value``) is sensitive only where
that property is; JSON keeps types (a hidden value is null, flagged beside it). The quickstart's prod update
shows ``replicas`` 1 -> 3 in clear and its password as (sensitive)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hotc.planner.present import mask
from hotc.planner.render.json import plan_json
from hotc.planner.render.text import render_text
from hotc.planner.sensitivity import attribute_sensitive, leaf_refs, overlaps, path_text
from hotc.providers.registry import get_schema
from tests.planner.helpers import by_addr, plan_of, stack

HIDDEN = "Xq7-side-by-side-secret"

DOC: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "pw": {"type": "string", "hidden": True, "default": HIDDEN},
        "count": {"type": "number", "default": 3},
    },
    "resources": {
        "rnd": {"type": "OS::Heat::RandomString"},
        "cfg": {
            "type": "OS::Heat::Value",
            "properties": {
                "value": {
                    "password": {"get_param": "pw"},
                    "replicas": {"get_param": "count"},
                    "items": [{"get_param": "pw"}, "plain-item", {"get_attr": ["rnd", "value"]}],
                    "name": "app",
                }
            },
        },
        # reads a plain sibling of a secret through the declared attribute source: stays in clear
        "plain_reader": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["cfg", "value", "name"]}},
        },
        # reads the secret leaf: sensitive
        "secret_reader": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["cfg", "value", "password"]}},
        },
        # reads the whole attribute, which holds a secret: sensitive
        "whole_reader": {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": {"str_replace": {"template": "x", "params": {"x": {"get_attr": ["cfg", "value"]}}}}
            },
        },
        # an index computed by a function: the whole list is read, which holds a secret
        "computed_reader": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["cfg", "value", "items", {"get_param": "count"}]}},
        },
        # an undeclared type (None declares no attribute sources): any sensitive property hides every attribute
        "undeclared": {"type": "OS::Heat::None", "properties": {"a": {"get_param": "pw"}, "b": "clear"}},
        "undeclared_reader": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["undeclared", "show"]}},
        },
    },
    "outputs": {
        "replicas": {"value": {"get_attr": ["cfg", "value", "replicas"]}},
        "items_plain": {"value": {"get_attr": ["cfg", "value", "items", 1]}},
        "items_secret": {"value": {"get_attr": ["cfg", "value", "items", 2]}},
        "password": {"value": {"get_attr": ["cfg", "value", "password"]}},
        "plain_out": {"value": {"get_attr": ["plain_reader", "output"]}},
        "secret_out": {"value": {"get_attr": ["secret_reader", "output"]}},
    },
}


def _plan() -> Any:
    return plan_of(stack(DOC))


def test_paths_and_overlap() -> None:
    assert path_text(("value", "items", 0)) == "value.items[0]"
    assert path_text(("*",)) == "*"
    assert overlaps(("value",), ("value", "password")) and overlaps(("value", "password"), ("value",))
    assert not overlaps(("value", "replicas"), ("value", "password"))


def test_leaf_refs_walk_literal_maps_and_lists() -> None:
    from tests.planner.helpers import template

    t = template(DOC)
    paths = {path_text(p) for p, _r in leaf_refs(t.resources["cfg"].properties)}
    # literals read nothing; each function call is a leaf
    assert paths == {"value.password", "value.replicas", "value.items[0]", "value.items[2]"}


def test_siblings_of_a_secret_stay_in_clear() -> None:
    changes = by_addr(_plan())
    assert set(changes["cfg"].sensitive_paths) == {"value.password", "value.items[0]", "value.items[2]"}
    shown = mask(changes["cfg"].after, changes["cfg"].sensitive_paths)["value"]
    assert shown == {
        "password": "(sensitive)",
        "replicas": 3,
        "items": ["(sensitive)", "plain-item", "(sensitive)"],
        "name": "app",
    }


def test_declared_attribute_sources_are_followed_path_for_path() -> None:
    changes = by_addr(_plan())
    assert changes["plain_reader"].sensitive_paths == ()
    assert changes["secret_reader"].sensitive_paths == ("value",)
    assert changes["whole_reader"].sensitive_paths == ("value",)
    assert changes["computed_reader"].sensitive_paths == ("value",)
    # an undeclared type keeps the conservative rule
    assert changes["undeclared"].sensitive_paths == ("a",)
    assert changes["undeclared_reader"].sensitive_paths == ("value",)


def test_outputs_are_sensitive_per_attribute_path() -> None:
    outs = {o.name: o for o in _plan().output_changes}
    assert not outs["replicas"].sensitive and not outs["items_plain"].sensitive
    assert not outs["plain_out"].sensitive
    assert outs["items_secret"].sensitive and outs["password"].sensitive and outs["secret_out"].sensitive


def test_types_declare_their_attribute_sources() -> None:
    for type_name, attr, prop in (
        ("OS::Heat::Value", "value", "value"),
        ("OS::Heat::TestResource", "output", "value"),
        ("OS::Heat::SoftwareConfig", "config", "config"),
    ):
        rtype = get_schema(type_name)
        assert rtype is not None and rtype.attribute_sources[attr] == prop
    sources = {"value": "value"}
    assert not attribute_sensitive(sources, [("value", "password")], ("value", "replicas"))
    assert attribute_sensitive(sources, [("value", "password")], ("value",))
    assert attribute_sensitive(sources, [("value", "password")], ("show",))  # undeclared attribute
    assert attribute_sensitive(sources, [("*",)], ("value", "replicas"))


def test_renders_mask_only_the_secret_leaves() -> None:
    plan = _plan()
    text = render_text(plan, color=False)
    assert HIDDEN not in text
    block = text.split("+ cfg (OS::Heat::Value)")[1].split("\n\n")[0]
    assert '"replicas": 3' in block and '"plain-item"' in block and '"name": "app"' in block
    assert '"password": "(sensitive)"' in block
    doc = plan_json(plan)
    assert HIDDEN not in json.dumps(doc)
    cfg = next(c for c in doc["resource_changes"] if c["address"] == "cfg")
    # JSON keeps types: a hidden value is null, flagged true at the same path
    assert cfg["after"]["value"]["replicas"] == 3 and cfg["after"]["value"]["password"] is None
    assert cfg["after"]["value"]["items"][1] == "plain-item"
    assert cfg["after_sensitive"] == {"value": {"password": True, "items": [True, False, True]}}
    outs = doc["output_changes"]
    assert outs["replicas"]["sensitive"] is False and outs["replicas"]["after_unknown"] is True
    assert outs["password"]["after"] is None and outs["password"]["sensitive"] is True


def test_a_saved_plan_masks_only_the_secret_leaves(tmp_path: Path) -> None:
    from hotc.planner.planfile import plan_to_data

    data = json.dumps(plan_to_data(_plan()), default=str)
    assert HIDDEN not in data
    assert "plain-item" in data


# ------------------------------------------------------------------------------------------- quickstart


def test_quickstart_prod_update_shows_replicas_in_clear_and_the_password_masked(tmp_path: Path) -> None:
    from tests.apply.test_cli_apply import PROD_ENV, QUICKSTART, hotc

    r = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "output", "quickstart", "app_name", "--show-sensitive")
    assert r.returncode == 0, r.stderr
    name = json.loads(r.stdout) if r.stdout.strip().startswith('"') else r.stdout.strip()
    suffix = name.rsplit("-", 1)[1]
    r = hotc(tmp_path, "output", "quickstart", "--format", "json")
    outs = json.loads(r.stdout)
    assert outs["replicas"] == {"value": 1, "description": "", "sensitive": False}
    assert outs["app_name"]["value"] is None and outs["app_name"]["sensitive"] is True
    shown = json.loads(hotc(tmp_path, "show", "quickstart", "--format", "json").stdout)["outputs"]
    assert shown["replicas"] == {"value": 1, "sensitive": False}
    assert shown["app_name"] == {"value": None, "sensitive": True}

    args = ("plan", "-t", str(QUICKSTART), "-e", str(PROD_ENV))
    text = hotc(tmp_path, *args)
    assert text.returncode == 0, text.stderr
    block = text.stdout.split("~ app_config (OS::Heat::Value)")[1].split("\n\n")[0]
    assert "~ value.replicas: 1 -> 3" in block
    assert "~ value.name: (sensitive) -> (sensitive)" in block  # it holds the random suffix
    password = text.stdout.split("-/+ db_password (OS::Heat::RandomString)")[1].split("\n\n")[0]
    assert "physical id: (sensitive)" in password
    assert "~ password_length: (sensitive) -> (known after apply)" in text.stdout

    md = hotc(tmp_path, *args, "--format", "markdown")
    assert md.returncode == 0, md.stderr
    assert "- value.replicas: 1" in md.stdout and "+ value.replicas: 3" in md.stdout
    assert "+ value.name: (sensitive)" in md.stdout
    assert "`password_length`: update (sensitive)" in md.stdout

    js = hotc(tmp_path, *args, "--format", "json")
    doc = json.loads(js.stdout)
    cfg = next(c for c in doc["resource_changes"] if c["address"] == "app_config")
    assert cfg["before"]["value"]["replicas"] == 1 and cfg["after"]["value"]["replicas"] == 3
    assert cfg["after"]["value"]["name"] is None and cfg["after_sensitive"] == {"value": {"name": True}}
    for out in (text.stdout, md.stdout, js.stdout):
        assert suffix not in out
