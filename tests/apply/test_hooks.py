"""Hooks (breakpoints) of the environment, offline with Heat-native types: ``hotc apply`` runs as a process of
its own and pauses; ``hotc hook poll`` / ``hotc hook clear`` run as second processes, through the hook store
beside the state (a local directory, and moto's S3 server). Every wait polls for a condition with a generous
bound; nothing asserts on timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hotc.apply.graph import APPLY, CLEANUP, HOOK, build_graph
from hotc.apply.hooks import add_hook_nodes, hook_key
from hotc.planner.plan import Action, Plan, ResourceChange
from tests.fixtures.s3 import S3Bucket

REPO = Path(__file__).resolve().parents[2]
BOUND = 90.0  # seconds: the bound of every wait for a condition

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  db:
    type: OS::Heat::Value
    properties: {value: db}
  app:
    type: OS::Heat::Value
    properties: {value: {get_attr: [db, value]}}
  other:
    type: OS::Heat::Value
    properties: {value: other}
"""

ENV = """resource_registry:
  resources:
    db: {hooks: [pre-create, pre-update]}
"""

NESTED = """heat_template_version: 2018-08-31
resources:
  db:
    type: OS::Heat::Value
    properties: {value: inner}
  web:
    type: OS::Heat::Value
    properties: {value: w}
"""

OUTER = """heat_template_version: 2018-08-31
resources:
  app:
    type: nested.yaml
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 3
      resource_def:
        type: OS::Heat::Value
        properties: {value: m}
  db_main:
    type: OS::Heat::Value
    properties: {value: x}
  web_main:
    type: OS::Heat::Value
    properties: {value: y}
"""

OUTER_ENV = """resource_registry:
  resources:
    "db*": {hooks: pre-create}
    app:
      db: {hooks: [pre-create]}
    group:
      "1": {hooks: pre-create}
"""


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    for k in ("HOTC_BACKEND", "HOTC_SIGNAL_STORE", "HOTC_STATE_KEY"):
        env.pop(k, None)
    return env


def _hotc(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=BOUND,
        stdin=subprocess.DEVNULL,
    )


def _start_apply(cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hotc", "apply", "--auto-approve", *args],
        cwd=cwd,
        env=_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _until(what: str, check: Callable[[], Any], proc: subprocess.Popen[str] | None = None) -> Any:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the apply ended before {what}: rc={proc.returncode}\n{out}\n{err}")
        time.sleep(0.2)
    raise AssertionError(f"never: {what}")


def _backend(cwd: Path, backend: tuple[str, ...]) -> Any:
    from hotc.state import backend_from_config

    return backend_from_config(backend[1] if backend else None, cwd, env={})


def _pending(cwd: Path, stack: str, backend: tuple[str, ...]) -> set[tuple[str, str]]:
    """What `hotc hook poll` lists, read as it reads it (in this process: the waits poll often)."""
    from hotc.state.hooks import hook_store_for, pending

    return {(r.address, r.hook) for r in pending(hook_store_for(_backend(cwd, backend), stack))}


def _poll_json(cwd: Path, stack: str, backend: tuple[str, ...]) -> set[tuple[str, str]]:
    r = _hotc(cwd, "hook", "poll", stack, "--format", "json", *backend)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["stack"] == stack
    return {(h["address"], h["hook"]) for h in doc["hooks"]}


def _statuses(cwd: Path, stack: str, backend: tuple[str, ...]) -> dict[str, str]:
    state, _ = _backend(cwd, backend).read(stack)
    return {} if state is None else {a: rs.status for a, rs in state.resources.items()}


def _events(cwd: Path, stack: str, backend: tuple[str, ...]) -> list[str]:
    r = _hotc(cwd, "events", stack, *backend)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=BOUND)
    return proc.returncode, out, err


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "env.yaml").write_text(ENV)
    return tmp_path


@pytest.fixture(params=["local", "s3"])
def backend(request: pytest.FixtureRequest) -> Iterator[tuple[str, ...]]:
    if request.param == "local":
        yield ()
    else:
        bucket: S3Bucket = request.getfixturevalue("s3_bucket")
        yield ("--backend", bucket.url)


