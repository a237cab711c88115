"""The apply's pre-flight check: with no cloud configured (or a service missing from its catalog), an apply
whose plan acts on OpenStack resources fails once, before anything runs, having changed nothing; a plan of
Heat-native resources alone needs no cloud."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hotc.errors import HotcError
from hotc.ops.preflight import needed_services, preflight
from hotc.planner.api import Action, Plan, ResourceChange
from tests.clirun import run_hotc as hotc

MIXED = """
heat_template_version: 2018-08-31
resources:
  local_a: {type: OS::Heat::TestResource, properties: {value: a}}
  net: {type: OS::Neutron::Net, properties: {name: n}}
  local_b: {type: OS::Heat::TestResource, properties: {value: b}}
"""


def test_no_cloud_fails_once_and_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OS_CLOUD", "OS_AUTH_URL", "OS_AUTH_TYPE", "OS_CLIENT_CONFIG_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "no-clouds.yaml"))
    (tmp_path / "t.yaml").write_text(MIXED)
    r = hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve")
    assert r.returncode == 1, r.stdout
    assert r.stderr.count("error:") == 1 and "nothing was changed" in r.stderr and "net" in r.stderr
    assert not (tmp_path / ".hotc" / "t.json").exists()  # not even the Heat-native resources ran
    # Heat-native resources alone: no cloud needed
    (tmp_path / "n.yaml").write_text(
        MIXED.replace("  net: {type: OS::Neutron::Net, properties: {name: n}}\n", "")
    )
    r = hotc(tmp_path, "apply", "-t", "n.yaml", "--auto-approve")
    assert r.returncode == 0, r.stderr


class _Conn:
    def __init__(self, services: set[str]) -> None:
        self.services = services

    def endpoint_for(self, service: str) -> str | None:
        return f"http://{service}" if service in self.services else None


class _OpenStackDriver:
    pass


_OpenStackDriver.__module__ = "hotc.providers.openstack.fake"


def _plan(*changes: tuple[str, str, Action]) -> Plan:
    return Plan("s", "normal", tuple(ResourceChange(a, t, act, {}, {}) for a, t, act in changes))


def test_a_service_missing_from_the_catalog_is_named() -> None:
    drivers: Any = lambda _t: _OpenStackDriver()  # noqa: E731
    plan = _plan(
        ("net", "OS::Neutron::Net", Action.CREATE),
        ("lb", "OS::Octavia::LoadBalancer", Action.CREATE),
        ("old", "OS::Nova::Server", Action.NOOP),
    )
    assert needed_services(plan, drivers) == {"network": ["net"], "load-balancer": ["lb"]}
    preflight(plan, drivers, lambda: _Conn({"network", "load-balancer"}))
    with pytest.raises(HotcError) as exc:
        preflight(plan, drivers, lambda: _Conn({"network"}))
    assert "load-balancer (for lb)" in exc.value.message and "nothing was changed" in exc.value.message
    # a stand-in driver (a plugin's, a test's) is left to itself: no cloud is asked for
    preflight(plan, lambda _t: object(), lambda: (_ for _ in ()).throw(AssertionError("asked")))
