"""Apply speed on the real test cloud: hotc against the cloud's own Heat, same templates, same machine.

For each case and each round, the benchmark runs the case's phases through hotc (the ``hotc`` command, as a
user runs it: whole process, local state in a temporary directory) and through Heat (the orchestration API of
the test cloud, polled every 0.25 s so Heat's figure is its own time, not a client's polling period),
interleaved: hotc first in odd rounds, Heat first in even rounds, never both at once, each phase of each side
started once the machine is quiet again (its CPUs 60 % idle over 2 s, at most 90 s of waiting: the cloud's own
work after the last command, such as Nova's after a group's delete, goes on after the API has answered). The
cases: a group of 30 servers (create, delete; 1 round), then the multitier example (create, update, check, delete; 3 rounds, as many
as the run's time budget allows: ``--budget``, 570 s by default, so that the run ends within 10 minutes) and,
with ``--cases ...,webapp``, the two-tier web app example (1 round). It prints each phase's wall time for both,
the median over the rounds and the ratio hotc / Heat beside the project's target, each with the machine's 1-minute
load average before and after it (the cloud, Heat and hotc share the machine's cores: the load decides most of
a figure). After each of hotc's phases it prints the wall beside the critical-path bound, the longest chain of
the cloud's own time along the dependency graph (``bench/critical_path.py``), and where the time went when the
wall is more than 15 % over it. The first round prints hotc's timeline of each phase (check: its cloud calls) and Heat's, from the
stack's events.

Updates: multitier changes ``app_version`` (both servers' metadata, in place) and ``web_b_revision`` (web_b's
user_data: web_b is replaced and takes over its port); the web app resizes both servers (m1.small -> m1.tiny);
the group changes its servers' metadata. Deletes delete everything.

hotc's per-resource timeline of the first round's create (``--timeline``, on by default) comes from running
hotc under a probe (``bench/bench_cloud.py --probe FILE -- hotc-args``) that records, per resource step, the
step's wall time, the time spent inside HTTP requests (API time), the time spent sleeping between polls and
retries (waiting), and the rest (hotc's own overhead: evaluation, state writes, scheduling). A server poll
answered by the run's status board (one list call for the polls of many servers) counts its wait for that list
as API time.

    OS_CLIENT_CONFIG_FILE=/opt/hotc-cloud/etc/clouds.yaml OS_CLOUD=hotc-test \\
        .venv/bin/python bench/bench_cloud.py [--rounds N] [--cases group30,multitier[,webapp]] [--budget S] [--parallelism N]

On the test cloud's own machine each phase's line also counts the requests Nova's API logged while it ran (its
request log, by kind: creates, lists, reads of one server, deletes): a figure the machine's load does not move,
unlike the walls.

hotc's modules are byte-compiled first (as an installed package's are), and its Keystone token is kept between
its processes (``hotc.providers.openstack.token_cache``), as for any user after the first command.

Stacks are named ``hotc-t-bench-...`` so the test cloud's janitor sweeps what a killed run leaves behind.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import critical_path  # bench/critical_path.py: the wall against the critical-path bound

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PHASES = ("create", "update", "check", "delete")
POLL = 0.25  # how often the bench polls Heat for a stack's status
# the project's speed targets, hotc / Heat (wall), at hotc's default parallelism
TARGETS = {
    ("multitier", "create"): 0.6,
    ("multitier", "update"): 0.35,
    ("multitier", "delete"): 0.5,
    ("multitier", "check"): 0.3,
    ("group30", "create"): 0.5,
    ("group30", "delete"): 0.5,
}


NOVA_LOG = Path("/opt/hotc-cloud/log/nova-api-wsgi.log")  # the test cloud's nova-api request log
_REQUEST = re.compile(r'nova\.api\.openstack\.requestlog .*?"(\w+) ([^" ?]+)[^"]*" status: (\d+)')
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def nova_log_size() -> int | None:
    """Where the nova-api request log ends now (None: not this machine's test cloud)."""
    try:
        return NOVA_LOG.stat().st_size
    except OSError:
        return None


def nova_requests(since: int | None) -> str:
    """The requests nova-api logged after byte ``since`` of its log, by kind: what one phase of one side cost
    Nova's API (the sides never run at once; a request of another client of the cloud in that time counts too).
    Neutron's os-server-external-events and the version documents are left out (the cloud's own traffic, and
    what every client asks first)."""
    if since is None:
        return ""
    try:
        with NOVA_LOG.open("rb") as f:
            f.seek(since)
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    kinds: dict[str, int] = {}
    for m in _REQUEST.finditer(text):
        method, path = m.group(1), _UUID.sub("{id}", m.group(2))
        if path.endswith("/os-server-external-events") or path.rstrip("/") in ("/v2.1", "/v2"):
            continue
        if path.endswith("/servers/detail") or path.endswith("/servers"):
            kind = "creates" if method == "POST" else "lists"
        elif path.endswith("/servers/{id}"):
            kind = {"GET": "server reads", "DELETE": "deletes"}.get(method, f"{method} server")
        elif path.endswith("/os-interface"):
            kind = "interface lists"
        elif "/flavors" in path or "/os-keypairs" in path or path.endswith("/limits"):
            kind = "look-ups"
        else:
            kind = "other"
        kinds[kind] = kinds.get(kind, 0) + 1
    detail = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
    return f"nova-api requests {sum(kinds.values())} ({detail})"


def load() -> float:
    """The machine's 1-minute load average (printed beside every figure: CPU-bound cloud services share it)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


# a measured command starts once the machine's CPUs were SETTLE_IDLE idle over SETTLE_WINDOW seconds
SETTLE_IDLE = 0.6
SETTLE_WINDOW = 2.0
SETTLE_LIMIT = 90.0  # ... or after this many seconds at most


def _cpu_busy_idle() -> tuple[int, int]:
    """The machine's CPU time so far (all CPUs, in ticks): (total, idle + iowait), from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields), fields[3] + (fields[4] if len(fields) > 4 else 0)


def settle() -> float:
    """Wait until the cloud has finished what the last command left it doing (Nova's and Neutron's work after a
    delete goes on after the API has answered): until the CPUs were at least SETTLE_IDLE idle over a window of
    SETTLE_WINDOW seconds, at most SETTLE_LIMIT seconds. Each side's phase then starts on the same quiet cloud.
    Returns the seconds waited."""
    began = time.monotonic()
    try:
        while time.monotonic() - began < SETTLE_LIMIT:
            total0, idle0 = _cpu_busy_idle()
            time.sleep(SETTLE_WINDOW)
            total1, idle1 = _cpu_busy_idle()
            if total1 > total0 and (idle1 - idle0) / (total1 - total0) >= SETTLE_IDLE:
                break
    except (OSError, ValueError, IndexError):  # no /proc/stat: no wait
        pass
    return time.monotonic() - began


GROUP_TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 30}
  version: {type: string, default: "1"}
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: OS::Nova::Server
        properties:
          image: hotc-tiny
          flavor: m1.tiny
          networks: [{network: hotc-private}]
          metadata: {version: {get_param: version}}
