"""Heat of the test cloud and hotc pause at the same hooks: the same template and environment (every hook set on
every resource) are created, updated (one value changed, the other resource kept unchanged) and deleted by
Heat and by hotc; each pause is cleared from outside the run as soon as it is listed (Heat: the resource's
``unset_hook`` signal, as ``openstack stack hook clear``; hotc: ``hotc hook clear`` as a second process).
Every hook is set but ``post-delete``, which Heat cannot clear.
Under both: the same pauses in the same order, the same final states, and, per resource, the same events in the
same order. Heat-native resources only (cheap and fast)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apply.cloud_cli import REPO, hotc

pytestmark = pytest.mark.cloud

BOUND = 300.0  # seconds: the bound of every wait for a condition

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}}
  b:
    type: OS::Heat::TestResource
    depends_on: a
    properties: {value: kept}
"""

# every hook but post-delete: Heat cannot clear that one (its signal refuses a resource whose action is DELETE,
# "Cannot signal resource during DELETE"), so a stack delete paused there never ends; hotc's clear works there
ENV = """resource_registry:
  resources:
    "*": {hooks: [pre-create, post-create, pre-update, post-update, pre-delete]}
"""

PAUSED = re.compile(r"paused until Hook (\S+) is cleared")
CLEARED = re.compile(r"^Hook (\S+) is cleared$")

Pause = tuple[str, str]  # (resource, hook)


def _token(status: str, reason: str) -> str | None:
    """An event as compared: a pause (with the status the resource is in), a clear, or a state change."""
    m = PAUSED.search(reason or "")
    if m:
        return f"{status} paused at {m.group(1)}"
    m = CLEARED.match(reason or "")
    if m:
        return f"cleared {m.group(1)}"
    if "Failure occurred while waiting" in (reason or ""):
        return None
    return status


def _pending(events: list[tuple[str, str, str]]) -> list[Pause]:
    """The pauses not cleared yet, from the events (as heatclient's ``hook poll`` finds them)."""
    count: dict[Pause, int] = {}
    for name, _status, reason in events:
        m = PAUSED.search(reason or "")
        if m:
            count[(name, m.group(1))] = count.get((name, m.group(1)), 0) + 1
        m = CLEARED.match(reason or "")
        if m:
            count[(name, m.group(1))] = count.get((name, m.group(1)), 0) - 1
    return sorted(p for p, n in count.items() if n > 0)


def _clear_until_done(
    done: Callable[[], bool], pending: Callable[[], list[Pause]], clear: Callable[[Pause], None]
) -> list[Pause]:
    """Clear each pause as it is listed until ``done``; the pauses, in the order they came."""
    seen: list[Pause] = []
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        if done():
            return seen
        for p in pending():
            if p not in seen:
                seen.append(p)
            clear(p)
        time.sleep(0.5)
    raise AssertionError(f"the run did not end; pauses so far: {seen}")


