"""Planner benchmark: plan time and peak memory for generated templates of 1k, 10k and 100k resources,
against an empty state (all creates) and a full state where 1% of the resources change.

    PYTHONPATH=. python bench/bench_plan.py [--sizes 1000,10000,100000]

Each case runs in its own subprocess so peak RSS (resource.getrusage ru_maxrss) is per case. Reported:
``load`` (template YAML -> LoadedStack, the front end's share), ``desired`` (build_desired), ``plan``
(build_desired + make_plan: the planner's whole share), the peak RSS of the whole process, and how much the
peak grew after loading (``+planner MB``: what planning added; with a full state it includes the
synthesised state), and the planner's own peak allocation traced by tracemalloc in a second, untimed run
(``planner traced MB``); ``constr s`` is the custom-constraint check ``hotc plan`` adds (no cloud: the pure
ones, and the list of cloud-backed ones left unchecked). The generated template repeats a 5-resource block
(net, subnet, port, server, value) with references inside each block, so Heat's implicit Port->Subnet and
Server->Subnet edges are exercised. The full state is synthesised from the desired state with every value
resolved; 1% of the resources then carry an old ``name`` (an in-place update) and, for servers, an old
``key_name`` (a replacement whose new id propagates to the port's dependents).
Aim: 10k resources in under 2 s and 300 MB, growth no worse than linear.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BLOCK = 5


def template_text(n: int) -> str:
    lines = [
        "heat_template_version: 2018-08-31",
        "parameters:",
        "  flavor: {type: string, default: m1.small}",
        "  port: {type: number, default: 8080}",
        "resources:",
    ]
    for i in range(n // BLOCK):
        lines += [
            f"  net{i}:",
            "    type: OS::Neutron::Net",
            f"    properties: {{name: net{i}}}",
            f"  sub{i}:",
            "    type: OS::Neutron::Subnet",
            f"    properties: {{network: {{get_resource: net{i}}}, cidr: 10.{i // 256 % 256}.{i % 256}.0/24, name: sub{i}}}",
            f"  port{i}:",
            "    type: OS::Neutron::Port",
            f"    properties: {{network: {{get_resource: net{i}}}, fixed_ips: [{{subnet: {{get_resource: sub{i}}}}}], name: port{i}}}",
            f"  srv{i}:",
            "    type: OS::Nova::Server",
            "    properties:",
            f"      name: srv{i}",
            "      flavor: {get_param: flavor}",
            "      image: cirros",
            "      key_name: k1",
            f"      networks: [{{port: {{get_resource: port{i}}}}}]",
            "      user_data: {str_replace: {template: 'port=P', params: {P: {get_param: port}}}}",
            f"  val{i}:",
            "    type: OS::Heat::Value",
            f"    properties: {{value: {{get_attr: [srv{i}, first_address]}}}}",
        ]
    return "\n".join(lines) + "\n"


def _full_state(desired: Any, changed_every: int) -> Any:
    from hotc.planner.resolve import StateResolver
    from hotc.state.document import ResourceState, StackState

    live: dict[str, Any] = {}
    resources: dict[str, ResourceState] = {}
    memo: dict[Any, Any] = {}
    resolver = StateResolver(live)
    for i, addr in enumerate(desired.order):  # a creation order
        r = desired.resources[addr]
        live[addr] = {"physical_id": f"id-{addr}", "attributes": {"first_address": f"10.0.0.{i % 250}"}}
        props = desired.resolve_properties(addr, resolver, memo)
        if i % changed_every == 0:
            props = dict(props)
            props["name"] = "old-name"
            if r.type == "OS::Nova::Server":
                props["key_name"] = "old-key"
        resources[addr] = ResourceState(
            addr,
            r.type,
            f"id-{addr}",
            "CREATE_COMPLETE",
            props,
            {"first_address": f"10.0.0.{i % 250}"},
            r.depends_on,
        )
    return StackState(lineage="bench-lineage", serial=1, stack_name="bench", resources=resources)


def run_one(n: int, full: bool) -> dict[str, Any]:
    from hotc.parser.api import load_stack
    from hotc.planner.api import PlanOptions, build_desired, check_constraints, make_plan
    from hotc.providers.checks import type_checks
    from hotc.providers.openstack import constraints as RULES

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        path.write_text(template_text(n))
        t0 = time.perf_counter()
        loaded, diags = load_stack(
            str(path), [], {}, {}, require_values=True, checks=type_checks(), max_size=None
        )
        t_load = time.perf_counter() - t0
    rss_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    errors = [d for d in diags if d.severity.value == "error"]
    if loaded is None or errors:
        raise SystemExit(f"bench template does not load: {errors[:3]}")
    state = None
    if full:
        state = _full_state(build_desired(loaded, "bench", "bench-lineage"), 100)
    t0 = time.perf_counter()
    desired = build_desired(loaded, "bench", state.lineage if state else None, state=state)
    t_desired = time.perf_counter() - t0
    plan = make_plan(desired, state, PlanOptions())
    t_plan = time.perf_counter() - t0
    t0 = time.perf_counter()
    check_constraints(
        desired, plan, None, rules=RULES
    )  # what `hotc plan` adds with no cloud: the pure custom constraints
    t_constraints = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # the planner's own allocations, measured in a second (untimed) run under tracemalloc
    del desired, plan
    import gc
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    desired = build_desired(loaded, "bench", state.lineage if state else None, state=state)
    plan = make_plan(desired, state, PlanOptions())
    _cur, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "resources": len(desired.resources),
        "state": "full, 1% changed" if full else "empty",
        "load_s": round(t_load, 3),
        "desired_s": round(t_desired, 3),
        "plan_s": round(t_plan, 3),
        "constraints_s": round(t_constraints, 3),
        "peak_rss_mb": round(rss_mb, 1),
        "planner_mb": round(rss_mb - rss_load, 1),
        "planner_traced_mb": round(traced_peak / 2**20, 1),
        "summary": plan.summary(),
    }


def main() -> None:
    if len(sys.argv) >= 2 and sys.argv[1] == "--one":
        print(json.dumps(run_one(int(sys.argv[2]), sys.argv[3] == "full")))
        return
    sizes = [1000, 10000, 100000]
    if len(sys.argv) >= 3 and sys.argv[1] == "--sizes":
        sizes = [int(x) for x in sys.argv[2].split(",")]
    print(
        f"{'resources':>10} {'state':<18} {'load s':>8} {'desired s':>10} {'plan s':>8} {'constr s':>8} {'peak MB':>8} "
        f"{'+planner MB':>11} {'planner traced MB':>17}  summary"
    )
    for n in sizes:
        for full in (False, True):
            proc = subprocess.run(
                [sys.executable, __file__, "--one", str(n), "full" if full else "empty"],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                print(f"{n:>10} {'full' if full else 'empty':<18} FAILED: {proc.stderr.strip()[-400:]}")
                continue
            r = json.loads(proc.stdout)
            s = {k: v for k, v in r["summary"].items() if v}
            print(
                f"{r['resources']:>10} {r['state']:<18} {r['load_s']:>8} {r['desired_s']:>10} {r['plan_s']:>8} "
                f"{r['constraints_s']:>8} {r['peak_rss_mb']:>8} {r['planner_mb']:>11} {r['planner_traced_mb']:>17}  {s}"
            )


if __name__ == "__main__":
    main()
