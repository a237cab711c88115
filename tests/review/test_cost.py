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


def _longest(plan: Plan) -> float:
    """The critical path's length worked out independently: every chain of non-delete changes, by brute
    force over the dependencies (memoised), plus the longest single delete."""
    from hotc.planner.cost import _DEFAULT_NATIVE, _DEFAULT_OPENSTACK, _DEFAULTS, _DELETE_FACTOR

    live = {c.address: c for c in plan.changes if not c.deposed}

    def secs(c: ResourceChange) -> float:
        if c.action is Action.NOOP:
            return 0.0
        base = _DEFAULTS.get(
            c.type, _DEFAULT_NATIVE if c.type.startswith("OS::Heat::") else _DEFAULT_OPENSTACK
        )
        return base * _DELETE_FACTOR if c.action is Action.DELETE else base

    memo: dict[str, float] = {}

    def end(a: str) -> float:
        if a not in memo:
            c = live[a]
            before = [end(d) for d in c.depends_on if d in live and live[d].action is not Action.DELETE]
            memo[a] = max(before, default=0.0) + secs(c)
        return memo[a]

    creates = [end(a) for a, c in live.items() if c.action is not Action.DELETE]
    deletes = [secs(c) for c in live.values() if c.action is Action.DELETE]
    return round(max(creates, default=0.0) + max(deletes, default=0.0), 2)


def _random_plan(seed: int) -> Plan:
    import random

    rnd = random.Random(seed)
    types = ["OS::Nova::Server", "OS::Neutron::Net", "OS::Cinder::Volume", "OS::Heat::Value"]
    actions = [Action.CREATE, Action.UPDATE, Action.REPLACE, Action.NOOP, Action.DELETE]
    n = rnd.randint(1, 40)
    names = [f"r{i}" for i in range(n)]
    # the order the dependencies follow: the plan's order mostly, with about one change in five moved to a
    # random place, so that some changes depend on later ones (out of the plan's order) yet, as in any plan,
    # no dependencies make a cycle
    rank = {a: float(i) if rnd.random() < 0.8 else rnd.uniform(-1, n) for i, a in enumerate(names)}
    changes = []
    for i, a in enumerate(names):
        # dependencies on changes before it in that order, on addresses outside the plan, and on deletes
        picked = rnd.sample(names, k=min(len(names), rnd.randint(0, 3)))
        deps = tuple(d for d in picked if rank[d] < rank[a])
        deps += ("gone",) if i % 7 == 3 else ()
        changes.append(ResourceChange(a, rnd.choice(types), rnd.choice(actions), None, {}, depends_on=deps))
    if n > 2 and seed % 3 == 0:  # a deposed leftover of a replace, with the address of a live change
        changes.append(
            ResourceChange(names[1], "OS::Nova::Server", Action.DELETE, {}, None, deposed=True, depends_on=())
        )
    return Plan(stack_name="s", mode="normal", changes=tuple(changes))


def test_the_random_plans_depend_out_of_order_without_cycles() -> None:
    """The generator below makes what it should: some changes depend on later ones, and no seed's
    dependencies make a cycle (every seed is a plan, none is skipped)."""
    later = 0
    for seed in range(40):
        plan = _random_plan(seed)
        order = {c.address: i for i, c in enumerate(plan.changes) if not c.deposed}
        deps = {c.address: [d for d in c.depends_on if d in order] for c in plan.changes if not c.deposed}
        later += sum(order[d] > order[a] for a, ds in deps.items() for d in ds)
        done: set[str] = set()
        while len(done) < len(deps):  # peel the changes whose dependencies are all done: a cycle stops it
            ready = {a for a, ds in deps.items() if a not in done and all(d in done for d in ds)}
            assert ready, f"seed {seed}: a dependency cycle among {sorted(set(deps) - done)}"
            done |= ready
    assert later >= 10


@pytest.mark.parametrize("seed", range(40))
def test_the_estimate_is_the_longest_chain_on_random_plans(seed: int) -> None:
    plan = _random_plan(seed)
    want = _longest(plan)
    got = estimate(plan)
    assert got.seconds == want
    # the path is a chain of dependencies, each after the one before it
    path = list(got.critical_path)
    by = {c.address: c for c in plan.changes if not c.deposed}
    assert all(by[a].action is not Action.NOOP for a in path)