def test_pre_create_pauses_db_while_the_rest_goes_on_until_cleared_from_another_process(
    work: Path, backend: tuple[str, ...]
) -> None:
    proc = _start_apply(work, "-t", "t.yaml", "-e", "env.yaml", *backend)
    try:
        _until(
            "db is paused at pre-create", lambda: ("db", "pre-create") in _pending(work, "t", backend), proc
        )
        # the independent resource completes while db waits; db's dependent does not start
        _until(
            "other completes", lambda: _statuses(work, "t", backend).get("other") == "CREATE_COMPLETE", proc
        )
        statuses = _statuses(work, "t", backend)
        assert "db" not in statuses and "app" not in statuses, statuses
        assert proc.poll() is None  # still paused
        assert _poll_json(work, "t", backend) == {("db", "pre-create")}  # from a second process
        text = _hotc(work, "hook", "poll", "t", *backend)
        assert "db" in text.stdout and "CREATE paused until Hook pre-create is cleared" in text.stdout
        assert "hotc hook clear t db --pre-create" in text.stdout
        # a hook db is not paused at cannot be cleared
        wrong = _hotc(work, "hook", "clear", "t", "db", "--pre-update", *backend)
        assert wrong.returncode != 0 and "not pending on db" in wrong.stderr
        cleared = _hotc(work, "hook", "clear", "t", "db", "--pre-create", *backend)
        assert cleared.returncode == 0, cleared.stderr
        rc, out, err = _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == 0, out + err
    assert _pending(work, "t", backend) == set()
    assert set(_statuses(work, "t", backend).values()) == {"CREATE_COMPLETE"}
    events = _events(work, "t", backend)
    db = [e for e in events if "[db]" in e]
    paused = next(i for i, e in enumerate(db) if "CREATE paused until Hook pre-create is cleared" in e)
    cleared_at = next(i for i, e in enumerate(db) if "Hook pre-create is cleared" in e and "paused" not in e)
    started = next(i for i, e in enumerate(db) if "CREATE_IN_PROGRESS" in e)
    assert paused < cleared_at < started
    assert "INIT_COMPLETE" in db[paused]  # as Heat: a resource not created yet is INIT_COMPLETE while paused
    other_done = next(i for i, e in enumerate(events) if "[other]" in e and "CREATE_COMPLETE" in e)
    app_start = next(i for i, e in enumerate(events) if "[app]" in e and "CREATE_IN_PROGRESS" in e)
    db_clear = events.index(
        next(e for e in events if "[db]" in e and "Hook pre-create is cleared" in e and "paused" not in e)
    )
    assert other_done < db_clear < app_start


def test_pre_update_pauses_an_update_and_post_create_holds_the_dependents(work: Path) -> None:
    (work / "env.yaml").write_text(
        "resource_registry:\n  resources:\n    db: {hooks: [post-create, pre-update]}\n"
    )
    proc = _start_apply(work, "-t", "t.yaml", "-e", "env.yaml")
    try:
        _until("db is paused at post-create", lambda: ("db", "post-create") in _pending(work, "t", ()), proc)
        statuses = _statuses(work, "t", ())
        assert statuses.get("db") == "CREATE_COMPLETE" and "app" not in statuses, statuses
        assert _hotc(work, "hook", "clear", "t", "db", "--post-create").returncode == 0
        rc, out, err = _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == 0, out + err
    # an update of db reaches pre-update; the state's record says it is paused
    (work / "t.yaml").write_text(TEMPLATE.replace("value: db}", "value: db2}"))
    proc = _start_apply(work, "-t", "t.yaml", "-e", "env.yaml")
    try:
        _until("db is paused at pre-update", lambda: ("db", "pre-update") in _pending(work, "t", ()), proc)
        r = _hotc(work, "state", "show", "t", "db", "--format", "json")
        assert "UPDATE paused until Hook pre-update is cleared" in r.stdout, r.stdout + r.stderr
        assert _hotc(work, "hook", "clear", "t", "db", "--pre-update").returncode == 0
        rc, out, err = _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == 0, out + err
    assert any("[db]" in e and "UPDATE_COMPLETE" in e for e in _events(work, "t", ()))


