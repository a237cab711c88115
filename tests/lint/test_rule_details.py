"""Cases the corpus run showed, each a rule's edge: what is a secret and what only looks like one; open security
group rules with no remote address."""

from __future__ import annotations

import pytest

from hotc.lint.api import Kind
from hotc.lint.rules._common import secret_name, text_secrets


def _of(report, rule_id: str) -> list[tuple[Kind, str]]:  # type: ignore[no-untyped-def]
    return [(f.kind, f.subject) for f in report.findings if f.rule.id == rule_id]


@pytest.mark.parametrize(
    "name, secret",
    [
        ("db_password", True),
        ("DBRootPassword", True),
        ("api_key", True),
        ("auth_token", True),
        ("password_length", False),
        ("key_name", False),
        ("secret_ref", False),
        ("db_username", False),
        ("image", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert secret_name(name) is secret


@pytest.mark.parametrize(
    "text, found",
    [
        ("export DB_PASSWORD=s3cr3t-Pa55\n", True),
        ("password: Tr0ub4dor3\n", True),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n", True),
        ('mysqladmin -u root password "$DB_PASSWORD"\n', False),
        ("password=%(password)s\n", False),
        ("$secureSafeModePwd = ConvertTo-SecureString $SafeModePwd -AsPlainText -Force\n", False),
        ("password: {{ vault_password }}\n", False),
        ("PASSWORD=DB_PASS\n", False),
    ],
)
def test_text_secrets(text: str, found: bool) -> None:
    assert bool(text_secrets(text)) is found


def test_str_replace_placeholders_are_not_literals(lint_text) -> None:  # type: ignore[no-untyped-def]
    report = lint_text(
        """
        heat_template_version: 2018-08-31
        parameters:
          pw: {type: string, hidden: true}
        resources:
          cfg:
            type: OS::Heat::SoftwareConfig
            properties:
              config:
                str_replace:
                  template: "mysqladmin password=db_rootpassword_value\\n"
                  params: {db_rootpassword_value: {get_param: pw}}
        """
    )
    assert _of(report, "HOT801") == []


def test_hidden_user_names_with_defaults_are_not_secrets(lint_text) -> None:  # type: ignore[no-untyped-def]
    report = lint_text(
        """
        heat_template_version: 2018-08-31
        parameters:
          db_username: {type: string, hidden: true, default: admin}
          db_password: {type: string, hidden: true, default: admin}
          replicas: {type: number, hidden: true, default: 2}
        resources: {}
        """
    )
    assert _of(report, "HOT002") == [(Kind.FINDING, "db_password")]


def test_outputs_of_secrets(lint_text) -> None:  # type: ignore[no-untyped-def]
    report = lint_text(
        """
        heat_template_version: 2018-08-31
        parameters:
          token: {type: string, hidden: true}
        resources:
          suffix: {type: OS::Heat::RandomString}
          admin_password: {type: OS::Heat::RandomString}
        outputs:
          name_suffix: {value: {get_attr: [suffix, value]}}
          password_length:
            value: {yaql: {expression: $.data.p.len(), data: {p: {get_attr: [admin_password, value]}}}}
          password_digest: {value: {digest: [sha256, {get_attr: [admin_password, value]}]}}
          password: {value: {get_attr: [admin_password, value]}}
          token: {value: {get_param: token}}
        """
    )
    assert set(_of(report, "HOT003")) == {
        (Kind.FINDING, "password"),
        (Kind.FINDING, "token"),
        (Kind.CANNOT_TELL, "password_length"),
    }


def test_a_rule_without_remote_address_is_open_to_all(lint_text) -> None:  # type: ignore[no-untyped-def]
    report = lint_text(
        """
        heat_template_version: 2018-08-31
        resources:
          app: {type: OS::Neutron::SecurityGroup}
          sg:
            type: OS::Neutron::SecurityGroup
            properties:
              rules:
                - {protocol: tcp, port_range_min: 22, port_range_max: 22}
                - {protocol: tcp, port_range_min: 3306, port_range_max: 3306, remote_mode: remote_group_id}
                - {protocol: tcp, port_range_min: 6379, port_range_max: 6379, remote_mode: remote_group_id,
                   remote_group_id: {get_resource: app}}
                - {protocol: icmp}
                - {direction: egress}
        """
    )
    assert _of(report, "HOT101") == [(Kind.FINDING, "sg")]
    assert _of(report, "HOT102") == []  # a remote group: not the world
    assert _of(report, "HOT103") == []  # icmp has no ports; egress is not ingress


def test_secrets_in_other_types_properties(lint_text) -> None:  # type: ignore[no-untyped-def]
    report = lint_text(
        """
        heat_template_version: 2018-08-31
        parameters:
          svc_token: {type: string}
        resources:
          db:
            type: OS::Zun::Container
            properties:
              image: mysql:5.7
              environment: {MYSQL_ROOT_PASSWORD: rootpass, MYSQL_DATABASE: wordpress}
          svc:
            type: OS::Manila::SecurityService
            properties: {type: ldap, user: manila, password: {get_param: svc_token}}
          server:
            type: OS::Nova::Server
            properties: {flavor: m1, image: cirros, admin_pass: hunter22}
        """
    )
    found = {(f.subject, f.message) for f in report.active() if f.rule.id == "HOT005"}
    assert found == {
        ("db", "environment: MYSQL_ROOT_PASSWORD is written in clear"),
        ("svc", "password comes from parameter 'svc_token', which is not hidden"),
    }  # the server's admin_pass is HOT201's, not reported twice
    assert [f.subject for f in report.active() if f.rule.id == "HOT201"] == ["server"]
