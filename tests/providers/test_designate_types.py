"""The Designate types offline: Heat 27's checks of a zone (its ``validate`` after moving ``primaries`` into
``masters``: creating the stack fails), the bodies Heat's designateclient sends for a zone's create and update,
record set names inside their zone, and what the planner decides for each property change (Heat's
update_allowed: in place, else a replacement)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.providers.drivers import support_problem
from hotc.providers.openstack.designate.common import DesignateHTTPError
from hotc.providers.openstack.designate.recordset import full_name
from hotc.providers.openstack.designate.zone import create_body, update_body
from hotc.providers.registry import get_schema
from tests.clirun import run_hotc

HEAD = "heat_template_version: 2018-08-31\nresources:\n"
WILL_FAIL = "(creating or updating the stack will fail)"


def _validate(tmp_path: Path, body: str) -> str:
    (tmp_path / "t.yaml").write_text(HEAD + body)
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ("{name: a.example.}", "Property email is required for zone type PRIMARY"),
        ("{name: a.example., type: SECONDARY}", "Property masters is required for zone type SECONDARY"),
        (
            "{name: a.example., type: SECONDARY, masters: [192.0.2.1], primaries: [192.0.2.2]}",
            "Cannot define the following properties at the same time: masters, primaries",
        ),
    ],
)
def test_zone_checks_as_heat(tmp_path: Path, props: str, message: str) -> None:
    out = _validate(tmp_path, f"  z:\n    type: OS::Designate::Zone\n    properties: {props}\n")
    assert message in out and WILL_FAIL in out


@pytest.mark.parametrize(
    "props",
    [
        "{name: a.example., email: a@example.org}",
        "{name: a.example., type: SECONDARY, primaries: [192.0.2.2]}",
        "{name: a.example., type: SECONDARY, masters: [192.0.2.2]}",  # deprecated, still taken
        "{name: a.example., email: {get_param: OS::stack_name}}",  # known only at plan: not judged here
    ],
)
def test_valid_zones_have_no_such_warning(tmp_path: Path, props: str) -> None:
    out = _validate(tmp_path, f"  z:\n    type: OS::Designate::Zone\n    properties: {props}\n")
    assert WILL_FAIL not in out and "is required for zone type" not in out, out


def test_record_set_type_zone_and_records_checked_as_heat(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        HEAD + "  r:\n    type: OS::Designate::RecordSet\n    properties: {type: WKS}\n"
    )
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    out = r.stdout + r.stderr
    assert r.returncode == 0 and WILL_FAIL in out  # Heat's template validate takes it; its create fails
    assert "WKS" in out and "required property records is missing" in out and "zone is missing" in out
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1 and "required property records is missing" in r.stderr, r.stdout + r.stderr


def test_zone_create_body_is_designateclients() -> None:
    primary = {"name": "a.example.", "type": "PRIMARY", "email": "e@x", "ttl": 600, "description": "d",
               "primaries": ["192.0.2.9"]}  # fmt: skip
    assert create_body(primary) == {"name": "a.example.", "type": "PRIMARY", "email": "e@x", "ttl": 600,
                                    "description": "d"}  # fmt: skip
    secondary = {
        "name": "b.example.",
        "type": "SECONDARY",
        "email": "e@x",
        "ttl": 600,
        "primaries": ["192.0.2.9"],
    }
    assert create_body(secondary) == {"name": "b.example.", "type": "SECONDARY", "masters": ["192.0.2.9"]}
    legacy = {
        "name": "b.example.",
        "type": "SECONDARY",
        "masters": ["192.0.2.8"],
        "attributes": {"tier": "x"},
    }
    assert create_body(legacy) == {"name": "b.example.", "type": "SECONDARY", "masters": ["192.0.2.8"],
                                   "attributes": {"tier": "x"}}  # fmt: skip


def test_zone_update_sends_the_changed_values_that_have_one() -> None:
    new = {"name": "a.example.", "email": "n@x", "ttl": 900, "description": None, "primaries": ["192.0.2.7"]}
    assert update_body(new, frozenset({"email", "description"})) == {
        "email": "n@x"
    }  # emptied: not sent (Heat)
    assert update_body(new, frozenset({"ttl", "primaries"})) == {"ttl": 900, "masters": ["192.0.2.7"]}
    assert update_body(new, frozenset()) == {}


def test_record_set_names_are_inside_their_zone() -> None:
    assert full_name("www", "a.example.") == "www.a.example."
    assert full_name("www.a.example.", "a.example.") == "www.a.example."


@pytest.mark.parametrize(
    ("type_name", "in_place", "replacing"),
    [
        (
            "OS::Designate::Zone",
            {"ttl", "description", "email", "masters", "primaries"},
            {"name", "type", "attributes"},
        ),
        ("OS::Designate::RecordSet", {"ttl", "description", "records"}, {"name", "type", "zone"}),
    ],
)
def test_update_allowed_as_heat(type_name: str, in_place: set[str], replacing: set[str]) -> None:
    rtype = get_schema(type_name)
    assert rtype is not None and rtype.service == "dns"
    assert rtype.update_allowed == in_place
    assert set(rtype.properties) - rtype.update_allowed == replacing
    assert support_problem(type_name) is None  # a driver applies it


@pytest.mark.parametrize("type_name", ["OS::Designate::Domain", "OS::Designate::Record"])
def test_removed_v1_types_are_heats_placeholders(type_name: str, tmp_path: Path) -> None:
    rtype = get_schema(type_name)
    assert rtype is not None and rtype.support == "hidden" and rtype.accepts_any_properties
    (tmp_path / "t.yaml").write_text(
        HEAD + f"  d:\n    type: {type_name}\n    properties: {{name: a.example.}}\n"
    )
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve", "s")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 created" in r.stdout or "1 added" in r.stdout or "Resources: 1" in r.stdout, r.stdout


def test_designate_errors_say_what_is_wrong() -> None:
    schema_error = (
        '{"code": 400, "type": "invalid_object", "errors": {"errors": [{"path": ["records", 0], "message": '
        '"\'192.0.2.010\' is not a \'A\' Record", "validator": "format"}]}, "message": "Invalid Object"}'
    )
    assert str(DesignateHTTPError(400, schema_error)) == "'192.0.2.010' is not a 'A' Record (HTTP 400)"
    dup = '{"code": 409, "type": "duplicate_zone", "message": "Duplicate Zone"}'
    assert str(DesignateHTTPError(409, dup)) == "Duplicate Zone (HTTP 409)"
    assert str(DesignateHTTPError(502, "<html>bad gateway</html>")) == "<html>bad gateway</html> (HTTP 502)"
