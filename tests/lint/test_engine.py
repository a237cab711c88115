"""The engine's guarantees: hidden values never appear in a message, a failing rule is reported and does not stop
the others, an environment file's secret is found and suppressed where it is written."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

from hotc.lint.api import Kind, all_rules, run_rules
from hotc.lint.view import ResourceView
from tests.clirun import run_hotc
from tests.lint.conftest import lint, load, write

HIDDEN = """
heat_template_version: 2018-08-31
parameters:
  admin_cidr: {type: string, hidden: true, default: 0.0.0.0/0}
  acl: {type: string, hidden: true, default: ".r:*,.rlistings"}
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: {get_param: admin_cidr}}
  bucket:
    type: OS::Swift::Container
    properties: {X-Container-Read: {get_param: acl}}
"""


def test_hidden_values_never_appear(tmp_path: Path) -> None:
    write(tmp_path / "t.yaml", HIDDEN)
    report = lint(tmp_path / "t.yaml")
    assert {f.rule.id for f in report.active()} >= {"HOT101", "HOT501", "HOT503", "HOT002"}
    for fmt in ("text", "json", "sarif", "markdown"):
        out = run_hotc(tmp_path, "lint", "-t", "t.yaml", "--format", fmt).stdout
        if fmt == "sarif":  # the rules' own descriptions name 0.0.0.0/0 and .r:*: look at the results
            out = json.dumps(json.loads(out)["runs"][0]["results"])
        assert "HOT101" in out
        assert "0.0.0.0/0" not in out and ".r:*" not in out and ".rlistings" not in out, fmt


def test_a_failing_rule_is_reported_and_the_others_run(tmp_path: Path) -> None:
    def boom(res: ResourceView) -> Iterator[object]:
        raise KeyError("oops")

    base = next(r for r in all_rules() if r.id == "HOT101")
    broken = dataclasses.replace(base, id="HOT999", name="Broken", check_resource=boom)
    stack = load(write(tmp_path / "t.yaml", HIDDEN))
    report = run_rules(stack, rules=[broken, base])
    [failed] = [f for f in report.findings if f.rule.id == "HOT999"]
    assert failed.kind is Kind.CANNOT_TELL and "KeyError" in failed.message and failed.subject == "sg"
    assert [f.rule.id for f in report.active()] == ["HOT101"]


def test_a_secret_in_an_environment_file(tmp_path: Path) -> None:
    write(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        parameters:
          db_password: {type: string, hidden: true}
          api_token: {type: string, hidden: true}
        resources: {}
        """,
    )
    env = write(
        tmp_path / "env.yaml",
        """
        parameters:
          db_password: Sup3r-s3cret
        parameter_defaults:
          # hotc:skip=HOT004 this file is generated in CI from the vault and never committed
          api_token: 0c8f4e2a9b7d
        """,
    )
    report = lint(tmp_path / "t.yaml", (env,))
    found = {(f.subject, Path(f.pos.file).name, f.pos.line, f.suppressed) for f in report.findings if f.pos}
    assert found == {
        ("db_password", "env.yaml", 2, None),
        ("api_token", "env.yaml", 5, "this file is generated in CI from the vault and never committed"),
    }
    out = run_hotc(tmp_path, "lint", "-t", "t.yaml", "-e", "env.yaml").stdout
    assert "Sup3r-s3cret" not in out and "0c8f4e2a9b7d" not in out
