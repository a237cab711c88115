"""A stack with ScalingPolicies is refreshed like any other: ``plan --refresh`` and ``check`` read the policies
without a signal store (a policy is an object in the store: nothing to read back from a cloud), and the recorded
``alarm_url``/``signal_url`` stay as they were (an Aodh alarm's ``alarm_actions`` is planned from them)."""

from __future__ import annotations

from pathlib import Path

from tests.apply.test_scaling import apply, hotc, outputs, state, work

__all__ = ["work"]  # the fixture


def test_plan_refresh_and_check_of_a_stack_with_policies(work: tuple[Path, str]) -> None:
    cwd, store = work
    apply(cwd, store)
    before = outputs(cwd)
    key = state(cwd).resources["up"].attributes
    r = hotc(cwd, "plan", "-t", "t.yaml", "t", "--refresh", "--detailed-exitcode", "--signal-store", store)
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(cwd, "plan", "-t", "t.yaml", "t", "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(cwd, "check", "t")
    assert r.returncode == 0 and "up: CHECK_COMPLETE" in r.stdout + r.stderr, r.stdout + r.stderr
    apply(cwd, store)  # a no-change apply refreshes too
    assert outputs(cwd)["alarm_url"] == before["alarm_url"] and outputs(cwd)["up_url"] == before["up_url"]
    assert state(cwd).resources["up"].attributes.keys() == key.keys()
