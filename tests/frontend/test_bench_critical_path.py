"""The cloud benchmark's wall-against-bound report on a made-up timeline (bench/critical_path.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import critical_path  # type: ignore[import-not-found]  # noqa: E402


def step(
    key: str, start: float, end: float, spans: list[list[float]], waits: tuple[str, ...] = (), sleeps: int = 0
) -> dict[str, Any]:
    return {
        "step": f"create {key}",
        "key": key,
        "start": start,
        "end": end,
        "spans": spans,
        "waits": list(waits),
        "sleeps": sleeps,
    }


def timeline() -> list[dict[str, Any]]:
    """net (1 s of calls) -> subnet (1 s) -> server (a create call, then polls: the last-but-one ends at 12, the
    last, 0.5 s, starts at 14.5); a port beside it (0.5 s). The process ends at 16."""
    return [
        {"step": "(process)", "start": 0.0, "end": 16.0},
        {"step": "(outside steps: planning, look-ups)", "start": 0.0, "calls": 22, "api": 1.8, "spans": []},
        step("net", 2.0, 3.2, [[2.1, 3.1]]),
        step("subnet", 3.5, 4.7, [[3.6, 4.6]], waits=("net",)),
        step("port", 3.4, 4.0, [[3.5, 4.0]], waits=("net",)),
        step(
            "server",
            5.0,
            15.2,
            [[5.1, 6.1], [8.0, 8.5], [11.5, 12.0], [14.5, 15.0]],
            waits=("subnet", "port"),
            sleeps=3,
        ),
    ]


def test_cloud_time_of_a_polling_step_stops_at_the_last_but_one_poll() -> None:
    rows = timeline()
    assert critical_path.cloud_time(rows[5]) == pytest.approx((12.0 - 5.1) + 0.5)
    assert critical_path.polling_loss(rows[5]) == pytest.approx(14.5 - 12.0)
    assert critical_path.cloud_time(step("x", 0, 3, [[0.0, 1.0], [0.5, 1.5], [2.0, 2.5]])) == pytest.approx(
        2.0
    )


def test_bound_is_the_longest_chain_of_cloud_time() -> None:
    a = critical_path.analyse(timeline())
    assert a is not None
    assert a.bound == pytest.approx(1.0 + 1.0 + 7.4)
    assert a.chain == ("create net", "create subnet", "create server")


def test_a_gap_is_named_with_where_the_time_went() -> None:
    rows = timeline()
    a = critical_path.analyse(rows, wall=17.0)  # the process started 1 s before its clock did
    assert a is not None
    parts = dict(a.parts)
    before = next(k for k in parts if k.startswith("before the first step"))
    assert parts[before] == pytest.approx(2.0 + 1.0)
    assert "22 cloud calls" in before
    assert parts["between a parent's finish and a dependent's start"] == pytest.approx(0.3 + 0.3)
    assert parts["polling (between a step's last two polls)"] == pytest.approx(2.5)
    assert parts["after the last step"] == pytest.approx(16.0 - 15.2)
    # the parts and the realised path's cloud time make up the wall
    cloud = sum(critical_path.cloud_time(r) for r in rows[2:] if r["key"] != "port")
    assert sum(parts.values()) + cloud == pytest.approx(17.0)
    text = critical_path.report("multitier create", rows, 17.0)
    assert "wall 17.00 s, critical-path bound 9.40 s" in text
    assert "gap 7.60 s" in text and "polling" in text and "before the first step" in text


def test_within_the_margin_nothing_is_named() -> None:
    rows = [{"step": "(process)", "start": 0.0, "end": 2.1}, step("net", 0.05, 2.05, [[0.05, 2.0]])]
    text = critical_path.report("x create", rows)
    assert "within 15%" in text and "gap" not in text


def test_a_phase_without_steps() -> None:
    assert "no executor step" in critical_path.report(
        "x check", [{"step": "(process)", "start": 0.0, "end": 1.0}]
    )


def test_an_id_only_edge_counts_the_parent_up_to_its_release() -> None:
    # the net's POST [2.1, 2.4], released at 2.4, then its tags [2.5, 3.1]; the subnet and the port need only
    # its id and start at 2.6: along those edges the chain holds the net's 0.3 s before the release, not 0.9 s
    rows = timeline()
    rows[2] = {**step("net", 2.0, 3.2, [[2.1, 2.4], [2.5, 3.1]]), "released": 2.4}
    rows[3] = {**step("subnet", 2.6, 3.8, [[2.7, 3.7]], waits=("net",)), "early_waits": ["net"]}
    rows[4] = {**step("port", 2.6, 3.2, [[2.7, 3.2]], waits=("net",)), "early_waits": ["net"]}
    rows[5] = {**rows[5], "start": 4.1}
    a = critical_path.analyse(rows)
    assert a is not None
    assert a.bound == pytest.approx(0.3 + 1.0 + 7.4)
    assert a.chain == ("create net (released)", "create subnet", "create server")
    parts = dict(a.parts)
    # the path runs net (to its release) -> subnet -> server: 0.2 s after the release, 0.3 s after the subnet
    assert parts["between a parent's finish and a dependent's start"] == pytest.approx(0.2 + 0.3)
    cloud = 0.3 + 1.0 + critical_path.cloud_time(rows[5])
    assert sum(parts.values()) + cloud == pytest.approx(16.0)
    # edges that wait for the whole create count the net whole
    rows[3] = step("subnet", 3.3, 4.5, [[3.4, 4.4]], waits=("net",))
    rows[4] = step("port", 3.3, 3.9, [[3.4, 3.9]], waits=("net",))
    b = critical_path.analyse(rows)
    assert b is not None and b.bound == pytest.approx(0.9 + 1.0 + 7.4)
