"""Validate throughput: the shared corpus (templates/s, resources/s) and a generated 10,000-resource template;
with ``--targets``, every front-end speed target as whole processes, with Heat's side.

    python bench/bench_validate.py [--resources N] [--repeat R] [--profile]
    python bench/bench_validate.py --targets [--heat] [--rounds N] [--sizes 1,10000,100000]
    python bench/bench_validate.py --ab DIR [--rounds N] [--sizes 1,10000]   (DIR/hotc against this checkout)
    python bench/bench_validate.py --ab DIR --instructions [--sizes 1,10000] [--commands validate,plan]

``--instructions`` counts the instructions each whole process executes under valgrind (cachegrind, no cache
model) instead of timing it: one run per tree, the same figure on a quiet machine and at load 15, so it shows a
change of a few percent that CPU seconds on this shared machine hide (valgrind makes each run about 50x slower).

Prints figures; it asserts nothing (speed targets are benchmarks, not tests). The aim: the 10k-resource
template parses and validates in under 1 s.

For the generated template it also prints the median of the runs (wall and CPU time) and a phase line:
decode (text -> positioned data, ``load_document``), IR (``parse_template``, expressions included) and
checks (everything else ``load_stack`` does: types, property schemas, references...). CPU time
(``time.process_time``) is printed next to wall time because on a shared machine wall time mostly measures
the other processes.

``--targets`` prints the table of the front end's speed targets: ``hotc validate`` of a one-resource template,
the 119 templates of the shared corpus (104 top-level, 15 nested, each with its environments) validated in one
process warm, and ``hotc validate`` / ``hotc plan`` (empty local state) of the generated template at each size,
each a whole process measured by ``os.wait4`` (CPU = user + system, peak RSS), median of ``--rounds``. With
``--heat`` it measures the test cloud's Heat 27 on the same inputs in the same run, interleaved round by round:
``openstack orchestration template validate`` of the one-resource template (a whole client process: its wall
time, since Heat's own CPU is spent in other processes), the 119 templates through ``bench/heat_validate.py``
(one client process, warm: the wall time of the loop), and the generated templates (Heat refuses a template
over its ``max_template_size``, 512 KiB, before parsing it; it says so).
"""

from __future__ import annotations

import argparse
import compileall
import cProfile
import gc
import json
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


# ------------------------------------------------------------------------------------------ --targets

ONE = "heat_template_version: 2018-08-31\nresources:\n  r:\n    type: OS::Heat::RandomString\n"
HEAT_PY = Path(os.environ.get("HOTC_CLOUD_PYTHON", "/opt/hotc-cloud/venv/bin/python"))
HEAT_ENV = {"OS_CLIENT_CONFIG_FILE": "/opt/hotc-cloud/etc/clouds.yaml", "OS_CLOUD": "hotc-test"}
HEAT_MAX_TEMPLATE_SIZE = 512 * 1024


def _child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "NO_COLOR": "1", "PYTHONPATH": str(REPO), **extra}


def whole_process(argv: list[str], cwd: str, env: dict[str, str] | None = None) -> dict[str, float]:
    """Run ``argv`` to its end; its own CPU seconds (user + system), peak RSS (MB), wall seconds, exit code."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env or _child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss / 1024,
        "wall": time.perf_counter() - t0,
        "rc": proc.returncode,
    }


CORPUS_119 = """
import sys, time
sys.path.insert(0, {repo!r})
from hotc.parser.api import load_stack
from hotc.providers.checks import type_checks
jobs = {jobs!r}
def once():
    for t, envs in jobs:
        load_stack(t, envs, {{}}, {{}}, require_values=False, checks=type_checks())