def test_wildcards_nested_stacks_and_group_members_match_as_in_heat(tmp_path: Path) -> None:
    (tmp_path / "nested.yaml").write_text(NESTED)
    (tmp_path / "t.yaml").write_text(OUTER)
    (tmp_path / "env.yaml").write_text(OUTER_ENV)
    plan = _hotc(tmp_path, "plan", "-t", "t.yaml", "-e", "env.yaml", "--format", "json")
    assert plan.returncode == 0, plan.stderr
    hooks = {c["address"]: c["hooks"] for c in json.loads(plan.stdout)["resource_changes"]}
    # "db*" matches db_main at the top only; the nested db through app's entry; member 1 through group's
    assert hooks == {
        "app.db": ["pre-create"],
        "app.web": [],
        "group[0]": [],
        "group[1]": ["pre-create"],
        "group[2]": [],
        "db_main": ["pre-create"],
        "web_main": [],
    }
    proc = _start_apply(tmp_path, "-t", "t.yaml", "-e", "env.yaml")
    want = {("app.db", "pre-create"), ("group[1]", "pre-create"), ("db_main", "pre-create")}
    try:
        _until("the three pauses", lambda: _pending(tmp_path, "t", ()) == want, proc)
        _until(
            "web_main completes",
            lambda: _statuses(tmp_path, "t", ()).get("web_main") == "CREATE_COMPLETE",
            proc,
        )
        for addr, hook in sorted(want):
            r = _hotc(tmp_path, "hook", "clear", "t", addr, f"--{hook}")
            assert r.returncode == 0, r.stderr
        rc, out, err = _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == 0, out + err
    assert len(_statuses(tmp_path, "t", ())) == 7


def test_hook_timeout_fails_the_resource_with_a_clear_message(work: Path) -> None:
    r = _hotc(work, "apply", "--auto-approve", "-t", "t.yaml", "-e", "env.yaml", "--hook-timeout", "1")
    assert r.returncode != 0
    assert "Hook pre-create was not cleared within 1 s (--hook-timeout)" in r.stdout + r.stderr
    statuses = _statuses(work, "t", ())
    assert statuses.get("other") == "CREATE_COMPLETE" and "db" not in statuses and "app" not in statuses
    assert any("[db]" in e and "CREATE_FAILED" in e for e in _events(work, "t", ()))
    assert _pending(work, "t", ()) == set()  # the pause is no longer listed


def test_the_plan_shows_where_it_pauses_in_every_format(work: Path) -> None:
    text = _hotc(work, "plan", "-t", "t.yaml", "-e", "env.yaml")
    assert text.returncode == 0, text.stderr
    assert "Pauses (hooks):" in text.stdout and "db (OS::Heat::Value): pauses at pre-create" in text.stdout
    md = _hotc(work, "plan", "-t", "t.yaml", "-e", "env.yaml", "--format", "markdown")
    assert "Pauses (hooks)" in md.stdout and "hotc hook clear t db --pre-create" in md.stdout
    js = _hotc(work, "plan", "-t", "t.yaml", "-e", "env.yaml", "--format", "json")
    changes = {c["address"]: c["hooks"] for c in json.loads(js.stdout)["resource_changes"]}
    assert changes == {"db": ["pre-create"], "app": [], "other": []}
    # without the environment: no pause shown, and validate accepts the hooks without a warning
    assert "Pauses" not in _hotc(work, "plan", "-t", "t.yaml").stdout
    v = _hotc(work, "validate", "-t", "t.yaml", "-e", "env.yaml")
    assert v.returncode == 0 and "ignored" not in v.stdout + v.stderr


def test_hook_nodes_sit_in_front_of_and_after_the_guarded_steps() -> None:
    def change(
        addr: str, action: Action, hooks: tuple[str, ...], deps: tuple[str, ...] = ()
    ) -> ResourceChange:
        return ResourceChange(addr, "OS::Heat::Value", action, None, {}, depends_on=deps, hooks=hooks)

    plan = Plan(
        stack_name="s",
        mode="normal",
        changes=(
            change("base", Action.CREATE, ()),
            change(
                "db", Action.REPLACE, ("pre-update", "pre-create", "post-create", "pre-delete"), ("base",)
            ),
            change("app", Action.CREATE, (), ("db",)),
        ),
    )
    g = add_hook_nodes(build_graph(plan, None))
    pu, pc, post, pd = (hook_key(h, "db") for h in ("pre-update", "pre-create", "post-create", "pre-delete"))
    assert {k for k, s in g.steps.items() if s.kind == HOOK} == {pu, pc, post, pd}
    assert g.waits_on[pu] == {f"{APPLY}:base"}  # reached when db's turn comes
    assert g.waits_on[pc] == {pu}
    assert pc in g.waits_on[f"{APPLY}:db"]
    assert g.waits_on[post] == {f"{APPLY}:db"}
    assert post in g.waits_on[f"{APPLY}:app"]  # the dependents wait for post-create to be cleared
    assert pd in g.waits_on[f"{CLEANUP}:db"]


