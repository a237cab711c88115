"""Run fuzz cases through worker processes (:mod:`tests.fuzz.zygote`) and sum up what they found."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fuzz.mutate import Case

REPO = Path(__file__).resolve().parents[2]
BAD_KINDS = ("traceback", "hang", "memory", "crash", "no-position")


@dataclass
class Finding:
    mode: str
    case: Case
    kind: str
    detail: str


@dataclass
class Summary:
    counts: dict[str, Counter[str]] = field(
        default_factory=lambda: {"validate": Counter(), "plan": Counter()}
    )
    findings: list[Finding] = field(default_factory=list)
    cpu: float = 0.0
    max_rss_mb: float = 0.0
    max_cpu: float = 0.0
    wall: float = 0.0

    def cases(self, mode: str) -> int:
        return sum(self.counts[mode].values())

    def bad(self, mode: str) -> int:
        return sum(self.counts[mode][k] for k in BAD_KINDS)

    def report(self) -> str:
        lines = [
            f"fuzz: {self.cases('validate')} validate and {self.cases('plan')} plan cases in {self.wall:.0f}s "
            f"wall, {self.cpu:.0f}s CPU in cases (slowest case {self.max_cpu:.2f}s CPU, peak RSS "
            f"{self.max_rss_mb:.0f} MB)"
        ]
        for mode in ("validate", "plan"):
            c = self.counts[mode]
            lines.append(
                f"  {mode:8}: {c['traceback']} tracebacks, {c['hang']} hangs over 5 s, {c['memory']} processes "
                f"over 500 MB, {c['no-position']} errors without a position, {c['crash']} crashes "
                f"({c['ok']} ok)"
            )
        return "\n".join(lines)


class Pool:
    """``workers`` zygote processes; :meth:`run` feeds them (mode, case) pairs and collects the results."""

    def __init__(self, workers: int = 2, env: dict[str, str] | None = None) -> None:
        penv = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
        self.procs = [
            subprocess.Popen(
                [sys.executable, "-m", "tests.fuzz.zygote"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=penv,
                cwd=REPO,
            )
            for _ in range(max(1, workers))
        ]

    def close(self) -> None:
        for p in self.procs:
            if p.stdin:
                p.stdin.close()
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run_case(self, mode: str, files: dict[str, bytes], envs: tuple[str, ...] = ()) -> dict[str, Any]:
        """One case on the first worker; the raw result (``kind``, ``detail``, ``exit``, ``output``...)."""
        proc = self.procs[0]
        assert proc.stdin is not None and proc.stdout is not None
        req = {
            "id": 0,
            "mode": mode,
            "files": {k: base64.b64encode(v).decode() for k, v in files.items()},
            "envs": list(envs),
        }
        proc.stdin.write(json.dumps(req) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the fuzz worker died")
        res: dict[str, Any] = json.loads(line)
        return res

    def run(
        self, work: Iterable[tuple[str, Case]], summary: Summary | None = None, progress: bool = False
    ) -> Summary:
        s = summary or Summary()
        items = list(work)
        lock = threading.Lock()
        next_item = iter(enumerate(items))
        start = time.monotonic()
        done = [0]

        def feed(proc: subprocess.Popen[str]) -> None:
            assert proc.stdin is not None and proc.stdout is not None
            while True:
                with lock:
                    got = next(next_item, None)
                if got is None:
                    return
                i, (mode, case) = got
                req = {
                    "id": i,
                    "mode": mode,
                    "files": {k: base64.b64encode(v).decode() for k, v in case.files.items()},
                    "envs": list(case.environments),
                }
                proc.stdin.write(json.dumps(req) + "\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError("a fuzz worker died")
                res: dict[str, Any] = json.loads(line)
                with lock:
                    kind = res["kind"]
                    s.counts[mode][kind] += 1
                    s.cpu += res.get("cpu", 0.0)
                    s.max_cpu = max(s.max_cpu, res.get("cpu", 0.0))
                    s.max_rss_mb = max(s.max_rss_mb, res.get("rss_mb", 0.0))
                    if kind in BAD_KINDS:
                        s.findings.append(Finding(mode, case, kind, res.get("detail", "")))
                    done[0] += 1
                    if progress and done[0] % 500 == 0:
                        print(f"  ... {done[0]}/{len(items)} cases, {len(s.findings)} findings", flush=True)

        threads = [threading.Thread(target=feed, args=(p,)) for p in self.procs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        s.wall += time.monotonic() - start
        return s


def describe(f: Finding, seed: int) -> str:
    return (
        f"[{f.kind}] {f.mode} case {f.case.index} (seed {seed}, from {f.case.seed_name}, mutations "
        f"{', '.join(f.case.mutations) or 'none'}): replay with `python -m tests.fuzz --seed {seed} "
        f"--replay {f.case.index}`\n{f.detail.strip()[-1500:]}"
    )