"""


@dataclass(frozen=True)
class Case:
    name: str
    template: Path
    environments: tuple[Path, ...]
    create_params: dict[str, str]
    update_params: dict[str, str]
    files: dict[str, Path] = field(default_factory=dict)  # names the templates use -> files (for Heat)
    phases: tuple[str, ...] = PHASES  # what is measured (a delete always ends a round)
    rounds: int = 3  # rounds by default (--rounds overrides)


def cases(tmp: Path) -> dict[str, Case]:
    group = tmp / "group30.yaml"
    group.write_text(GROUP_TEMPLATE)
    return {
        "multitier": Case(
            "multitier",
            EXAMPLES / "multitier.yaml",
            (EXAMPLES / "multitier-production.env.yaml",),
            {},
            {"app_version": "2", "web_b_revision": "2"},
        ),
        "webapp": Case(
            "webapp",
            EXAMPLES / "webapp.yaml",
            (EXAMPLES / "webapp-env.yaml",),
            {"image": "hotc-tiny", "with_volume": "false", "flavor": "m1.small"},
            {"image": "hotc-tiny", "with_volume": "false", "flavor": "m1.tiny"},
            {"lib/app_server.yaml": EXAMPLES / "lib" / "app_server.yaml"},
            rounds=1,
        ),
        # the group's targets are create and delete; one round (about 3.5 minutes) keeps the run within 10
        "group30": Case("group30", group, (), {}, {"version": "2"}, phases=("create", "delete"), rounds=1),
    }


# ------------------------------------------------------------------------------------------------ hotc side


class Hotc:
    """Runs the hotc command (under the probe) in its own working directory."""

    def __init__(self, case: Case, stack: str, parallelism: int | None) -> None:
        self.case = case
        self.stack = stack
        self.cwd = Path(tempfile.mkdtemp(prefix="hotc-bench-cloud-"))
        self.parallelism = parallelism
        self.timelines: dict[str, list[dict[str, Any]]] = {}

    def _run(self, phase: str, *args: str) -> float:
        probe = self.cwd / f"{phase}.probe.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--probe", str(probe), "--", *args]
        t0 = time.monotonic()
        r = subprocess.run(cmd, cwd=self.cwd, capture_output=True, text=True, env=os.environ.copy())
        wall = time.monotonic() - t0
        if r.returncode != 0:
            raise SystemExit(f"hotc {phase} of {self.stack} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        if probe.exists():
            self.timelines[phase] = json.loads(probe.read_text())
        return wall

    def _template_args(self, params: dict[str, str]) -> list[str]:
        out = ["-t", str(self.case.template)]
        for e in self.case.environments:
            out += ["-e", str(e)]
        for k, v in params.items():
            out += ["--parameter", f"{k}={v}"]
        if self.parallelism:
            out += ["--parallelism", str(self.parallelism)]
        return out

    def create(self) -> float:
        return self._run(
            "create", "apply", *self._template_args(self.case.create_params), self.stack, "--auto-approve"
        )

    def update(self) -> float:
        return self._run(
            "update", "apply", *self._template_args(self.case.update_params), self.stack, "--auto-approve"
        )

    def check(self) -> float:
        return self._run("check", "check", self.stack)

    def delete(self) -> float:
        extra = ["--parallelism", str(self.parallelism)] if self.parallelism else []
        return self._run("delete", "destroy", self.stack, "--auto-approve", *extra)


# ------------------------------------------------------------------------------------------------ Heat side


def epoch(stamp: str) -> float:
    """Seconds since the epoch of one of Heat's event times (UTC, ``2026-12-01T18:15:02Z``)."""
    import datetime as dt

    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).replace(tzinfo=dt.UTC).timestamp()


