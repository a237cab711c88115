"""Rules read resolved values: parameter defaults, environment values, conditions; "cannot tell" when the value
is unknown before apply; findings in nested templates and group member definitions at their own file and line."""

from __future__ import annotations

from pathlib import Path

from hotc.lint.api import Kind
from tests.lint.conftest import lint, write

SG = """
heat_template_version: 2018-08-31
parameters:
  port: {type: number%s}
  cidr: {type: string, default: 0.0.0.0/0}
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - protocol: tcp
          port_range_min: {get_param: port}
          port_range_max: {get_param: port}
          remote_ip_prefix: {get_param: cidr}
"""


def _hot101(report) -> list[tuple[Kind, int]]:  # type: ignore[no-untyped-def]
    return [(f.kind, f.pos.line if f.pos else 0) for f in report.findings if f.rule.id == "HOT101"]


def test_a_parameter_default_is_resolved(tmp_path: Path) -> None:
    report = lint(write(tmp_path / "t.yaml", SG % ", default: 3389"))
    [f] = [f for f in report.findings if f.rule.id == "HOT101"]
    assert f.kind is Kind.FINDING and "RDP" in f.message
    assert (Path(f.pos.file).name, f.pos.line, f.pos.col) == ("t.yaml", 10, 11)  # the rule's list item


def test_a_parameter_without_a_value_cannot_be_told(tmp_path: Path) -> None:
    report = lint(write(tmp_path / "t.yaml", SG % ""))
    assert _hot101(report) == [(Kind.CANNOT_TELL, 10)]
    assert not report.active()
    # and the value from an environment file is used
    env = write(tmp_path / "env.yaml", "parameters: {port: 22}\n")
    report = lint(tmp_path / "t.yaml", (env,))
    assert _hot101(report) == [(Kind.FINDING, 10)]


def test_a_resource_attribute_cannot_be_told(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          net: {type: OS::Neutron::Net}
          rule:
            type: OS::Neutron::SecurityGroupRule
            properties:
              security_group: web
              port_range_min: 22
              port_range_max: 22
              remote_ip_prefix: {get_attr: [net, name]}
        """,
    )
    assert _hot101(lint(path)) == [(Kind.CANNOT_TELL, 10)]


def test_the_if_function_follows_its_condition(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        parameters:
          public: {type: boolean, default: false}
        conditions:
          is_public: {get_param: public}
        resources:
          net:
            type: OS::Neutron::Net
            properties:
              shared: {if: [is_public, true, false]}
        """,
    )
    assert not [f for f in lint(path).findings if f.rule.id == "HOT107"]
    env = write(tmp_path / "env.yaml", "parameters: {public: true}\n")
    [f] = [f for f in lint(path, (env,)).findings if f.rule.id == "HOT107"]
    assert f.kind is Kind.FINDING


def test_nested_templates_and_group_members(tmp_path: Path) -> None:
    write(
        tmp_path / "member.yaml",
        """
        heat_template_version: 2018-08-31
        parameters:
          ssh: {type: number, default: 22}
        resources:
          sg:
            type: OS::Neutron::SecurityGroup
            properties:
              rules: [{protocol: tcp, port_range_min: {get_param: ssh}, port_range_max: 22}]
        """,
    )
    path = write(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          nested:
            type: member.yaml
          ports:
            type: OS::Heat::ResourceGroup
            properties:
              count: 2
              resource_def:
                type: OS::Neutron::Port
                properties:
                  network: private
                  port_security_enabled: false
        """,
    )
    report = lint(path)
    where = {(f.rule.id, Path(f.pos.file).name, f.pos.line, f.subject) for f in report.active() if f.pos}
    assert ("HOT101", "member.yaml", 8, "sg") in where  # no remote prefix: any address
    assert ("HOT104", "t.yaml", 13, "ports[*]") in where


def test_a_resource_whose_condition_is_false_is_not_checked(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        parameters:
          env: {type: string, default: prod}
          debug: {type: boolean}
        conditions:
          is_dev: {equals: [{get_param: env}, dev]}
          debugging: {get_param: debug}
        resources:
          dev_net:
            type: OS::Neutron::Net
            condition: is_dev
            properties: {shared: true}
          debug_net:
            type: OS::Neutron::Net
            condition: debugging
            properties: {shared: true}
          inline_net:
            type: OS::Neutron::Net
            condition: {not: is_dev}
            properties: {shared: true}
        """,
    )
    found = {f.subject for f in lint(path).active() if f.rule.id == "HOT107"}
    assert found == {"debug_net", "inline_net"}  # debug_net's condition is unknown: checked
    env = write(tmp_path / "env.yaml", "parameters: {env: dev}\n")
    found = {f.subject for f in lint(path, (env,)).active() if f.rule.id == "HOT107"}
    assert found == {"dev_net", "debug_net"}