def _by_resource(events: list[tuple[str, str, str]], names: tuple[str, ...]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {n: [] for n in names}
    for name, status, reason in events:
        if name in out:
            tok = _token(status, reason)
            if tok is not None:
                out[name].append(tok)
    return out


class HeatRun:
    def __init__(self, heat: Any, stack: Any) -> None:
        self.heat = heat
        self.stack = stack
        self.base = f"/stacks/{stack.name}/{stack.id}"
        self.last: list[tuple[str, str, str]] = []

    def events(self) -> list[tuple[str, str, str]]:
        r = self.heat.get(f"{self.base}/events", params={"sort_dir": "asc", "limit": 1000})
        if r.status_code >= 300:
            return self.last  # a deleted stack: the events read last
        rows = []
        for e in r.json()["events"]:
            status = e.get("resource_status") or ""
            action = e.get("resource_action") or ""
            if action and not status.startswith(action):
                status = f"{action}_{status}"
            rows.append((e.get("resource_name") or "", status, e.get("resource_status_reason") or ""))
        self.last = rows
        return rows

    def status(self) -> str:
        try:
            return str(self.heat.get_stack(self.stack.id).status)
        except Exception:  # noqa: BLE001 -- a deleted stack may no longer be shown
            return "DELETE_COMPLETE"

    def clear(self, p: Pause) -> None:
        self.heat.post(f"{self.base}/resources/{p[0]}/signal", json={"unset_hook": p[1]})

    def delete_clearing(self) -> None:
        """Delete the stack, clearing the pauses the delete reaches (bounded; for the cleanup after a failure)."""
        try:
            self.heat.delete(self.base)
            self.run()
        except Exception:  # noqa: BLE001 -- the tracker still tries its own delete
            pass

    def run(self) -> list[Pause]:
        time.sleep(1)
        return _clear_until_done(
            lambda: not self.status().endswith("IN_PROGRESS"), lambda: _pending(self.events()), self.clear
        )


def _doc(text: str) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(text)
    if "heat_template_version" in doc:
        doc["heat_template_version"] = str(doc["heat_template_version"])
    return doc


class HotcRun:
    def __init__(self, cwd: Path, env: dict[str, str], stack: str) -> None:
        self.cwd = cwd
        self.env = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
        self.env.pop("HOTC_BACKEND", None)
        self.stack = stack

    def events(self) -> list[tuple[str, str, str]]:
        r = hotc(self.cwd, self.env, "events", self.stack, "--format", "json")
        if r.returncode != 0:
            return []
        rows = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
        return [(x.get("address") or "", x.get("status") or "", x.get("reason") or "") for x in rows]

    def pending(self) -> list[Pause]:
        """What ``hotc hook poll`` lists, read as it reads it (in this process: the loop polls often)."""
        from hotc.state import backend_from_config
        from hotc.state.hooks import hook_store_for, pending

        backend = backend_from_config(None, self.cwd, env={})
        records = pending(hook_store_for(backend, self.stack))
        if records:
            holder = backend.peek_lock(self.stack)
            if holder is None or holder.holder_gone():
                return []  # left by a killed run
        return sorted((r.address, r.hook) for r in records)

    def clear(self, p: Pause) -> None:
        hotc(self.cwd, self.env, "hook", "clear", self.stack, p[0], f"--{p[1]}")

    def run(self, *args: str) -> list[Pause]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hotc", *args, "--auto-approve"],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            seen = _clear_until_done(lambda: proc.poll() is not None, self.pending, self.clear)
            out, err = proc.communicate(timeout=BOUND)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 0, out[-3000:] + err[-3000:]
        return seen


def test_heat_and_hotc_pause_at_the_same_hooks_on_create_update_and_delete(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    heat = cloud.orchestration
    st = heat.create_stack(
        name=cloud_tracker.name("hooks-heat"),
        template=_doc(TEMPLATE),
        environment=_doc(ENV),
        parameters={"v": "one"},
    )
    cloud_tracker.track(st)
    h = HeatRun(heat, st)
    try:
        heat_pauses, heat_states, heat_events, heat_delete_events = _heat_side(heat, st, h)
    except BaseException:
        h.delete_clearing()  # else the tracker's delete would wait at the pre-delete hooks
        raise

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "env.yaml").write_text(ENV)
    stack = cloud_tracker.name("hooks-hotc")
    run = HotcRun(tmp_path, hotc_cloud_env, stack)
    try:
        hotc_pauses = {"create": run.run("apply", "-t", "t.yaml", "-e", "env.yaml", stack)}
        hotc_states = {"create": _hotc_states(tmp_path, hotc_cloud_env, stack)}
        hotc_pauses["update"] = run.run(
            "apply", "-t", "t.yaml", "-e", "env.yaml", "--parameter", "v=two", stack
        )
        hotc_states["update"] = _hotc_states(tmp_path, hotc_cloud_env, stack)
        hotc_events = _by_resource(run.events(), ("a", "b"))
        hotc_pauses["delete"] = run.run("destroy", stack)
        hotc_delete_events = _by_resource(run.events(), ("a", "b"))
    finally:
        hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve", "--missing-ok")

    # Heat's rules: create hooks on the create, update hooks on the update (b, unchanged, reaches
    # pre-update only), delete hooks on the delete (dependents first)
    assert heat_pauses == {
        "create": [("a", "pre-create"), ("a", "post-create"), ("b", "pre-create"), ("b", "post-create")],
        "update": [("a", "pre-update"), ("a", "post-update"), ("b", "pre-update")],
        "delete": [("b", "pre-delete"), ("a", "pre-delete")],
    }
    assert hotc_pauses == heat_pauses
    assert hotc_states == heat_states
    assert hotc_events == heat_events, (hotc_events, heat_events)
    # the delete's events: what Heat still shows of a deleted stack is a prefix of hotc's
    for name in ("a", "b"):
        assert hotc_delete_events[name][: len(heat_delete_events[name])] == heat_delete_events[name]


def _hotc_states(cwd: Path, env: dict[str, str], stack: str) -> dict[str, str]:
    r = hotc(cwd, env, "resource", "list", stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    rows = doc["resources"] if isinstance(doc, dict) else doc
    return {x["address"]: x["status"] for x in rows}


def _heat_side(
    heat: Any, st: Any, h: HeatRun
) -> tuple[dict[str, list[Pause]], dict[str, dict[str, str]], dict[str, list[str]], dict[str, list[str]]]:
    heat_pauses = {"create": h.run()}
    heat_states = {"create": {r.name: r.status for r in heat.resources(st.id)}}
    r = heat.put(
        h.base, json={"template": _doc(TEMPLATE), "environment": _doc(ENV), "parameters": {"v": "two"}}
    )
    assert r.status_code < 300, r.text
    heat_pauses["update"] = h.run()
    assert h.status() == "UPDATE_COMPLETE"
    heat_states["update"] = {r.name: r.status for r in heat.resources(st.id)}
    heat_events = _by_resource(h.events(), ("a", "b"))
    r = heat.delete(h.base)
    assert r.status_code < 300, r.text
    heat_pauses["delete"] = h.run()
    heat_delete_events = _by_resource(h.last, ("a", "b"))
    return heat_pauses, heat_states, heat_events, heat_delete_events
