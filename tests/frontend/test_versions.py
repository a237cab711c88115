"""heat_template_version values and per-version structure facts (hotc.parser.versions)."""

from __future__ import annotations

import pytest

from hotc.parser import versions as V
from hotc.parser.ir import TemplateVersion


@pytest.mark.parametrize(
    ("written", "date"),
    [
        ("2013-05-23", "2013-05-23"),
        ("2015-10-15", "2015-10-15"),
        ("newton", "2016-10-14"),
        ("ocata", "2017-02-24"),
        ("pike", "2017-09-01"),
        ("queens", "2018-03-02"),
        ("rocky", "2018-08-31"),
        ("wallaby", "2021-04-16"),
        ("2021-04-16", "2021-04-16"),
    ],
)
def test_parse_version_accepts_dates_and_aliases(written: str, date: str) -> None:
    v = V.parse_version(written)
    assert v == TemplateVersion(date=date, written=written)


@pytest.mark.parametrize("written", ["2016-10-15", "xena", "", "Rocky", None, 2016, "2013-05-23x"])
def test_parse_version_rejects_unknown(written: object) -> None:
    assert V.parse_version(written) is None


def test_error_message_lists_every_valid_version() -> None:
    msg = V.version_error_message("2019-01-01")
    assert '"2019-01-01"' in msg
    for d in V.VERSIONS:
        assert d in msg
    for alias in V.ALIASES:
        assert alias in msg


def test_versions_are_ordered_and_complete() -> None:
    assert len(V.VERSIONS) == 11
    assert list(V.VERSIONS) == sorted(V.VERSIONS)
    assert V.at_least(V.version_named("rocky"), "2016-10-14")
    assert not V.at_least(V.version_named("2016-04-08"), "newton")


@pytest.mark.parametrize(
    ("version", "conditions", "external_id", "output_condition", "tags", "modulo", "lower_policies"),
    [
        ("2013-05-23", False, False, False, False, False, False),
        ("2016-04-08", False, False, False, False, False, False),
        ("2016-10-14", True, True, True, False, False, True),
        ("2017-02-24", True, True, True, False, True, True),
        ("2018-03-02", True, True, True, True, True, True),
        ("wallaby", True, True, True, True, True, True),
    ],
)
def test_per_version_keys(
    version: str,
    conditions: bool,
    external_id: bool,
    output_condition: bool,
    tags: bool,
    modulo: bool,
    lower_policies: bool,
) -> None:
    v = V.version_named(version)
    assert ("conditions" in V.allowed_sections(v)) is conditions
    assert {"heat_template_version", "resources", "outputs", "parameters"} <= V.allowed_sections(v)
    assert ("external_id" in V.allowed_resource_keys(v)) is external_id
    assert ("condition" in V.allowed_resource_keys(v)) is external_id
    assert ("condition" in V.allowed_output_keys(v)) is output_condition
    assert ("tags" in V.allowed_parameter_keys(v)) is tags
    assert ("modulo" in V.allowed_constraint_kinds(v)) is modulo
    assert ("retain" in V.allowed_deletion_policies(v)) is lower_policies
    assert V.has_conditions(v) is conditions
