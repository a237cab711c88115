"""Which hooks (breakpoints) fire on which action, as Heat's ``Resource.create``, ``update`` and ``delete``
decide (``heat/engine/resource.py``): the create hooks only while the stack (or a nested stack) is created, the
delete hooks only while it is deleted (``hotc destroy``, with the environments stored with the stack), and
``pre-update`` on every resource an update keeps, unchanged ones included; ``post-update`` only after an update
in place. Offline, with Heat-native types; ``hotc`` runs as processes of its own, and every wait polls for a
condition with a generous bound (nothing asserts on timing)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from hotc.apply.graph import APPLY, HOOK, build_graph
from hotc.apply.hooks import add_hook_nodes, hook_key
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.state.hooks import PENDING, MemoryHookStore
from tests.apply.test_hooks import (
    _env,
    _events,
    _finish,
    _hotc,
    _pending,
    _poll_json,
    _start_apply,
    _statuses,
    _until,
)

ALL = "[pre-create, post-create, pre-update, post-update, pre-delete, post-delete]"

V1 = """heat_template_version: 2018-08-31
resources:
  base:
    type: OS::Heat::Value
    properties: {value: b1}
  kept:
    type: OS::Heat::Value
    depends_on: base
    properties: {value: k}
  top:
    type: OS::Heat::Value
    depends_on: kept
    properties: {value: t}
  rnd:
    type: OS::Heat::RandomString
    properties: {length: 8}
  gone:
    type: OS::Heat::Value
    properties: {value: g}
"""

# base changes in place, kept and top are unchanged, rnd is replaced, gone is removed, added is new
V2 = """heat_template_version: 2018-08-31
resources:
  base:
    type: OS::Heat::Value
    properties: {value: b2}
  kept:
    type: OS::Heat::Value
    depends_on: base
    properties: {value: k}
  top:
    type: OS::Heat::Value
    depends_on: kept
    properties: {value: t}
  rnd:
    type: OS::Heat::RandomString
    properties: {length: 9}
  added:
    type: OS::Heat::Value
    properties: {value: a}
"""

ENV_ALL = f'resource_registry:\n  resources:\n    "*": {{hooks: {ALL}}}\n'


def _plan_hooks(cwd: Path, *args: str) -> dict[str, list[str]]:
    r = _hotc(cwd, "plan", "--format", "json", *args)
    assert r.returncode == 0, r.stderr
    return {c["address"]: c["hooks"] for c in json.loads(r.stdout)["resource_changes"]}


def _run_clearing(cwd: Path, *args: str, command: str = "apply") -> tuple[list[tuple[str, str]], str]:
    """Run ``hotc apply``/``destroy`` and clear every pause it reaches from a second process, in the order
    they come; the pauses, in that order, and the run's output."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotc", command, "--auto-approve", *args],
        cwd=cwd,
        env=_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: list[tuple[str, str]] = []
    try:
        while proc.poll() is None:
            waiting = _until(
                "a pause or the end of the run",
                lambda: sorted(_pending(cwd, "t", ())) or (proc.poll() is not None and ["done"]),
            )
            if waiting == ["done"]:
                break
            for addr, hook in waiting:
                if (addr, hook) not in seen:
                    seen.append((addr, hook))
                r = _hotc(cwd, "hook", "clear", "t", addr, f"--{hook}")
                assert r.returncode == 0 or "not pending" in r.stderr, r.stderr
        rc, out, err = _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == 0, out + err
    return seen, out + err


