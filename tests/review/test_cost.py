"""A plan's cost: the critical-path estimate (history-measured or default durations), blast radius, prices."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from hotc.errors import HotcError
from hotc.planner.cost import blast_radius, estimate, measured_durations
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.prices import cost_delta, load_prices
from hotc.values import Unknown


@dataclass(frozen=True)
class Ev:
    address: str
    type: str
    status: str
    time: str


def _chain() -> Plan:
    return Plan(
        stack_name="s",
        mode="normal",
        changes=(
            ResourceChange("net", "OS::Neutron::Net", Action.CREATE, None, {}),
            ResourceChange("vol", "OS::Cinder::Volume", Action.CREATE, None, {"size": 10}),
            ResourceChange(
                "srv", "OS::Nova::Server", Action.CREATE, None, {"flavor": "m1.small"}, depends_on=("net",)
            ),
            ResourceChange(
                "att", "OS::Cinder::VolumeAttachment", Action.CREATE, None, {}, depends_on=("srv", "vol")
            ),
        ),
    )


def test_critical_path_follows_the_longest_chain_of_default_durations() -> None:
    est = estimate(_chain())
    assert est.critical_path == ("net", "srv", "att")
    assert est.seconds == pytest.approx(2.0 + 40.0 + 10.0)
    assert est.measured_types == ()


def test_the_stacks_own_history_replaces_the_defaults() -> None:
    events = [
        Ev("old_srv", "OS::Nova::Server", "CREATE_IN_PROGRESS", "2026-01-01T00:00:00Z"),
        Ev("old_srv", "OS::Nova::Server", "CREATE_COMPLETE", "2026-01-01T00:00:05Z"),
        Ev("v", "OS::Cinder::Volume", "CREATE_IN_PROGRESS", "2026-01-01T00:00:00Z"),
        Ev("v", "OS::Cinder::Volume", "CREATE_COMPLETE", "2026-01-01T00:01:40Z"),
    ]
    measured = measured_durations(events)
    assert measured == {("OS::Nova::Server", "CREATE"): 5.0, ("OS::Cinder::Volume", "CREATE"): 100.0}
    est = estimate(_chain(), measured)
    assert est.critical_path == ("vol", "att")  # the slow volume is now the critical path
    assert est.seconds == pytest.approx(110.0)
    assert est.measured_types == ("OS::Cinder::Volume", "OS::Nova::Server")


def test_blast_radius_names_what_a_replacement_causes() -> None:
    plan = Plan(
        stack_name="s",
        mode="normal",
        changes=(
            ResourceChange("port", "OS::Neutron::Port", Action.REPLACE, {}, {}),
            ResourceChange(
                "srv", "OS::Nova::Server", Action.REPLACE, {}, {"networks": [{"port": Unknown.of("port")}]}
            ),
            ResourceChange("other", "OS::Heat::None", Action.UPDATE, {}, {"x": 1}),
        ),
    )
    radius = blast_radius(plan)
    assert list(radius) == ["port"]
    assert (
        radius["port"][0][0] == "srv"
        and "replaced because its properties read port, which is replaced" in radius["port"][0][1]
    )


def test_prices_give_a_monthly_delta(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(
        "currency: EUR\nflavors: {m1.small: 10, m1.large: 40}\nvolume_gb: 0.5\nfloating_ip: 3\n"
    )
    table = load_prices(tmp_path / "p.yaml")
    plan = Plan(
        stack_name="s",
        mode="normal",
        changes=(
            ResourceChange(
                "srv", "OS::Nova::Server", Action.UPDATE, {"flavor": "m1.small"}, {"flavor": "m1.large"}
            ),
            ResourceChange("vol", "OS::Cinder::Volume", Action.CREATE, None, {"size": 20}),
            ResourceChange("fip", "OS::Neutron::FloatingIP", Action.DELETE, {}, None),
            ResourceChange("x", "OS::Nova::Server", Action.CREATE, None, {"flavor": Unknown.of("f")}),
        ),
    )
    d = cost_delta(plan, table)
    assert d.monthly_delta == pytest.approx(30 + 10 - 3)
    assert d.unpriced == ("x",) and d.currency == "EUR"


def test_bad_price_files_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("flavors: {m1.small: cheap}\n")
    with pytest.raises(HotcError, match="flavors.m1.small: expected a number"):
        load_prices(tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text("volumes: 1\n")
    with pytest.raises(HotcError, match="unknown key"):
        load_prices(tmp_path / "b.yaml")
