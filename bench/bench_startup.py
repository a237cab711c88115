"""Start-up cost of the hotc command: CPU seconds of whole processes, and what dominates their imports.

    python bench/bench_startup.py [--rounds N] [--instructions]

For ``python -c pass`` (the floor), ``hotc --help``, ``hotc validate`` of a one-resource template, ``hotc plan``
of it (empty local state) and ``hotc check`` of a stack of it (applied once first into a local state: a check
reads its resources through their drivers, here in-process ones, so no cloud is needed and openstacksdk, which a
check of cloud resources imports as well, is not counted), it runs each command N times as a child process and
prints the median CPU time (user + system, from ``getrusage(RUSAGE_CHILDREN)``; on a shared machine wall time
mostly measures the other processes) and the wall time. ``--instructions`` also counts the instructions each
command executes once under valgrind (the same on a quiet or a loaded machine). Then, once per command, ``python -X importtime`` names the five imports
with the largest cumulative time. Targets: ``--help`` ≤ 0.12 s CPU, ``validate`` ≤ 0.20 s.
It asserts nothing.

The figures are those of an installed hotc: the bytecode of the package is compiled first (``compileall``,
into the usual ``__pycache__`` folders), and the children run without ``PYTHONDONTWRITEBYTECODE``; with no
bytecode, compiling the modules on every start would cost about 0.15 s and be measured instead.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = "heat_template_version: 2018-08-31\nresources:\n  r:\n    type: OS::Heat::RandomString\n"
TARGETS = {"--help": 0.12, "validate": 0.20}


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "NO_COLOR": "1", **extra}


def measure(argv: list[str], cwd: str, rounds: int) -> tuple[float, float]:
    cpu: list[float] = []
    wall: list[float] = []
    env = _env()
    for _ in range(rounds):
        c0, w0 = _child_cpu(), time.perf_counter()
        subprocess.run(
            argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
        cpu.append(_child_cpu() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall)


def instructions(argv: list[str], cwd: str) -> int | None:
    """Instructions one run executes (valgrind's cachegrind without its cache model), or None without valgrind:
    ``bench_validate``'s count, with this benchmark's child environment."""
    from bench_validate import _instructions  # the same directory: run as ``python bench/bench_startup.py``

    return _instructions(argv, cwd, _env())


def top_imports(argv: list[str], cwd: str, n: int = 5) -> list[tuple[float, str]]:
    """The ``n`` imports with the largest cumulative time, among top-level ones and their direct children."""
    env = _env(PYTHONPROFILEIMPORTTIME="1")
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    rows: list[tuple[float, str]] = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self_us, cumulative, name = line.split(":", 1)[1].split("|")
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        if depth <= 1:
            rows.append((int(cumulative) / 1e6, name.strip()))
    rows.sort(reverse=True)
    return rows[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--instructions", action="store_true", help="also count instructions under valgrind")
    args = ap.parse_args()
    py = sys.executable
    compileall.compile_dir(str(REPO / "hotc"), quiet=1)
    with tempfile.TemporaryDirectory() as work:
        Path(work, "one.yaml").write_text(TEMPLATE)
        cases = {
            "python -c pass": [py, "-c", "pass"],
            "--help": [py, "-m", "hotc", "--help"],
            "validate": [py, "-m", "hotc", "validate", "-t", "one.yaml"],
            "plan": [py, "-m", "hotc", "plan", "-t", "one.yaml"],
            "check": [py, "-m", "hotc", "check", "st"],
        }
        applied = subprocess.run(
            [py, "-m", "hotc", "apply", "-t", "one.yaml", "st", "--auto-approve"],
            cwd=work,
            env=_env(),
            capture_output=True,
            text=True,
            check=False,
        )
        if applied.returncode != 0:
            raise SystemExit(f"could not apply the one-resource stack for check: {applied.stderr}")
        print(f"start-up, median of {args.rounds} runs (CPU = user + system of the child process)")
        print(f"{'command':<16} {'CPU s':>7} {'wall s':>7}  target")
        for name, argv in cases.items():
            cpu, wall = measure(argv, work, args.rounds)
            target = TARGETS.get(name)
            verdict = (
                "" if target is None else f"≤ {target:.2f} s CPU: {'met' if cpu <= target else 'NOT met'}"
            )
            print(f"{name:<16} {cpu:7.3f} {wall:7.3f}  {verdict}")
        if args.instructions:
            print()
            for name, argv in cases.items():
                count = instructions(argv, work)
                if count is None:
                    print("valgrind is not installed (apt-get install valgrind): no instruction counts")
                    break
                print(f"{name:<16} {count / 1e6:9,.0f} million instructions")
        print()
        for name, argv in cases.items():
            if name.startswith("python"):
                continue
            tops = ", ".join(f"{mod} {sec:.3f}s" for sec, mod in top_imports(argv, work))
            print(f"importtime {name}: {tops}")


if __name__ == "__main__":
    main()
