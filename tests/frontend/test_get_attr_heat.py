"""``get_attr`` of an attribute a type does not have: hotc's validate verdict against REAL Heat's
``template validate`` on the test cloud, case by case. Heat's GetAtt.validate rejects an attribute
missing from the type's attributes schema, except on types whose class answers any attribute."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hotc.errors import has_errors
from hotc.parser.api import load_stack
from hotc.providers.checks import type_checks

pytestmark = pytest.mark.cloud


def _doc(
    rtype: str, attr: str, *, where: str, props: dict[str, Any] | None = None, cond: bool = True
) -> dict:  # type: ignore[type-arg]
    web: dict[str, Any] = {"type": rtype}
    if props:
        web["properties"] = props
    doc: dict[str, Any] = {
        "heat_template_version": "2018-08-31",
        "conditions": {"on": cond},
        "resources": {"web": web},
    }
    ref = {"get_attr": ["web", attr]}
    if where == "property":
        doc["resources"]["other"] = {
            "type": "OS::Heat::Value",
            "condition": "on",
            "properties": {"value": ref},
        }
    else:
        doc["outputs"] = {"o": {"value": ref, "condition": "on"}}
    return doc


CASES = [
    ("OS::Heat::TestResource", "outptu", "property", None, True),
    ("OS::Heat::TestResource", "outptu", "output", None, True),
    ("OS::Heat::TestResource", "output", "output", None, True),
    ("OS::Heat::TestResource", "outptu", "output", None, False),  # the output's condition is false
    ("OS::Heat::TestResource", "outptu", "property", None, False),  # the resource's condition is false
    ("OS::Heat::RandomString", "colour", "output", None, True),
    ("OS::Heat::None", "anything", "output", None, True),
    ("OS::Heat::ResourceGroup", "anything", "output", {"resource_def": {"type": "OS::Heat::None"}}, True),
    ("OS::Heat::Value", "value", "property", {"value": 1}, True),
    ("OS::Neutron::Net", "subnet_ids", "output", None, True),
    # no provider schema in hotc: the attribute names of Heat's plugin (hotc.parser.resource_attributes)
    ("OS::Nova::ServerGroup", "show", "output", None, True),
    ("OS::Nova::ServerGroup", "members", "output", None, True),
    ("OS::Keystone::Project", "domain_id", "output", None, True),
    ("OS::Keystone::Project", "domian_id", "output", None, True),
]


@pytest.mark.parametrize(("rtype", "attr", "where", "props", "cond"), CASES)
def test_get_attr_verdict_matches_heat(
    cloud: Any,
    tmp_path: Path,
    rtype: str,
    attr: str,
    where: str,
    props: dict | None,
    cond: bool,  # type: ignore[type-arg]
) -> None:
    doc = _doc(rtype, attr, where=where, props=props, cond=cond)
    heat_ok = True
    heat_msg = ""
    try:
        cloud.orchestration.validate_template(template=doc)
    except Exception as exc:  # noqa: BLE001 -- Heat's 400 says why
        heat_ok, heat_msg = False, str(exc)
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(doc))
    _, diags = load_stack(str(path), [], {}, {}, require_values=False, checks=type_checks())
    hotc_ok = not has_errors(diags)
    assert hotc_ok == heat_ok, f"Heat: {heat_ok} {heat_msg}; hotc: {[str(d) for d in diags]}"
    if not heat_ok:
        assert f"The Referenced Attribute (web {attr}) is incorrect" in heat_msg
        assert any(f"The Referenced Attribute (web {attr}) is incorrect" in d.message for d in diags)
