"""Suppression: ``# hotc:skip=RULE reason`` in the resource, and ``[lint] skip`` in the nearest hotc.toml; a
suppressed finding is listed with its reason and no longer fails the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.errors import HotcError
from hotc.lint.api import Level, load_config
from tests.lint.conftest import lint, write

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  %s
  bastion:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22}  %s
  db:
    type: OS::Neutron::SecurityGroup
    properties:
      rules: [{protocol: tcp, port_range_min: 3306, port_range_max: 3306}]
"""


def _states(report) -> dict[tuple[str, str], str | None]:  # type: ignore[no-untyped-def]
    return {(f.rule.id, f.subject): f.suppressed for f in report.findings}


def test_without_suppression_both_fail(tmp_path: Path) -> None:
    report = lint(write(tmp_path / "t.yaml", TEMPLATE % ("", "")))
    assert _states(report) == {("HOT101", "bastion"): None, ("HOT102", "db"): None}
    assert len(report.failing(Level.HIGH)) == 2


@pytest.mark.parametrize(
    "above, inside",
    [
        ("# hotc:skip=HOT101 the bastion is reached from anywhere", ""),
        ("", "# hotc:skip=HOT101 the bastion is reached from anywhere"),
        ("", "# hotc:skip=HOT1* the bastion is reached from anywhere"),
    ],
)
def test_an_inline_comment_suppresses_that_resource_only(tmp_path: Path, above: str, inside: str) -> None:
    report = lint(write(tmp_path / "t.yaml", TEMPLATE % (above, inside)))
    assert _states(report) == {
        ("HOT101", "bastion"): "the bastion is reached from anywhere",
        ("HOT102", "db"): None,
    }
    [suppressed] = [f for f in report.findings if f.suppressed]
    assert suppressed.suppressed_by == "inline"
    assert [f.rule.id for f in report.failing(Level.HIGH)] == ["HOT102"]


def test_a_comment_for_another_rule_does_not_suppress(tmp_path: Path) -> None:
    report = lint(write(tmp_path / "t.yaml", TEMPLATE % ("", "# hotc:skip=HOT103 not this one")))
    assert _states(report)[("HOT101", "bastion")] is None


def test_hotc_toml_in_a_parent_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        tmp_path / "hotc.toml",
        """
        [lint]
        skip = [{rule = "HOT102", resource = "db", reason = "reached only through the VPN gateway"}]
        """,
    )
    sub = tmp_path / "stacks" / "app"
    path = write(sub / "t.yaml", TEMPLATE % ("", ""))
    monkeypatch.chdir(sub)
    config = load_config()
    assert config.path == str(tmp_path / "hotc.toml")
    report = lint(path, config=config)
    assert _states(report) == {
        ("HOT101", "bastion"): None,
        ("HOT102", "db"): "reached only through the VPN gateway",
    }
    assert [f.suppressed_by for f in report.findings if f.suppressed] == ["hotc.toml"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("[lint]\nskip = [{rule = 'HOT101'}]\n", "needs a reason"),
        ("[lint]\nskip = [{rule = 'HOT101', reason = 'x', resorce = 'a'}]\n", "unknown key(s) resorce"),
        ("[lint]\nskip = 'HOT101'\n", "skip must be a list"),
        ("[lint\n", "not valid TOML"),
    ],
)
def test_a_bad_hotc_toml_is_an_error_naming_it(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "hotc.toml").write_text(text)
    with pytest.raises(HotcError) as err:
        load_config(tmp_path)
    assert "hotc.toml" in err.value.message and message in err.value.message


def test_a_comment_at_the_end_of_the_entry_before_is_not_this_ones(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          bastion:
            type: OS::Neutron::SecurityGroup
            properties:
              rules: [{protocol: tcp, port_range_min: 22, port_range_max: 22}]
            # hotc:skip=HOT1* the bastion is reached from anywhere
          db:
            type: OS::Neutron::SecurityGroup
            properties:
              rules: [{protocol: tcp, port_range_min: 3306, port_range_max: 3306}]
        """,
    )
    assert _states(lint(path)) == {
        ("HOT101", "bastion"): "the bastion is reached from anywhere",
        ("HOT102", "db"): None,
    }
