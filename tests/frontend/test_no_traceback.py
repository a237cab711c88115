"""Arbitrary (wrongly shaped) templates and environments give diagnostics, never an exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotc.parser.api import load_stack
from hotc.providers.checks import type_checks

KEYS = st.sampled_from(
    [
        "heat_template_version", "description", "parameters", "resources", "outputs", "conditions",
        "parameter_groups", "type", "properties", "depends_on", "condition", "deletion_policy", "value",
        "get_param", "get_resource", "get_attr", "get_file", "if", "not", "equals", "constraints", "default",
        "length", "range", "allowed_values", "allowed_pattern", "modulo", "label", "hidden", "tags", "min",
        "max", "resource_registry", "parameter_defaults", "resources_", "OS::Nova::Server", "x.yaml", "a", "b",
    ]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["2016-10-14", "2013-05-23", "wallaby", "OS::Heat::None", "a", "b", "x.yaml", "*", ""]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=25,
)
DOCS = st.dictionaries(KEYS, VALUES, max_size=6)

_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _write(path: Path, doc: Any) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@_SETTINGS
@given(doc=DOCS)
def test_random_templates(tmp_path: Path, doc: dict[str, Any]) -> None:
    doc = {"heat_template_version": "2021-04-16", **doc}
    t = _write(tmp_path / "t.yaml", doc)
    for require in (False, True):
        st_, diags = load_stack(str(t), [], {"a": "1"}, {}, require_values=require, checks=type_checks())
        assert isinstance(diags, list)


@_SETTINGS
@given(env=DOCS)
def test_random_environments(tmp_path: Path, env: dict[str, Any]) -> None:
    t = _write(
        tmp_path / "t.yaml",
        {
            "heat_template_version": "2016-10-14",
            "parameters": {"a": {"type": "string", "default": "x"}},
            "resources": {"r": {"type": "OS::Nova::Server"}, "s": {"type": "My::T"}},
        },
    )
    e = _write(tmp_path / "e.yaml", env)
    _, diags = load_stack(str(t), [str(e), str(e)], {}, {}, require_values=False, checks=type_checks())
    assert isinstance(diags, list)