def load_yaml(path: Path) -> Any:
    import yaml

    return yaml.safe_load(path.read_text())


class Heat:
    """The same case through the test cloud's Heat (openstacksdk's orchestration proxy)."""

    def __init__(self, conn: Any, case: Case, stack: str) -> None:
        self.conn = conn
        self.case = case
        self.stack = stack
        self.id: str | None = None
        env: dict[str, Any] = {}
        for e in case.environments:
            for section, value in (load_yaml(e) or {}).items():
                env.setdefault(section, {}).update(value)
        self.environment = env
        self.template = (
            case.template.read_text()
        )  # Heat parses the text (a dict would lose the version's type)
        self.files = {name: p.read_text() for name, p in case.files.items()}
        self.started: dict[str, float] = {}  # phase -> wall-clock start (time.time(), to place Heat's events)
        self.timelines: dict[str, list[tuple[str, float, float | None]]] = {}

    def record_timeline(self, phase: str) -> None:
        """Heat's own per-resource timeline of ``phase``, from the stack's events (second resolution)."""
        action = {"create": "CREATE", "update": "UPDATE", "check": "CHECK", "delete": "DELETE"}[phase]
        try:
            r = self.conn.orchestration.get(
                f"/stacks/{self.stack}/{self.id}/events",
                params={"limit": 2000, "nested_depth": 1, "sort_dir": "asc"},
            )
            events = r.json().get("events", [])
        except Exception:  # noqa: BLE001 -- a deleted stack has no events to read: no timeline
            return
        t0 = self.started[phase]
        begun: dict[str, float] = {}
        rows: dict[str, tuple[str, float, float | None]] = {}
        for ev in events:
            name = str(ev.get("resource_name"))
            status = str(ev.get("resource_status", ""))
            if name == self.stack or not status.startswith(action):
                continue
            at = epoch(str(ev.get("event_time"))) - t0
            if at < -1.0:
                continue  # an earlier phase's event
            if status.endswith("_IN_PROGRESS"):
                begun.setdefault(name, at)
            elif name in begun:
                rows[name] = (name, begun[name], at)
        self.timelines[phase] = sorted(rows.values(), key=lambda r: (r[1], r[0]))

    def _wait(self, action: str) -> None:
        proxy = self.conn.orchestration
        while True:
            time.sleep(POLL)
            try:
                st = proxy.get_stack(self.id)
            except Exception as exc:  # noqa: BLE001
                if action == "DELETE" and type(exc).__name__ in ("NotFoundException", "ResourceNotFound"):
                    return
                raise
            status = str(st.status)
            if status == f"{action}_COMPLETE":
                return
            if status.endswith("_FAILED"):
                raise SystemExit(f"Heat {action} of {self.stack} failed: {st.status_reason}")

    def create(self) -> float:
        t0 = time.monotonic()
        self.started["create"] = time.time()
        st = self.conn.orchestration.create_stack(
            name=self.stack,
            template=self.template,
            environment=self.environment,
            files=self.files,
            parameters=self.case.create_params,
            timeout_mins=30,
        )
        self.id = st.id
        self._wait("CREATE")
        return self._done("create", t0)

    def update(self) -> float:
        t0 = time.monotonic()
        self.started["update"] = time.time()
        st = self.conn.orchestration.get_stack(self.id)
        self.conn.orchestration.update_stack(
            st,
            template=self.template,
            environment=self.environment,
            files=self.files,
            parameters=self.case.update_params,
            timeout_mins=30,
        )
        self._wait("UPDATE")
        return self._done("update", t0)

    def check(self) -> float:
        t0 = time.monotonic()
        st = self.conn.orchestration.get_stack(self.id)
        self.started["check"] = time.time()
        self.conn.orchestration.check_stack(st)
        self._wait("CHECK")
        return self._done("check", t0)

    def delete(self) -> float:
        t0 = time.monotonic()
        self.started["delete"] = time.time()
        self.conn.orchestration.delete_stack(self.id)
        self._wait("DELETE")
        return self._done("delete", t0)

    def _done(self, phase: str, t0: float) -> float:
        """The phase's wall time; then (not timed) Heat's per-resource timeline of it."""
        wall = time.monotonic() - t0
        self.record_timeline(phase)
        return wall


