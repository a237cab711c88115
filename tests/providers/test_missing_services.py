"""Types of the OpenStack services the test cloud lacks (Zaqar, Blazar, Magnum, ...):
every one Heat 27 knows validates (a warning says plan will refuse it, naming the service), and ``hotc plan``
refuses it with that reason, nothing planned; mapped to OS::Heat::None in an environment, it plans."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.parser.resource_types import HIDDEN, RESOURCE_TYPES
from hotc.providers.drivers import support_problem
from hotc.providers.missing_services import SERVICES
from tests.clirun import run_hotc

MISSING = sorted(
    n for n, status in RESOURCE_TYPES.items() if status != HIDDEN and "::".join(n.split("::")[:2]) in SERVICES
)


def test_the_services_of_the_issue_are_covered() -> None:
    namespaces = {"::".join(n.split("::")[:2]) for n in MISSING}
    assert {
        "OS::Zaqar",
        "OS::Blazar",
    } <= namespaces
    assert (
        len(MISSING) >= 10
    )  # Blazar, Magnum, Zaqar, ... (Aodh, Barbican, Mistral, Manila and Designate run now)


@pytest.mark.parametrize("type_name", MISSING)
def test_type_validates_and_plan_refuses_it_naming_the_service(type_name: str, tmp_path: Path) -> None:
    service = SERVICES["::".join(type_name.split("::")[:2])].split(" (")[0]
    problem = support_problem(type_name)
    assert problem is not None and service in problem
    (tmp_path / "t.yaml").write_text(
        f"heat_template_version: 2018-08-31\nresources:\n  thing:\n    type: {type_name}\n"
    )
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"t.yaml:4:11: warning: {type_name}: hotc cannot create or update this type" in r.stdout + r.stderr
    assert service in r.stdout + r.stderr
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "-o", "p.json")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"t.yaml:3:3: error: thing: hotc cannot create or update {type_name}: {problem}" in r.stderr
    assert not (tmp_path / "p.json").exists()
    assert [f.name for f in (tmp_path / ".hotc").glob("*") if not f.name.endswith(".lock")] == []  # no state


def test_a_missing_service_type_mapped_to_none_plans(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        "  alarm: {type: OS::Aodh::Alarm, properties: {meter_name: cpu, threshold: 50}}\n"
        "  secret: {type: OS::Barbican::Secret}\n"
    )
    (tmp_path / "e.yaml").write_text(
        "resource_registry:\n  OS::Aodh::Alarm: OS::Heat::None\n  OS::Barbican::Secret: OS::Heat::None\n"
    )
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "-e", "e.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 to create" in r.stdout
