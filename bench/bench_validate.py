"""Validate throughput: the shared corpus (templates/s, resources/s) and a generated 10,000-resource template.

    python bench/bench_validate.py [--resources N] [--repeat R] [--profile]

Prints figures; it asserts nothing (speed targets are benchmarks, not tests). The aim: the 10k-resource
template parses and validates in under 1 s.

For the generated template it also prints the median of the runs (wall and CPU time) and a phase line:
decode (text -> positioned data, ``load_document``), IR (``parse_template``, expressions included) and
checks (everything else ``load_stack`` does: types, property schemas, references...). CPU time
(``time.process_time``) is printed next to wall time because on a shared machine wall time mostly measures
the other processes.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from hotc.errors import has_errors  # noqa: E402
from hotc.parser.api import load_stack  # noqa: E402
from hotc.parser.template import parse_template  # noqa: E402
from hotc.parser.yamlload import load_document  # noqa: E402
from hotc.providers.checks import type_checks  # noqa: E402
from tests.corpus.corpus import find_corpus, read_verdicts  # noqa: E402


def generate(n: int) -> str:
    """A template with ``n`` resources in chains of networks, subnets, ports and servers that reference each
    other with get_resource / get_attr / get_param, plus conditions and outputs."""
    lines = [
        "heat_template_version: 2018-08-31",
        "description: generated benchmark template",
        "parameters:",
        "  image: {type: string, default: cirros}",
        "  flavor:",
        "    type: string",
        "    default: m1.small",
        "    constraints: [{allowed_values: [m1.small, m1.large]}]",
        "  prefix: {type: string, default: bench}",
        "conditions:",
        "  large: {equals: [{get_param: flavor}, m1.large]}",
        "resources:",
    ]
    i = 0
    group = 0
    while i < n:
        g = group
        lines += [
            f"  net{g}:",
            "    type: OS::Neutron::Net",
            f"    properties: {{name: {{list_join: ['-', [{{get_param: prefix}}, net{g}]]}}}}",
            f"  subnet{g}:",
            "    type: OS::Neutron::Subnet",
            f"    properties: {{network: {{get_resource: net{g}}}, cidr: 10.{g % 250}.{g // 250 % 250}.0/24}}",
            f"  port{g}:",
            "    type: OS::Neutron::Port",
            f"    depends_on: [subnet{g}]",
            f"    properties: {{network: {{get_resource: net{g}}}, fixed_ips: [{{subnet: {{get_resource: subnet{g}}}}}]}}",
            f"  server{g}:",
            "    type: OS::Nova::Server",
            "    properties:",
            "      image: {get_param: image}",
            "      flavor: {get_param: flavor}",
            f"      networks: [{{port: {{get_resource: port{g}}}}}]",
            f"      metadata: {{peer: {{get_attr: [port{g}, fixed_ips, 0, ip_address]}}}}",
        ]
        i += 4
        group += 1
    lines += [
        "outputs:",
        "  first_ip: {value: {get_attr: [server0, first_address]}}",
        f"  last_port: {{value: {{get_resource: port{group - 1}}}}}",
    ]
    return "\n".join(lines) + "\n"


def bench_corpus(repeat: int) -> None:
    corpus = find_corpus(REPO / "tests" / "corpus" / "x")
    if corpus is None:
        print("corpus: not found (set HOTC_CORPUS)")
        return
    rows = [r for r in read_verdicts(corpus) if r.klass != "c"]
    n_res = 0
    best = float("inf")
    for _ in range(repeat):
        n_res = 0
        t0 = time.perf_counter()
        for r in rows:
            st, _ = load_stack(
                str(corpus / r.path),
                [str(corpus / e) for e in r.env_files],
                {},
                {},
                require_values=False,
                checks=type_checks(),
            )
            if st is not None:
                n_res += len(st.template.resources) + sum(
                    len(nt.template.resources) for nt in st.nested.values()
                )
        best = min(best, time.perf_counter() - t0)
    print(
        f"corpus: {len(rows)} templates, {n_res} resources in {best:.3f} s -> "
        f"{len(rows) / best:,.0f} templates/s, {n_res / best:,.0f} resources/s (best of {repeat})"
    )


def bench_generated(n: int, repeat: int, profile: bool) -> None:
    text = generate(n)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.yaml")
        Path(path).write_text(text)
        walls: list[float] = []
        cpus: list[float] = []
        nres = 0
        errors = False
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            st, diags = load_stack(
                path, [], {}, {}, require_values=False, checks=type_checks(), max_size=None
            )
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
            nres = len(st.template.resources) if st else 0
            errors = has_errors(diags)
            del st, diags  # freeing this run's result is not part of the next run's time
        best, best_cpu = min(walls), min(cpus)
        print(
            f"generated: {nres} resources ({len(text) / 1024:,.0f} KiB) parsed and validated in {best:.3f} s -> "
            f"{nres / best:,.0f} resources/s (best of {repeat}; errors: {errors}; target < 1 s)"
        )
        print(
            f"generated: median of {repeat}: {statistics.median(walls):.3f} s wall, "
            f"{statistics.median(cpus):.3f} s CPU; best CPU {best_cpu:.3f} s"
        )
        phases(path, text, best, best_cpu, repeat)
        if profile:
            prof = cProfile.Profile()
            prof.enable()
            load_stack(path, [], {}, {}, require_values=False, checks=type_checks(), max_size=None)
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def phases(path: str, text: str, total: float, total_cpu: float, repeat: int) -> None:
    """Where the time goes: decoding (YAML -> positioned data), building the IR (parse_template, expressions
    included) and the checks after it (types, properties, references...: the rest of load_stack)."""
    decode = ir = decode_cpu = ir_cpu = float("inf")
    was_enabled = gc.isenabled()
    gc.disable()  # as load_stack does
    try:
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            data, _ = load_document(text, path, max_size=None)
            t1, c1 = time.perf_counter(), time.process_time()
            result = parse_template(data, path)  # type: ignore[arg-type]
            t2, c2 = time.perf_counter(), time.process_time()
            del data, result  # freed outside the timed spans
            decode, ir = min(decode, t1 - t0), min(ir, t2 - t1)
            decode_cpu, ir_cpu = min(decode_cpu, c1 - c0), min(ir_cpu, c2 - c1)
    finally:
        if was_enabled:
            gc.enable()
    print(
        f"phases: decode {decode:.3f} s, IR {ir:.3f} s, checks {max(total - decode - ir, 0.0):.3f} s "
        f"(best of {repeat} each; checks = total - decode - IR); CPU time: total {total_cpu:.3f} s, decode "
        f"{decode_cpu:.3f} s, IR {ir_cpu:.3f} s, checks {max(total_cpu - decode_cpu - ir_cpu, 0.0):.3f} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--resources", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    bench_corpus(args.repeat)
    bench_generated(args.resources, args.repeat, args.profile)


if __name__ == "__main__":
    main()
