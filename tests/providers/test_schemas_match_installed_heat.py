"""Every schema hotc has agrees with the installed Heat 27 of the test cloud, read from Heat's own resource
registry (``heat_schema_dump.py`` run by Heat's interpreter): each property's type, required, default,
update_allowed and immutable, no property Heat lacks, and the attribute names. This checks the schema tables
(``heat_schema_tables_more.md``, ``test_schemas_reference.py``) against Heat itself, for the built-in types and for
every type added since."""

from __future__ import annotations

import json
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from hotc.parser.ir import MISSING
from hotc.providers.registry import all_schemas
from tests.fixtures.cloud import cloud_dir, cloud_required

pytestmark = pytest.mark.cloud

DUMP = Path(__file__).with_name("heat_schema_dump.py")

# Known differences, each with its reason (a type listed here is still checked for everything else).
KNOWN: dict[str, set[str]] = {
    # Heat's cfn wait condition declares Timeout and Count as Integer; hotc takes numbers there.
    "AWS::CloudFormation::WaitCondition": {"Timeout: type", "Count: type"},
    # hotc's handles answer get_attr endpoint (their URL); Heat's declare no attributes for it.
    "AWS::CloudFormation::WaitConditionHandle": {"attributes"},
    "OS::Heat::UpdateWaitConditionHandle": {"attributes"},
}


@cache
def heat_schemas() -> dict[str, Any]:
    python = cloud_dir() / "venv" / "bin" / "python"
    if not python.exists():
        msg = f"no Heat interpreter at {python} (the test cloud is not installed)"
        if cloud_required():
            pytest.fail(msg)
        pytest.skip(msg)
    r = subprocess.run(
        [str(python), str(DUMP), *sorted(all_schemas())], capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr[-3000:]
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def _same_default(heat: Any, ours: Any, type_name: str) -> bool:
    if type_name == "boolean" and isinstance(heat, str):  # Heat converts a Boolean's 'true' default
        return ours is not None and str(ours).lower() == heat.lower()
    return bool(heat == ours)


def differences(name: str, heat: dict[str, Any]) -> set[str]:
    rtype = all_schemas()[name]
    out: set[str] = set()
    for prop, h in heat["props"].items():
        s = rtype.properties.get(prop)
        if s is None:
            out.add(f"{prop}: missing")
            continue
        if h["type"].lower() != s.type:
            out.add(f"{prop}: type")
        for key in ("required", "update_allowed", "immutable"):
            if h[key] != getattr(s, key):
                out.add(f"{prop}: {key}")
        if not _same_default(h["default"], None if s.default is MISSING else s.default, s.type):
            out.add(f"{prop}: default")
    out |= {f"{p}: not in Heat" for p in set(rtype.properties) - set(heat["props"])}
    if set(rtype.attributes) != set(heat["attrs"]) | {"show"}:
        out.add("attributes")
    return out


@pytest.mark.parametrize("name", sorted(all_schemas()))
def test_schema_matches_the_installed_heat(name: str) -> None:
    heat = heat_schemas()[name]
    assert "error" not in heat, heat.get("error")
    got = differences(name, heat)
    assert got == KNOWN.get(name, set()), {
        "heat": {p: heat["props"].get(p.split(":")[0]) for p in got},
        "attributes (Heat)": heat["attrs"],
    }
