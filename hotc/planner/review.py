"""What a reviewer weighs besides the actions, computed once and carried in ``Plan.review`` (JSON ``review``):

- ``estimate``: seconds along the critical path, the path, and which types were measured in the stack's own
  event history (:mod:`hotc.planner.cost`);
- ``blast_radius``: for each replaced/updated address, the changes it causes and why ("caused by" links);
- ``cost``: the monthly cost delta from a ``--prices`` table (:mod:`hotc.planner.prices`), when given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from hotc.planner.cost import blast_radius, estimate, measured_durations
from hotc.planner.plan import Plan
from hotc.planner.prices import PriceTable, cost_delta


def with_review(plan: Plan, events: Iterable[Any] = (), prices: PriceTable | None = None) -> Plan:
    est = estimate(plan, measured_durations(events))
    review: dict[str, Any] = {
        "estimate": {
            "seconds": est.seconds,
            "critical_path": list(est.critical_path),
            "measured_types": list(est.measured_types),
        },
        "blast_radius": {
            cause: [{"address": a, "why": why} for a, why in effects]
            for cause, effects in sorted(blast_radius(plan).items())
        },
    }
    if prices is not None:
        delta = cost_delta(plan, prices)
        review["cost"] = {
            "currency": delta.currency,
            "monthly_delta": delta.monthly_delta,
            "lines": [{"address": a, "monthly_delta": d} for a, d in delta.lines],
            "unpriced": list(delta.unpriced),
        }
    return replace(plan, review=review)
