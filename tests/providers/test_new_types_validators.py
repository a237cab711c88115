"""The cross-property checks Heat's plugins make on the identity and Octavia L7 types (``validate()``, run by
Heat at create, not by ``template validate``): warnings in ``hotc validate``, errors in ``hotc plan``, with
Heat's messages; a correct template passes both."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clirun import run_hotc

BAD = {
    "roles: {role: admin, project: p, domain: d}": (
        "OS::Keystone::User",
        "roles: [{role: admin, project: p, domain: d}]",
        "Cannot define the following properties at the same time: project, domain",
    ),
    "roles: neither project nor domain": (
        "OS::Keystone::GroupRoleAssignment",
        "group: g, roles: [{role: admin}]",
        "Either project or domain must be specified for role admin",
    ),
    "REJECT with a redirect": (
        "OS::Octavia::L7Policy",
        "listener: l, action: REJECT, redirect_url: 'http://x'",
        "Properties redirect_pool and redirect_url are not required when action type is set to REJECT.",
    ),
    "REDIRECT_TO_POOL without a pool": (
        "OS::Octavia::L7Policy",
        "listener: l, action: REDIRECT_TO_POOL",
        "Property redirect_pool is required when action type is set to REDIRECT_TO_POOL.",
    ),
    "REDIRECT_TO_URL with a pool": (
        "OS::Octavia::L7Policy",
        "listener: l, action: REDIRECT_TO_URL, redirect_url: 'http://x', redirect_pool: p",
        "redirect_pool property should only be specified for action with value REDIRECT_TO_POOL.",
    ),
    "HEADER rule without a key": (
        "OS::Octavia::L7Rule",
        "l7policy: p, type: HEADER, compare_type: EQUAL_TO, value: v",
        "Property key is missing. This property should be specified for rules of HEADER and COOKIE types.",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_heat_create_time_checks_warn_in_validate_and_fail_plan(case: str, tmp_path: Path) -> None:
    type_name, props, message = BAD[case]
    (tmp_path / "t.yaml").write_text(
        f"heat_template_version: 2018-08-31\nresources:\n  x:\n    type: {type_name}\n    properties: {{{props}}}\n"
    )
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0 and f"warning: {type_name}: {message}" in r.stdout + r.stderr, (
        r.stdout + r.stderr
    )
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1 and f"error: {type_name}: {message}" in r.stderr, r.stdout + r.stderr


def test_correct_ones_pass(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        "  u: {type: OS::Keystone::User, properties: {roles: [{role: admin, project: p}, {role: r, domain: d}]}}\n"
        "  p: {type: OS::Octavia::L7Policy, properties: {listener: l, action: REDIRECT_TO_URL, redirect_url: 'http://x'}}\n"
        "  r: {type: OS::Octavia::L7Rule, properties: {l7policy: p, type: COOKIE, key: k, compare_type: REGEX, value: v}}\n"
    )
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0 and "warning" not in r.stdout + r.stderr, r.stdout + r.stderr
