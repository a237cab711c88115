"""Every schema agrees with the schema tables of the reference (heat-hot.md §2.6, generated from Heat 27.0.1):
each property's type, required, default and update_allowed, the hidden legacy names, and the attributes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hotc.parser.ir import MISSING
from hotc.providers.registry import all_schemas
from tests.inputs import find_reference, needs_input

_TYPES = {"String": "string", "Integer": "integer", "Number": "number", "Boolean": "boolean", "List": "list",
          "Map": "map", "Any": "any"}  # fmt: skip


REFERENCE = find_reference()
pytestmark = needs_input(REFERENCE, "the Heat reference heat-hot.md (set HOTC_REFERENCE)")


# Tables of the types the reference leaves out, written from Heat's plugins in the reference's format.
MORE_TABLES = Path(__file__).with_name("heat_schema_tables_more.md")


def _tables() -> dict[str, str]:
    assert REFERENCE is not None
    out: dict[str, str] = {}
    for text in (REFERENCE.read_text(), MORE_TABLES.read_text()):
        section = text[text.index("### 2.6") : text.index("## 3.")]
        blocks = re.split(r"^#### ", section, flags=re.M)[1:]
        for b in blocks:
            name = b.split("\n", 1)[0].strip()
            assert name not in out, f"{name} has two tables"
            out[name] = b
    return out


def _rows(block: str) -> list[list[str]]:
    rows = []
    for line in block.splitlines():
        if line.startswith("| ") and not line.startswith("| property"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 6:
                rows.append(cells)
    return rows


# Types the reference has no table for (Heat's AWS-compatible wait condition pair and the handle replaced on
# every update): their schemas follow Heat's aws/cfn and wait_condition_handle sources.
NOT_IN_REFERENCE = frozenset(
    {
        "AWS::CloudFormation::WaitCondition",
        "AWS::CloudFormation::WaitConditionHandle",
        "OS::Heat::UpdateWaitConditionHandle",
    }
)


def test_every_seed_type_has_a_reference_table() -> None:
    assert set(all_schemas()) - NOT_IN_REFERENCE <= set(_tables())


@pytest.mark.parametrize("name", sorted(set(all_schemas()) - NOT_IN_REFERENCE))
def test_schema_matches_reference_table(name: str) -> None:
    block = _tables()[name]
    rtype = all_schemas()[name]
    problems: list[str] = []
    seen = set()
    for prop, typ, req, default, upd, notes, *_ in _rows(block):
        seen.add(prop)
        s = rtype.properties.get(prop)
        if s is None:
            problems.append(f"{prop}: missing")
            continue
        if _TYPES[typ] != s.type:
            problems.append(f"{prop}: type {typ} != {s.type}")
        if (req == "Y") != s.required:
            problems.append(f"{prop}: required {req!r} != {s.required}")
        if (upd == "yes") != s.update_allowed:
            problems.append(f"{prop}: update_allowed {upd!r} != {s.update_allowed}")
        if ("immutable" in upd) != s.immutable:
            problems.append(f"{prop}: immutable {upd!r} != {s.immutable}")
        problems.extend(f"{prop}: {p}" for p in _nested_problems(s, notes))
        if default and not default.endswith("..."):
            try:
                expected: Any = json.loads(default)
            except ValueError:
                expected = default
            if s.default is MISSING or s.default != expected:
                problems.append(f"{prop}: default {default} != {s.default!r}")
        elif not default and s.default is not MISSING:
            problems.append(f"{prop}: default {s.default!r} not in the reference")
    m = re.search(r"Hidden \(legacy, still parsed\): (.*)\.", block)
    hidden = {h.strip() for h in m.group(1).split(",")} if m else set()
    for h in hidden:
        if h not in rtype.properties or not rtype.properties[h].hidden:
            problems.append(f"{h}: should be a hidden legacy property")
    extra = set(rtype.properties) - seen - hidden
    if extra:
        problems.append(f"properties not in the reference: {sorted(extra)}")
    m = re.search(r"^Attributes: (.*)\.$", block, flags=re.M)
    expected_attrs = {"show"}
    if m and "none beyond" not in m.group(1):
        expected_attrs |= {a.strip() for a in re.sub(r"\. Hidden:", ",", m.group(1)).split(",")}
    if set(rtype.attributes) != expected_attrs:
        problems.append(f"attributes {sorted(rtype.attributes)} != {sorted(expected_attrs)}")
    assert problems == []


def _nested_problems(s: Any, notes: str) -> list[str]:
    """Nested keys (``items [Map: {a*, b}]`` / ``keys {a*, b}``; ``*`` = required), ``one of`` allowed values and
    ``range``/``length`` bounds written in the reference's notes column."""
    out: list[str] = []
    m = re.search(r"(?:items \[Map: |keys )\{([^}]*)\}", notes)
    if m:
        keys = {k.strip().rstrip("*"): k.strip().endswith("*") for k in m.group(1).split(",")}
        schema = s.item.schema if s.type == "list" and s.item is not None else s.schema
        if schema is None:
            return [f"nested keys {sorted(keys)} not declared"]
        visible = {k: p.required for k, p in schema.items() if not p.hidden}
        if visible != keys:
            out.append(f"nested keys {visible} != {keys}")
    m = re.search(r"items \[(String)\]", notes)
    if m and (s.item is None or s.item.type != "string"):
        out.append("items should be strings")
    m = re.search(r"one of (\S+)$", notes)
    if m and "0..255" not in notes:
        allowed = m.group(1).split("/")
        got = [c.spec for c in s.constraints if c.kind == "allowed_values"]
        if not got or [str(v) for v in got[0]] != allowed:
            out.append(f"allowed values {got} != {allowed}")
    for kind in ("range", "length"):
        m = re.search(kind + r"\{([^}]*)\}", notes)
        if m:
            spec = {k: json.loads(v) for k, v in (kv.split(":") for kv in m.group(1).split(","))}
            got = [c.spec for c in s.constraints if c.kind == kind]
            if got != [spec]:
                out.append(f"{kind} {got} != {spec}")
    for cc in re.findall(r"cc:(\S+)", notes):
        if cc not in [c.spec for c in s.constraints if c.kind == "custom_constraint"]:
            out.append(f"custom constraint {cc} missing")
    return out