def test_which_hooks_each_action_reaches_on_create_update_and_destroy(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(V1)
    (tmp_path / "env.yaml").write_text(ENV_ALL)
    # the stack's create: every resource reaches its create hooks, and only those
    create = ["pre-create", "post-create"]
    assert _plan_hooks(tmp_path, "-t", "t.yaml", "-e", "env.yaml") == {
        a: create for a in ("base", "kept", "top", "rnd", "gone")
    }
    r = _hotc(tmp_path, "apply", "--auto-approve", "-t", "t.yaml")  # made without the hooks
    assert r.returncode == 0, r.stderr
    # an update: pre-update on every kept resource, changed or not; post-update after an update in place
    # only; the replacement reaches pre-update only; the added and the removed resource reach none
    (tmp_path / "t.yaml").write_text(V2)
    assert _plan_hooks(tmp_path, "-t", "t.yaml", "-e", "env.yaml") == {
        "base": ["pre-update", "post-update"],
        "kept": ["pre-update"],
        "top": ["pre-update"],
        "rnd": ["pre-update"],
        "added": [],
        "gone": [],
    }
    seen, _out = _run_clearing(tmp_path, "-t", "t.yaml", "-e", "env.yaml")
    assert sorted(seen) == sorted(
        [
            ("base", "pre-update"),
            ("base", "post-update"),
            ("kept", "pre-update"),
            ("top", "pre-update"),
            ("rnd", "pre-update"),
        ]
    )
    # an unchanged resource is reached in dependency order: after base's update, before top's turn
    assert seen.index(("base", "post-update")) < seen.index(("kept", "pre-update"))
    assert seen.index(("kept", "pre-update")) < seen.index(("top", "pre-update"))
    events = _events(tmp_path, "t", ())
    assert any("[kept]" in e and "UPDATE paused until Hook pre-update is cleared" in e for e in events)
    assert set(_statuses(tmp_path, "t", ()).values()) <= {"CREATE_COMPLETE", "UPDATE_COMPLETE"}
    # the same template again: every resource is kept unchanged, and reaches pre-update
    assert _plan_hooks(tmp_path, "-t", "t.yaml", "-e", "env.yaml") == {
        a: ["pre-update"] for a in ("base", "kept", "top", "rnd", "added")
    }
    # a destroy reaches the delete hooks the environments stored with the stack set (no -e given)
    assert _plan_hooks(tmp_path, "--destroy", "t") == {
        a: ["pre-delete", "post-delete"] for a in ("base", "kept", "top", "rnd", "added")
    }
    seen, _out = _run_clearing(tmp_path, "t", command="destroy")
    assert sorted(seen) == sorted(
        (a, h) for a in ("base", "kept", "top", "rnd", "added") for h in ("pre-delete", "post-delete")
    )
    # deletes run in reverse dependency order: top's delete (both its hooks) before kept's, before base's
    assert seen.index(("top", "post-delete")) < seen.index(("kept", "pre-delete"))
    assert seen.index(("kept", "post-delete")) < seen.index(("base", "pre-delete"))
    assert _statuses(tmp_path, "t", ()) == {}


NESTED = """heat_template_version: 2018-08-31
resources:
  inner:
    type: OS::Heat::Value
    properties: {value: i}
"""

GROUP_V1 = """heat_template_version: 2018-08-31
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Heat::Value
        properties: {value: m}
"""

GROUP_V2 = """heat_template_version: 2018-08-31
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 3
      resource_def:
        type: OS::Heat::Value
        properties: {value: m}
  app:
    type: nested.yaml
"""

NESTED_ENV = f"""resource_registry:
  resources:
    group:
      "*": {{hooks: {ALL}}}
    app:
      inner: {{hooks: {ALL}}}
"""


def test_a_nested_stack_made_by_an_update_is_created_with_its_create_hooks(tmp_path: Path) -> None:
    (tmp_path / "nested.yaml").write_text(NESTED)
    (tmp_path / "t.yaml").write_text(GROUP_V1)
    (tmp_path / "env.yaml").write_text(NESTED_ENV)
    r = _hotc(tmp_path, "apply", "--auto-approve", "-t", "t.yaml")
    assert r.returncode == 0, r.stderr
    (tmp_path / "t.yaml").write_text(GROUP_V2)
    # the group's nested stack is updated: its new member is created without the create hooks, its kept
    # members reach pre-update; app's nested stack is created by this update, so its resource reaches them
    assert _plan_hooks(tmp_path, "-t", "t.yaml", "-e", "env.yaml") == {
        "group[0]": ["pre-update"],
        "group[1]": ["pre-update"],
        "group[2]": [],
        "app.inner": ["pre-create", "post-create"],
    }


def test_the_pause_is_in_the_state_before_the_hook_store_lists_it() -> None:
    from dataclasses import replace as dc_replace

    from hotc.apply.executor import ExecOptions, Executor
    from hotc.state.document import StackState
    from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, create_plan

    sink = MemorySink()
    seen_in_state: list[bool] = []

    class Watching(MemoryHookStore):
        """Notes, when a pause is listed, whether the state and the events already say it."""

        def put(self, kind: str, name: str, data: Any) -> None:
            if kind == PENDING:
                with sink.lock:
                    last = sink.states[-1] if sink.states else None
                    said = any(
                        e.address == "a" and e.reason == "CREATE paused until Hook pre-create is cleared"
                        for e in sink.events
                    )
                seen_in_state.append(said and last is not None)
            super().put(kind, name, data)

    cloud = FakeCloud()
    driver = FakeDriver(cloud)
    desired = FakeDesired([FakeResource("a"), FakeResource("b", depends_on=("a",))])
    plan = create_plan(desired)
    plan = dc_replace(
        plan,
        changes=tuple(dc_replace(c, hooks=("pre-create",) if c.address == "a" else ()) for c in plan.changes),
    )
    store = Watching()
    ex = Executor(
        plan,
        StackState.new("teststack"),
        desired,
        lambda t: driver if t.startswith("Fake::") else None,
        sink,
        ExecOptions(parallelism=2, hooks=store),
        desired_info=desired.resources,
    )
    result: list[Any] = []
    t = threading.Thread(target=lambda: result.append(ex.run()), daemon=True)
    t.start()
    _until("a is paused", lambda: store.names("pending") == ["pre-create@a"])
    store.put("clear", "pre-create@a", {"by": "test"})
    t.join(90)
    assert not t.is_alive() and result[0].ok, result
    assert seen_in_state == [True]


def _change(addr: str, action: Action, hooks: tuple[str, ...], deps: tuple[str, ...] = ()) -> ResourceChange:
    return ResourceChange(addr, "OS::Heat::Value", action, None, {}, depends_on=deps, hooks=hooks)


def test_an_unchanged_resource_pauses_between_its_dependencies_and_its_dependents() -> None:
    plan = Plan(
        stack_name="s",
        mode="normal",
        changes=(
            _change("base", Action.UPDATE, ()),
            _change("db", Action.NOOP, ("pre-update",), ("base",)),
            _change("mid", Action.NOOP, (), ("db",)),
            _change("cache", Action.NOOP, ("pre-update",), ("mid",)),
            _change("app", Action.UPDATE, (), ("mid",)),
            _change("other", Action.UPDATE, ()),
        ),
    )
    g = add_hook_nodes(build_graph(plan, None), plan)
    db, cache = hook_key("pre-update", "db"), hook_key("pre-update", "cache")
    assert {k for k, s in g.steps.items() if s.kind == HOOK} == {db, cache}
    assert g.waits_on[db] == {f"{APPLY}:base"}  # reached once what it depends on is updated
    assert db in g.waits_on[f"{APPLY}:app"]  # through mid, unchanged and without a step of its own
    assert db in g.waits_on[cache]  # an unchanged dependent's pause comes after
    assert db not in g.waits_on[f"{APPLY}:other"]
    # without the plan (no unchanged resource to pause), the graph is as built
    assert add_hook_nodes(build_graph(plan, None)).steps.keys() == build_graph(plan, None).steps.keys()


def test_a_killed_update_paused_at_pre_update_pauses_again_on_the_next_run(tmp_path: Path) -> None:
    import signal

    (tmp_path / "t.yaml").write_text(V1)
    assert _hotc(tmp_path, "apply", "--auto-approve", "-t", "t.yaml").returncode == 0
    (tmp_path / "env.yaml").write_text("resource_registry:\n  resources:\n    kept: {hooks: pre-update}\n")
    (tmp_path / "t.yaml").write_text(V2)
    proc = _start_apply(tmp_path, "-t", "t.yaml", "-e", "env.yaml")
    try:
        _until("kept is paused", lambda: ("kept", "pre-update") in _pending(tmp_path, "t", ()), proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=90)
    proc = _start_apply(tmp_path, "-t", "t.yaml", "-e", "env.yaml")
    try:
        # `hotc hook poll` does not list the killed run's stale record: only this run's pause
        _until(
            "kept is paused again", lambda: _poll_json(tmp_path, "t", ()) == {("kept", "pre-update")}, proc
        )
        assert _hotc(tmp_path, "hook", "clear", "t", "kept", "--pre-update").returncode == 0
        rc, out, err = _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == 0, out + err
