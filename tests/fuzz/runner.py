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
    # the hostile classes (tests.fuzz.mutate.hostile): results per class, both modes together
    classes: dict[str, Counter[str]] = field(default_factory=dict)
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
        for name in sorted(self.classes):
            c = self.classes[name]
            lines.append(
                f"  {CLASS_NAMES.get(name, name):26}: {sum(c.values())} cases, {c['traceback']} tracebacks, "
                f"{c['hang']} hangs over 5 s, {c['memory']} processes over 500 MB, {c['no-position']} errors "
                f"without a position, {c['crash']} crashes"
            )
        return "\n".join(lines)


CLASS_NAMES = {
    "tag": "tags on every node kind",
    "depth": "depth at and past limits",
    "regex": "nested-quantifier regexes",
    "amplify": "amplifying functions",
}


def case_class(case: Case) -> str | None:
    """The hostile class of ``case`` (``tag``, ``depth``, ``regex``, ``amplify``), or None for a mutation."""
    if case.seed_name != "hostile" or not case.mutations:
        return None
    return case.mutations[0].split("-", 1)[0]


class Pool:
    """``workers`` zygote processes; :meth:`run` feeds them (mode, case) pairs and collects the results."""

    def __init__(self, workers: int = 2, env: dict[str, str] | None = None, inproc: bool = False) -> None:
        """``inproc``: each case runs inside the worker itself (CPU alarm per case, address space capped for
        the worker, peak RSS reset per case, a fresh worker after any bad result) instead of a forked child;
        about three times cheaper, for the long run. The wall-clock backstop is then kept here."""
        self.env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
        if inproc:
            self.env["HOTC_FUZZ_INPROC"] = "1"
        self.inproc = inproc
        self.wall = float(self.env.get("HOTC_FUZZ_WALL", "60"))
        self.procs = [self._start() for _ in range(max(1, workers))]

    def _start(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=self.env,
            cwd=REPO,
        )

    def _ask(self, slot: int, req: dict[str, Any]) -> dict[str, Any]:
        """Send ``req`` to worker ``slot``; its result. A worker that ends after a bad result, dies, or (in
        process) gives no answer within the wall backstop is replaced."""
        import select

        proc = self.procs[slot]
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(req) + "\n")
        proc.stdin.flush()
        # a forked case has its own backstop in the worker; in process the worker's first answer also waits
        # for its start-up (imports and warm-up)
        limit = self.wall + (120 if not self.inproc else 60)
        ready, _, _ = select.select([proc.stdout], [], [], limit)
        line = proc.stdout.readline() if ready else ""
        res: dict[str, Any]
        if line:
            res = json.loads(line)
        elif not ready:
            res = {"kind": "hang", "detail": f"blocked: no result after {limit:g}s of wall time"}
        else:
            res = {"kind": "crash", "detail": f"the worker died (exit {proc.poll()})"}
        if not line or (self.inproc and res["kind"] != "ok"):
            if proc.poll() is None and not line:
                proc.kill()
            if proc.stdin:
                proc.stdin.close()
            proc.wait()
            self.procs[slot] = self._start()
        return res

    def run_case(self, mode: str, files: dict[str, bytes], envs: tuple[str, ...] = ()) -> dict[str, Any]:
        """One case on the first worker; the raw result (``kind``, ``detail``, ``exit``, ``output``...)."""
        req = {
            "id": 0,
            "mode": mode,
            "files": {k: base64.b64encode(v).decode() for k, v in files.items()},
            "envs": list(envs),
        }
        return self._ask(0, req)

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

    def run(
        self, work: Iterable[tuple[str, Case]], summary: Summary | None = None, progress: bool = False
    ) -> Summary:
        s = summary or Summary()
        lock = threading.Lock()
        next_item = iter(enumerate(work))  # made lazily, one case at a time
        start = time.monotonic()
        done = [0]

        def feed(slot: int) -> None:
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
                res = self._ask(slot, req)
                with lock:
                    kind = res["kind"]
                    s.counts[mode][kind] += 1
                    cls = case_class(case)
                    if cls is not None:
                        s.classes.setdefault(cls, Counter())[kind] += 1
                    s.cpu += res.get("cpu", 0.0)
                    s.max_cpu = max(s.max_cpu, res.get("cpu", 0.0))
                    s.max_rss_mb = max(s.max_rss_mb, res.get("rss_mb", 0.0))
                    if kind in BAD_KINDS:
                        s.findings.append(Finding(mode, case, kind, res.get("detail", "")))
                    done[0] += 1
                    if progress and done[0] % 1000 == 0:
                        print(
                            f"  ... {done[0]} cases ({s.cases('validate')} validate, "
                            f"{s.cases('plan')} plan), {len(s.findings)} findings, "
                            f"{time.monotonic() - start:.0f}s",
                            flush=True,
                        )

        threads = [threading.Thread(target=feed, args=(i,)) for i in range(len(self.procs))]
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