# ------------------------------------------------------------------------------------------------ the probe


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Calls ``patches[name](module)`` once the module ``name`` has been imported (by whichever thread imports
    it first), so that the probe instruments a module without importing it before hotc would."""

    def __init__(self, patches: dict[str, Callable[[ModuleType], None]]) -> None:
        self.patches = patches
        self.lock = threading.Lock()

    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        with self.lock:
            patch = self.patches.pop(name, None)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader.exec_module = self._then(spec.loader.exec_module, patch)  # type: ignore[method-assign]
                return spec
        return None

    @staticmethod
    def _then(
        run: Callable[[ModuleType], None], patch: Callable[[ModuleType], None]
    ) -> Callable[[ModuleType], None]:
        def exec_module(module: ModuleType) -> None:
            run(module)
            patch(module)

        return exec_module


def probe(out: Path, argv: list[str]) -> None:
    """Run hotc's CLI in this process, recording per step: wall, time inside HTTP requests, time asleep.

    The modules it instruments are patched as they are imported (:class:`_PatchOnImport`), not imported up
    front: hotc imports openstacksdk and keystoneauth on its own thread while it reads its state and plans,
    and importing them here first would add their import time to every probed command."""
    lock = threading.Lock()
    current: dict[int, dict[str, Any]] = {}  # thread id -> the step it runs
    steps: list[dict[str, Any]] = []
    t_start = time.monotonic()

    outside = {"step": "(outside steps: planning, look-ups)", "start": 0.0, "api": 0.0, "wait": 0.0}
    outside.update(calls=0, sleeps=0, requests=[], spans=[])

    def account(key: str, seconds: float, what: str = "", began: float | None = None) -> None:
        rec = current.get(threading.get_ident(), outside)
        with lock:
            rec[key] += seconds
            rec["calls" if key == "api" else "sleeps"] += 1
            if what:
                rec["requests"].append(f"{what} {seconds:.2f}")
            if (
                began is not None
            ):  # a cloud call's interval, for the critical-path bound (bench/critical_path.py)
                rec["spans"].append([began - t_start, began - t_start + seconds])

    def request(self: Any, *a: Any, **kw: Any) -> Any:
        t0 = time.monotonic()
        try:
            return orig["request"](self, *a, **kw)
        finally:
            url, method = (list(a) + [kw.get("url", ""), kw.get("method", "")])[:2]
            at = f"@{t0 - t_start:.2f}"
            account("api", time.monotonic() - t0, f"{at} {method} {str(url).split('?')[0][-60:]}", t0)

    def pause(seconds: float) -> None:
        t0 = time.monotonic()
        orig["pause"](seconds)
        account("wait", time.monotonic() - t0)

    def run_step(self: Any, step: Any) -> Any:
        rec = {"step": step.label, "start": time.monotonic() - t_start, "api": 0.0, "wait": 0.0}
        rec.update(calls=0, sleeps=0, requests=[], spans=[], key=step.key)
        rec["waits"] = sorted(self.graph.waits_on.get(step.key, ()))
        # the parents this create needs only the id of: it may start once they are released (critical_path)
        rec["early_waits"] = sorted(w for w in rec["waits"] if (step.key, w) in self._early)
        current[threading.get_ident()] = rec
        try:
            return orig["run_step"](self, step)
        finally:
            rec["end"] = time.monotonic() - t_start
            current.pop(threading.get_ident(), None)
            with lock:
                steps.append(rec)

    def board_get(self: Any, oid: str, fallback: Any) -> Any:
        # a poll answered by the status board waits for a list call made by whichever poll started it: that
        # wait is API time of this step (less the requests this thread made itself, counted already)
        rec = current.get(threading.get_ident(), outside)
        api_before, t0 = rec["api"], time.monotonic()
        try:
            return orig["board_get"](self, oid, fallback)
        finally:
            shared_wait = (time.monotonic() - t0) - (rec["api"] - api_before)
            if shared_wait > 0:
                with lock:
                    rec["api"] += shared_wait
                    rec["spans"].append([t0 - t_start, time.monotonic() - t_start])

    def release(self: Any, key: Any) -> None:
        # the step lets its id-only dependents go (ActionContext.ready_for_dependents, on the step's thread)
        rec = current.get(threading.get_ident())
        if rec is not None and rec.get("key") == key and "released" not in rec:
            rec["released"] = time.monotonic() - t_start
        orig["release"](self, key)

    orig: dict[str, Any] = {}

    def patch(name: str, owner: Any, attr: str, wrapper: Any) -> None:
        orig[name] = getattr(owner, attr)
        setattr(owner, attr, wrapper)

    sys.meta_path.insert(
        0,
        _PatchOnImport(
            {
                "keystoneauth1.session": lambda m: patch("request", m.Session, "request", request),
                "hotc.providers.openstack.common": lambda m: patch("pause", m, "pause", pause),
                "hotc.apply.executor": lambda m: patch("run_step", m.Executor, "_run_step", run_step),
                "hotc.providers.openstack.board": lambda m: patch("board_get", m.Board, "get", board_get),
                "hotc.apply.walker": lambda m: patch("release", m.Walker, "release", release),
            }
        ),
    )
    from hotc.cli.app import main

    code = 0
    try:
        main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        total = time.monotonic() - t_start
        outside["end"] = total
        out.write_text(json.dumps([{"step": "(process)", "start": 0.0, "end": total}, outside, *steps]))
    sys.exit(code)


def print_timeline(name: str, rows: list[dict[str, Any]]) -> None:
    proc = next((r for r in rows if r["step"] == "(process)"), None)
    outside = next((r for r in rows if r["step"].startswith("(outside")), None)
    steps = sorted((r for r in rows if not r["step"].startswith("(")), key=lambda r: r["start"])
    if not steps:  # check: no executor steps; the process and its cloud calls
        if proc is not None and outside is not None:
            print(
                f"\nhotc {name}: process {proc['end']:.2f} s, {outside['calls']} cloud calls taking "
                f"{outside['api']:.2f} s in all (in parallel where they overlap)"
            )
        return
    print(f"\nhotc timeline, {name} (seconds from the process start; wall = API + waiting + hotc overhead)")
    print(
        f"  {'step':<44} {'start':>6} {'end':>6} {'wall':>6} {'API':>6} {'calls':>5} {'wait':>6} {'hotc':>6}"
    )
    tot = {"wall": 0.0, "api": 0.0, "wait": 0.0, "own": 0.0}
    for r in steps:
        wall = r["end"] - r["start"]
        own = max(0.0, wall - r["api"] - r["wait"])
        tot["wall"] += wall
        tot["api"] += r["api"]
        tot["wait"] += r["wait"]
        tot["own"] += own
        print(
            f"  {r['step'][:44]:<44} {r['start']:>6.2f} {r['end']:>6.2f} {wall:>6.2f} {r['api']:>6.2f} "
            f"{r['calls']:>5} {r['wait']:>6.2f} {own:>6.2f}"
        )
    first = steps[0]["start"]
    last = max(r["end"] for r in steps)
    print(
        f"  {'sum over steps':<44} {'':>6} {'':>6} {tot['wall']:>6.2f} {tot['api']:>6.2f} {'':>5} "
        f"{tot['wait']:>6.2f} {tot['own']:>6.2f}"
    )
    if outside is not None:
        print(
            f"  cloud calls outside the steps (planning: constraints, look-ups): {outside['calls']}, {outside['api']:.2f} s"
        )
    if proc is not None:
        print(
            f"  process {proc['end']:.2f} s: start-up and planning until the first step {first:.2f} s, steps "
            f"{last - first:.2f} s, after the last step {proc['end'] - last:.2f} s"
        )


def print_heat_timeline(name: str, rows: list[tuple[str, float, float | None]]) -> None:
    if not rows:
        return
    print(f"\nHeat timeline, {name} (seconds from the API call, from Heat's events: whole seconds)")
    print(f"  {'resource':<44} {'start':>6} {'end':>6} {'wall':>6}")
    for res, start, end in rows:
        wall = f"{end - start:>6.0f}" if end is not None else f"{'':>6}"
        print(f"  {res[:44]:<44} {start:>6.0f} {end if end is not None else float('nan'):>6.0f} {wall}")


# ------------------------------------------------------------------------------------------------ main


def connect() -> Any:
    import warnings

    import openstack

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        conn = openstack.connect()
    conn.authorize()
    return conn


def run_case(
    conn: Any,
    case: Case,
    rounds: int,
    parallelism: int | None,
    timeline: bool,
    deadline: float | None = None,
) -> dict[str, Any]:
    """``rounds`` rounds of ``case``; a round after the first starts only if, at the pace of the last one, it
    ends before ``deadline`` (time.monotonic(): the run's time budget)."""
    results: dict[str, dict[str, list[float]]] = {
        "hotc": {p: [] for p in case.phases},
        "heat": {p: [] for p in case.phases},
        "load": {p: [] for p in case.phases},
    }
    last = 0.0
    for rnd in range(rounds):
        if rnd and deadline is not None and time.monotonic() + last > deadline:
            which = f"round {rnd + 1}" if rnd + 1 == rounds else f"rounds {rnd + 1}-{rounds}"
            print(
                f"  {case.name}: {which} skipped: at {last:.0f} s a round it would end past the run's time "
                "budget (--budget)",
                flush=True,
            )
            break
        began = time.monotonic()
        tag = uuid.uuid4().hex[:6]
        hotc = Hotc(case, f"hotc-t-bench-{case.name}-h{tag}", parallelism)
        heat = Heat(conn, case, f"hotc-t-bench-{case.name}-s{tag}")
        sides: list[tuple[str, Any]] = [("hotc", hotc), ("heat", heat)]
        if rnd % 2:
            sides.reverse()
        for phase in case.phases:
            for side, runner in sides:
                fn: Callable[[], float] = getattr(runner, phase)
                waited = settle()
                before, mark = load(), nova_log_size()
                secs = fn()
                results[side][phase].append(secs)
                results["load"][phase] += [before, load()]
                print(
                    f"  {case.name} round {rnd + 1} {phase:<6} {side:<4} {secs:7.2f} s  (load {before:.1f} -> {load():.1f};"
                    f" {waited:.0f} s for a quiet machine before it)  {nova_requests(mark)}",
                    flush=True,
                )
                if side == "hotc" and phase in runner.timelines:
                    text = critical_path.report(
                        f"{case.name} {phase} (repetition {rnd + 1})", runner.timelines[phase], secs
                    )
                    print("    " + text.replace("\n", "\n    "), flush=True)
        last = time.monotonic() - began
        if timeline and rnd == 0:
            for phase in case.phases:
                if phase in hotc.timelines:
                    print_timeline(f"{case.name} {phase}", hotc.timelines[phase])
                print_heat_timeline(f"{case.name} {phase}", heat.timelines.get(phase, []))
    return results


def sweep(conn: Any, case: Case, values: list[int], rounds: int) -> None:
    """Create and delete through hotc at each parallelism, and through Heat, interleaved (the default parallelism
    is chosen from these figures)."""
    walls: dict[str, dict[str, list[float]]] = {}
    for rnd in range(rounds):
        runners: list[tuple[str, Any]] = [
            (f"hotc p={v}", Hotc(case, f"hotc-t-bench-{case.name}-p{v}-{uuid.uuid4().hex[:6]}", v))
            for v in values
        ]
        runners.insert(
            rnd % (len(runners) + 1),
            ("heat", Heat(conn, case, f"hotc-t-bench-{case.name}-s{uuid.uuid4().hex[:6]}")),
        )
        for side, runner in runners:
            for phase in ("create", "delete"):
                settle()
                before = load()
                secs = getattr(runner, phase)()
                walls.setdefault(side, {}).setdefault(phase, []).append(secs)
                print(
                    f"  {case.name} round {rnd + 1} {phase:<6} {side:<10} {secs:7.2f} s  (load {before:.1f} -> {load():.1f})",
                    flush=True,
                )
    heat = walls["heat"]
    print(
        f"\n{'side':<12} {'create s':>9} {'delete s':>9} {'create/Heat':>11} {'delete/Heat':>11}  (medians)"
    )
    for side, w in walls.items():
        c, d = statistics.median(w["create"]), statistics.median(w["delete"])
        hc, hd = statistics.median(heat["create"]), statistics.median(heat["delete"])
        print(f"{side:<12} {c:>9.2f} {d:>9.2f} {c / hc:>11.2f} {d / hd:>11.2f}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--probe":
        sep = sys.argv.index("--")
        probe(Path(sys.argv[2]), sys.argv[sep + 1 :])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="rounds per case (default: 3 for multitier, 1 for the others)",
    )
    ap.add_argument(
        "--cases",
        default="group30,multitier",
        help="cases to run, in order (webapp, the two-tier web app, is left out by default to keep the run within "
        "10 min; the group goes first: it has one round, the multitier example as many as the budget allows)",
    )
    ap.add_argument(
        "--parallelism", type=int, default=None, help="hotc's --parallelism (default: hotc's own)"
    )
    ap.add_argument("--no-timeline", action="store_true")
    ap.add_argument(
        "--budget",
        type=float,
        default=570.0,
        help="seconds the whole run should take: a case's rounds after its first are skipped when, at the pace "
        "of the last one, they would end later (0: no budget; default 570, within 10 minutes on a quiet machine)",
    )
    ap.add_argument(
        "--sweep",
        default="",
        help="parallelism values (10,30,60): create/delete of each case at each, and Heat",
    )
    args = ap.parse_args()
    # hotc runs as an installed package does, from byte-compiled modules: with PYTHONDONTWRITEBYTECODE set and no
    # __pycache__ every hotc process would compile its sources again (about 1.3 s of CPU, 5 s of wall at load 18)
    import compileall

    began = time.monotonic()
    compileall.compile_dir(str(ROOT / "hotc"), quiet=1)
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", "/opt/hotc-cloud/etc/clouds.yaml")
    os.environ.setdefault("OS_CLOUD", "hotc-test")
    conn = connect()
    tmp = Path(tempfile.mkdtemp(prefix="hotc-bench-cloud-"))
    table: list[tuple[str, str, float, float, float, float]] = []
    if args.sweep:
        for name in args.cases.split(","):
            print(f"{name}: parallelism sweep {args.sweep}, {args.rounds or 1} round(s)", flush=True)
            sweep(conn, cases(tmp)[name], [int(v) for v in args.sweep.split(",")], args.rounds or 1)
        return
    for name in args.cases.split(","):
        case = cases(tmp)[name]
        rounds = args.rounds or case.rounds
        print(f"{name}: {rounds} round(s), interleaved", flush=True)
        deadline = began + args.budget if args.budget > 0 else None
        res = run_case(conn, case, rounds, args.parallelism, not args.no_timeline, deadline)
        for phase in case.phases:
            loads = res["load"][phase]
            table.append(
                (
                    name,
                    phase,
                    statistics.median(res["hotc"][phase]),
                    statistics.median(res["heat"][phase]),
                    min(loads),
                    max(loads),
                )
            )
    print(
        f"\n{'case':<10} {'phase':<7} {'hotc s':>8} {'Heat s':>8} {'hotc/Heat':>9} {'target':>7} {'load':>11}"
        "   (medians, wall)"
    )
    for name, phase, h, s, lo, hi in table:
        target = TARGETS.get((name, phase))
        verdict = "" if target is None else f"<={target:g} " + ("met" if h / s <= target else "not met")
        print(f"{name:<10} {phase:<7} {h:>8.2f} {s:>8.2f} {h / s:>9.2f} {verdict:>7} {lo:>5.1f}-{hi:<5.1f}")
    print(f"\nthe whole run took {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
