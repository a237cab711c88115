"""check_plan_support on a plan of many software deployments: the same errors as a check that scans every
change for each deployment, in the same order, from one pass over the plan (not one per deployment)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.signals import check_plan_support
from hotc.values import Unknown, WaitsOn


class _Counted(tuple):  # type: ignore[type-arg]
    """The plan's changes, counting the walks over them."""

    walks = 0

    def __iter__(self) -> Iterator[Any]:
        type(self).walks += 1
        return super().__iter__()


def _reference(plan: Plan) -> list[str]:
    """The deployment-server errors as a scan of every change for each deployment finds them."""
    out = []
    for c in plan.changes:
        if c.action not in (Action.CREATE, Action.UPDATE, Action.REPLACE) or c.import_id is not None:
            continue
        if c.type == "OS::Heat::SoftwareDeployment":
            servers = [o for o in plan.changes if o.address in c.depends_on and o.type == "OS::Nova::Server"]
            if len(servers) == 1 and (servers[0].after or {}).get("user_data_format") != "SOFTWARE_CONFIG":
                out.append(f"{c.address}: the server {servers[0].address} must")
        if c.type == "OS::Heat::SoftwareDeploymentGroup":
            named = {w.address for v in (c.after or {})["servers"].values() for w in v.waits_on}
            for o in plan.changes:
                if o.address in named and o.type == "OS::Nova::Server":
                    if (o.after or {}).get("user_data_format") != "SOFTWARE_CONFIG":
                        out.append(f"{c.address}: the server {o.address} must")
    return out


def _plan(seed: int) -> Plan:
    rnd = random.Random(seed)
    changes: list[ResourceChange] = []
    n = 300
    for i in range(n):
        fmt = rnd.choice(["SOFTWARE_CONFIG", "RAW", None])
        after = {"user_data_format": fmt} if fmt else {}
        changes.append(ResourceChange(f"srv{i}", "OS::Nova::Server", Action.CREATE, None, after))
        if rnd.random() < 0.1:  # a deposed leftover with the same address: two server changes there
            changes.append(
                ResourceChange(f"srv{i}", "OS::Nova::Server", Action.DELETE, {}, None, deposed=True)
            )
    for i in range(n):
        on = tuple(sorted({f"srv{rnd.randrange(n)}" for _ in range(rnd.choice([1, 1, 1, 2]))}))
        changes.append(
            ResourceChange(
                f"dep{i}", "OS::Heat::SoftwareDeployment", Action.CREATE, None, {"server": "x"}, depends_on=on
            )
        )
    for g in range(5):
        members = {f"m{k}": Unknown(frozenset({WaitsOn(f"srv{rnd.randrange(n)}")})) for k in range(6)}
        changes.append(
            ResourceChange(
                f"group{g}", "OS::Heat::SoftwareDeploymentGroup", Action.CREATE, None, {"servers": members}
            )
        )
    rnd.shuffle(changes)
    return Plan(stack_name="s", mode="normal", changes=_Counted(changes))


@pytest.mark.parametrize("seed", range(5))
def test_many_deployments_give_the_same_errors_from_one_pass(seed: int) -> None:
    plan = _plan(seed)
    want = _reference(plan)
    assert want  # the sample has servers without SOFTWARE_CONFIG under deployments
    _Counted.walks = 0
    got = check_plan_support(None, plan, drivers=lambda _t: object())
    walks = _Counted.walks
    assert [d.message.split(" must ", 1)[0] + " must" for d in got] == want
    assert all(d.code == "deployment-server" for d in got)
    assert walks <= 2  # the changes once, and once more for the index of servers (not once per deployment)
