"""The quota types offline: their schemas as Heat's (a required ``project``, integer limits of at least -1 that
are all updated in place, Heat's refusal of a quota that sets no limit: a warning in ``hotc validate``, an error
at the property's place in ``hotc plan``), the request bodies each service gets (only the limits given, under
the API's keys), Cinder's refusal of limits below usage, and that ``--from-heat`` derives their ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.providers.base import translates_heat_ids
from hotc.providers.drivers import driver_for
from hotc.providers.openstack.cinder.quota import CinderQuotaDriver, below_usage
from hotc.providers.openstack.neutron.quota import NeutronQuotaDriver
from hotc.providers.openstack.nova.quota import NovaQuotaDriver
from hotc.providers.openstack.octavia.quota import OctaviaQuotaDriver
from hotc.providers.openstack.quota_set import _message
from hotc.providers.registry import get_schema
from hotc.providers.validation import validate_property_values
from tests.clirun import run_hotc

TYPES = ("OS::Nova::Quota", "OS::Neutron::Quota", "OS::Cinder::Quota", "OS::Octavia::Quota")


@pytest.mark.parametrize("name", TYPES)
def test_schema_project_replaces_limits_update_in_place(name: str) -> None:
    rtype = get_schema(name)
    assert rtype is not None
    assert rtype.properties["project"].required and not rtype.properties["project"].update_allowed
    limits = set(rtype.properties) - {"project"}
    assert limits and rtype.update_allowed == limits
    for n in limits:
        p = rtype.properties[n]
        assert p.type == "integer" and not p.required
        assert [(c.kind, c.spec) for c in p.constraints] == [("range", {"min": -1})]
    assert translates_heat_ids(driver_for(name))


@pytest.mark.parametrize("name", TYPES)
def test_limits_below_minus_one_and_no_limit_at_all_are_refused(name: str) -> None:
    rtype = get_schema(name)
    assert rtype is not None
    limit = sorted(set(rtype.properties) - {"project"})[0]
    assert validate_property_values(rtype, {"project": "p", limit: -1}, None) == []
    low = validate_property_values(rtype, {"project": "p", limit: -2}, None)
    assert len(low) == 1 and limit in low[0].message
    none = validate_property_values(rtype, {"project": "p"}, None)
    assert len(none) == 1 and "sets no limit" in none[0].message and limit in none[0].message


def test_no_limit_warns_in_validate_and_fails_plan_at_its_place(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        "  q:\n    type: OS::Cinder::Quota\n    properties:\n      project: demo\n"
    )
    msg = "the quota sets no limit: give at least one of backup_gigabytes, backups, gigabytes, snapshots, volumes"
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0 and msg in r.stdout + r.stderr, r.stdout + r.stderr
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1 and msg in r.stderr and "t.yaml:6:" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_bodies_carry_the_given_limits_under_each_api_s_keys() -> None:
    props = {"project": "p", "cores": 4, "ram": -1, "instances": None}
    assert NovaQuotaDriver().body(props) == {"quota_set": {"cores": 4, "ram": -1}}
    assert NeutronQuotaDriver().body({"project": "p", "floatingip": 2, "subnetpool": 0}) == {
        "quota": {"floatingip": 2, "subnetpool": 0}
    }
    assert CinderQuotaDriver().body({"project": "p", "backup_gigabytes": 5}) == {
        "quota_set": {"backup_gigabytes": 5}
    }
    lb = OctaviaQuotaDriver().body({"project": "p", "loadbalancer": 1, "healthmonitor": 2, "member": -1})
    assert lb == {"quota": {"load_balancer": 1, "health_monitor": 2, "member": -1}}


def test_nova_calls_ask_for_microversion_2_1() -> None:
    assert NovaQuotaDriver().headers["OpenStack-API-Version"] == "compute 2.1"


def test_cinder_limits_below_usage() -> None:
    usage = {"volumes": {"limit": 10, "in_use": 3}, "gigabytes": {"limit": 100, "in_use": 40}}
    assert below_usage({"volumes": 3, "gigabytes": -1}, usage) == []
    assert below_usage({"volumes": 2, "gigabytes": 39, "snapshots": 0}, usage) == [
        "volumes 2 < in use 3",
        "gigabytes 39 < in use 40",
    ]


def test_service_messages() -> None:
    assert _message({"faultstring": "Invalid input"}) == "Invalid input"
    assert _message({"NeutronError": {"message": "bad quota", "type": "x"}}) == "bad quota"
    assert _message({"badRequest": {"message": "Quota value -5 is invalid", "code": 400}}).startswith("Quota")