# ---- in process: the executor with fake drivers (the terminal's answer, a cancel, a delete's hooks)


def _fake_run(
    hooks: dict[str, tuple[str, ...]], *, prompt: Callable[[str, str], bool] | None = None
) -> tuple[Any, Any, Any, Any]:
    from dataclasses import replace as dc_replace

    from hotc.apply.executor import ExecOptions, Executor
    from hotc.state.document import StackState
    from hotc.state.hooks import MemoryHookStore
    from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, create_plan

    cloud = FakeCloud()
    driver = FakeDriver(cloud)
    desired = FakeDesired([FakeResource("a"), FakeResource("b", depends_on=("a",)), FakeResource("c")])
    plan = create_plan(desired)
    plan = dc_replace(
        plan, changes=tuple(dc_replace(c, hooks=hooks.get(c.address, ())) for c in plan.changes)
    )
    store = MemoryHookStore()
    sink = MemorySink()
    ex = Executor(
        plan,
        StackState.new("teststack"),
        desired,
        lambda t: driver if t.startswith("Fake::") else None,
        sink,
        ExecOptions(parallelism=4, hooks=store, hook_prompt=prompt),
        desired_info=desired.resources,
    )
    return ex, store, sink, cloud


def test_the_answer_on_the_apply_terminal_clears_the_hook() -> None:
    asked: list[tuple[str, str]] = []

    def answer(address: str, hook: str) -> bool:
        asked.append((address, hook))
        return True

    ex, store, sink, _cloud = _fake_run({"a": ("pre-create", "post-create")}, prompt=answer)
    rep = ex.run()
    assert rep.ok, rep
    assert asked == [("a", "pre-create"), ("a", "post-create")]
    reasons = [e.reason for e in sink.events if e.address == "a"]
    assert "CREATE paused until Hook pre-create is cleared" in reasons
    assert "Hook post-create is cleared" in reasons
    assert store.names("pending") == [] and store.names("clear") == []


def test_a_cancel_ends_the_pause_and_the_dependents_never_start() -> None:
    import threading

    ex, store, sink, cloud = _fake_run({"a": ("pre-create",)})
    result: list[Any] = []
    t = threading.Thread(target=lambda: result.append(ex.run()), daemon=True)
    t.start()
    _until("a is paused", lambda: store.names("pending") == ["pre-create@a"])
    _until(
        "c is created", lambda: any(e.address == "c" and e.status == "CREATE_COMPLETE" for e in sink.events)
    )
    ex.cancel("cancelled by the operator")
    t.join(BOUND)
    assert not t.is_alive()
    rep = result[0]
    assert not rep.ok and rep.interrupted
    assert "create b" in rep.not_started and "create a" in rep.not_started
    assert cloud.calls_for("create", "a") == [] and cloud.calls_for("create", "b") == []
    assert any(e.address == "a" and e.reason == "Failure occurred while waiting." for e in sink.events)
    assert store.names("pending") == []


def test_a_run_killed_while_paused_leaves_no_pending_hook(work: Path) -> None:
    import signal

    proc = _start_apply(work, "-t", "t.yaml", "-e", "env.yaml")
    try:
        _until("db is paused", lambda: ("db", "pre-create") in _pending(work, "t", ()), proc)
        _until("other completes", lambda: _statuses(work, "t", ()).get("other") == "CREATE_COMPLETE", proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=BOUND)
    assert _poll_json(work, "t", ()) == set()  # its record is stale: no apply holds the stack
    # the next run updates the stack (it has resources), as Heat's `stack update` after a failed create: db
    # is created without its create hooks, which belong to the stack's create
    r = _hotc(work, "apply", "--auto-approve", "-t", "t.yaml", "-e", "env.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert set(_statuses(work, "t", ()).values()) == {"CREATE_COMPLETE"}
    assert _poll_json(work, "t", ()) == set()