once()  # warm: imports, the grammar, the shape cache
best = min((lambda c: (once(), time.process_time() - c)[1])(time.process_time()) for _ in range({repeat}))
print(best)
"""


def corpus_119() -> list[tuple[str, list[str]]]:
    """The shared corpus's own templates (not the ones extracted from Python tests): 104 top-level, 15 nested."""
    import csv

    corpus = find_corpus(REPO / "tests" / "corpus" / "x")
    if corpus is None:
        return []
    jobs: list[tuple[str, list[str]]] = []
    with open(corpus / "HEAT_VERDICTS.tsv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            if r["path"].startswith("extracted/"):
                continue
            envs = [str(corpus / e) for e in (r.get("robust_env_files") or "").split(";") if e]
            jobs.append((str(corpus / r["path"]), envs))
    return jobs


def _heat(jobs: list[tuple[str, list[str]]]) -> dict[str, Any]:
    payload = json.dumps([{"template": t, "environments": e} for t, e in jobs])
    proc = subprocess.run(
        [str(HEAT_PY), str(REPO / "bench" / "heat_validate.py")],
        input=payload,
        capture_output=True,
        text=True,
        env={**os.environ, **HEAT_ENV},
        timeout=900,
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def bench_targets(rounds: int, sizes: list[int], heat: bool) -> None:
    compileall.compile_dir(str(REPO / "hotc"), quiet=1)  # the figures of an installed hotc (bytecode cached)
    py = sys.executable
    hotc = [py, "-m", "hotc"]
    rows: list[tuple[str, str, str, str]] = []  # measure, hotc, Heat, target
    with tempfile.TemporaryDirectory() as work:
        Path(work, "one.yaml").write_text(ONE)
        one: list[dict[str, float]] = []
        heat_one: list[float] = []
        for _ in range(rounds):
            one.append(whole_process([*hotc, "validate", "-t", "one.yaml"], work))
            if heat and HEAT_PY.exists():
                cmd = [
                    str(HEAT_PY.parent / "openstack"),
                    "orchestration",
                    "template",
                    "validate",
                    "-t",
                    "one.yaml",
                ]
                heat_one.append(whole_process(cmd, work, {**os.environ, **HEAT_ENV})["wall"])
        floor = statistics.median(whole_process([py, "-c", "pass"], work)["cpu"] for _ in range(rounds))
        rows.append(("python -c pass (the floor: how loaded the machine is)", f"{floor:.3f} s CPU", "-", "-"))
        cpu = statistics.median(r["cpu"] for r in one)
        rows.append(
            (
                "hotc validate, 1-resource template, whole process",
                f"{cpu:.3f} s CPU",
                f"{statistics.median(heat_one):.2f} s wall (client process)" if heat_one else "-",
                f"≤ 0.20 s CPU: {'met' if cpu <= 0.20 else 'NOT met'}",
            )
        )
        jobs = corpus_119()
        if jobs:
            code = CORPUS_119.format(repo=str(REPO), jobs=jobs, repeat=3)
            warm: list[float] = []
            heat_walls: list[float] = []
            heat_note = ""
            for _ in range(rounds):
                out = subprocess.run(
                    [py, "-c", code], capture_output=True, text=True, env=_child_env(), check=True
                ).stdout
                warm.append(float(out.strip().splitlines()[-1]))
                if heat and HEAT_PY.exists():
                    h = _heat(jobs)
                    if "wall" in h:
                        heat_walls.append(h["wall"])
                        heat_note = f" ({h['ok']} accepted, {h['failed']} refused)"
                    else:
                        heat_note = f" (failed: {h['error']})"
            best = statistics.median(warm)
            rows.append(
                (
                    f"{len(jobs)} corpus templates in one process, warm",
                    f"{best:.3f} s CPU",
                    f"{statistics.median(heat_walls):.2f} s wall{heat_note}"
                    if heat_walls
                    else heat_note or "-",
                    f"≤ 0.15 s: {'met' if best <= 0.15 else 'NOT met'}",
                )
            )
        limits = {
            10_000: {"validate": (1.0, 150), "plan": (1.5, None)},
            100_000: {"validate": (8.0, 1024), "plan": (12.0, 1024)},
        }
        for n in sizes:
            if n <= 1:
                continue
            path = Path(work, f"gen{n}.yaml")
            text = generate(n)
            path.write_text(text)
            heat_cell = "-"
            if heat:
                heat_cell = (
                    f"refused before parsing: {len(text.encode()) // 1024} KiB > max_template_size 512 KiB"
                    if len(text.encode()) > HEAT_MAX_TEMPLATE_SIZE
                    else "-"
                )
            for cmd in ("validate", "plan"):
                runs = [
                    whole_process(
                        [*hotc, cmd, "-t", path.name, "--max-template-size", str(len(text) * 2)], work
                    )
                    for _ in range(rounds if n <= 10_000 else 1)
                ]
                if any(r["rc"] not in (0, 2) for r in runs):
                    rows.append((f"{n:,} resources, hotc {cmd}", f"FAILED (exit {runs[0]['rc']})", "-", "-"))
                    continue
                cpu = statistics.median(r["cpu"] for r in runs)
                rss = max(r["rss"] for r in runs)
                target = limits.get(n, {}).get(cmd)
                verdict = "-"
                if target is not None:
                    ok = cpu <= target[0] and (target[1] is None or rss <= target[1])
                    want = f"≤ {target[0]} s" + (f", ≤ {target[1]} MB" if target[1] else "")
                    verdict = f"{want}: {'met' if ok else 'NOT met'}"
                rows.append(
                    (
                        f"{n:,} resources, hotc {cmd}, whole process",
                        f"{cpu:.2f} s CPU, {rss:.0f} MB",
                        heat_cell if cmd == "validate" else "-",
                        verdict,
                    )
                )
    load = os.getloadavg()[0]
    print(f"front-end speed targets (median of {rounds} rounds; hotc and Heat interleaved; load {load:.1f})")
    widths = [max(len(r[i]) for r in rows + [("measure", "hotc", "Heat 27", "target")]) for i in range(4)]
    for r in [("measure", "hotc", "Heat 27", "target"), *rows]:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def _ab_trees(other: str) -> list[str]:
    """The two checkouts an A/B compares (``other``, then this one), byte-compiled first: a child process must
    not spend its time compiling (``PYTHONDONTWRITEBYTECODE`` keeps it from caching)."""
    trees = [str(Path(other).resolve()), str(REPO)]
    for t in trees:
        compileall.compile_dir(str(Path(t) / "hotc"), quiet=1)
    return trees


def _ab_input(work: str, n: int) -> tuple[str, str]:
    """The template of ``n`` resources written into ``work``: its file name and text."""
    text = ONE if n <= 1 else generate(n)
    name = f"gen{n}.yaml"
    Path(work, name).write_text(text)
    return name, text


def _hotc_argv(cmd: str, name: str, text: str) -> list[str]:
    """``hotc CMD -t NAME`` as a whole process, allowed the template's size."""
    return [sys.executable, "-m", "hotc", cmd, "-t", name, "--max-template-size", str(len(text) * 2 + 1024)]


def bench_ab(other: str, rounds: int, sizes: list[int]) -> None:
    """Another checkout of hotc (``other``: a directory holding its ``hotc`` package, e.g. ``git archive``
    of an older commit) against this one, interleaved round by round: ``hotc validate`` and ``hotc plan`` (empty
    state) as whole processes, median and minimum CPU of ``rounds``."""
    trees = _ab_trees(other)
    with tempfile.TemporaryDirectory() as work:
        for n in sizes:
            name, text = _ab_input(work, n)
            for cmd in ("validate", "plan"):
                cpu: dict[str, list[float]] = {t: [] for t in trees}
                for _ in range(rounds):
                    for t in trees:
                        env = {**_child_env(), "PYTHONPATH": t}
                        cpu[t].append(whole_process(_hotc_argv(cmd, name, text), work, env)["cpu"])
                a, b = (cpu[t] for t in trees)
                print(
                    f"{n:>7,} resources, hotc {cmd:8}: {statistics.median(a):.3f} -> {statistics.median(b):.3f} s CPU "
                    f"(median of {rounds}; minimum {min(a):.3f} -> {min(b):.3f}; load {os.getloadavg()[0]:.1f})"
                )
    print(f"(left: {trees[0]}; right: {trees[1]})")


def _instructions(argv: list[str], cwd: str, env: dict[str, str]) -> int | None:
    """Instructions a whole process executes, counted by valgrind (cachegrind without its cache model): the
    same on a quiet or a loaded machine, unlike CPU seconds. None when valgrind is not installed."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    proc = subprocess.run(
        [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    m = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    return int(m.group(1).replace(",", "")) if m else None


def bench_ab_instructions(other: str, sizes: list[int], commands: list[str]) -> None:
    """``--ab DIR --instructions``: each command once per tree under valgrind; instructions executed, the
    right side's change in percent. Slow (valgrind runs about 50x slower) but independent of the load."""
    trees = _ab_trees(other)
    with tempfile.TemporaryDirectory() as work:
        for n in sizes:
            name, text = _ab_input(work, n)
            for cmd in commands:
                counts = []
                for t in trees:
                    env = {**_child_env(), "PYTHONPATH": t}
                    counts.append(_instructions(_hotc_argv(cmd, name, text), work, env))
                a, b = counts
                if a is None or b is None:
                    print("valgrind is not installed (or printed no count): apt-get install valgrind")
                    return
                print(
                    f"{n:>7,} resources, hotc {cmd:8}: {a / 1e6:,.0f} -> {b / 1e6:,.0f} million instructions "
                    f"({(b - a) / a * 100:+.1f} %)"
                )
    print(f"(left: {trees[0]}; right: {trees[1]})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--resources", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument(
        "--targets", action="store_true", help="the table of the front end's speed targets, whole processes"
    )
    ap.add_argument("--heat", action="store_true", help="with --targets: Heat's side, from the test cloud")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="1,10000,100000")
    ap.add_argument("--ab", metavar="DIR", help="another checkout (DIR/hotc) against this one, interleaved")
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="with --ab: instructions executed (valgrind), not CPU seconds; validate only unless --commands",
    )
    ap.add_argument("--commands", default="validate", help="with --instructions: validate,plan")
    args = ap.parse_args()
    if args.ab and args.instructions:
        sizes = [int(x) for x in args.sizes.split(",")]
        bench_ab_instructions(args.ab, sizes, args.commands.split(","))
        return
    if args.ab:
        bench_ab(args.ab, args.rounds, [int(x) for x in args.sizes.split(",")])
        return
    if args.targets:
        bench_targets(args.rounds, [int(x) for x in args.sizes.split(",")], args.heat)
        return
    bench_corpus(args.repeat)
    bench_generated(args.resources, args.repeat, args.profile)


if __name__ == "__main__":
    main()
