"""Heat's batch arithmetic for group updates (pure functions, no planner types).

A batched group update runs as a list of ``(size, updates)`` pairs: ``size`` is how many members the group
holds once the batch is done, ``updates`` how many members receive the new definition in that batch (by being
created, or by being changed). Heat computes the list from the target size, the current size, the batch size
and ``min_in_service``; while fewer members than ``min_in_service`` would stay untouched, the group grows
beyond its target for a while. The two group types count progress differently:

- ResourceGroup (``rolling_update``, ``batch_create``): a member created beyond the target counts as
  temporary, so it does not count as updated;
- AutoScalingGroup (``rolling_updates``): every member receiving the new definition counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.errors import HotcError

#: Heat's defaults for each update policy key
POLICY_DEFAULTS: Mapping[str, Mapping[str, float | int]] = {
    "rolling_update": {"min_in_service": 0, "max_batch_size": 1, "pause_time": 0},
    "batch_create": {"max_batch_size": 1, "pause_time": 0},
    "rolling_updates": {"min_in_service": 0, "max_batch_size": 1, "pause_time": 0},
}

_LIMIT = 10_000  # batches: far beyond any real group, but a bad input must not loop for ever


def _more(target: int, current: int, done: int) -> bool:
    """Whether another batch is needed: not every member is up to date, or the size is not the target yet."""
    return not (done >= current and current == target)


def next_batch(target: int, current: int, done: int, batch_size: int, min_in_service: int) -> tuple[int, int]:
    """(size after the batch, members receiving the new definition in it)."""
    keep = min(min_in_service, target, current)
    n = min(batch_size, max(target - done, 0))
    return n + max(min(current, target - n), keep), n


def batches(
    kind: str, target: int, current: int, batch_size: int, min_in_service: int
) -> list[tuple[int, int]]:
    """The batches of a ``kind`` ("ResourceGroup" or "AutoScalingGroup") update from ``current`` members to
    ``target`` members. Raises HotcError if the policy never converges (a ResourceGroup whose min_in_service
    is at least its size and whose batches never finish)."""
    if batch_size < 1:
        raise HotcError(f"max_batch_size must be at least 1, not {batch_size}")
    out: list[tuple[int, int]] = []
    done = 0
    while _more(target, current, done):
        size, n = next_batch(target, current, done, batch_size, min_in_service)
        out.append((size, n))
        if kind == "OS::Heat::ResourceGroup":
            done += n - max(size - max(current, target), 0)
        else:
            done += n
        current = size
        if len(out) > _LIMIT:
            raise HotcError(
                f"this update policy never finishes (target {target}, max_batch_size {batch_size}, "
                f"min_in_service {min_in_service}): lower min_in_service or raise max_batch_size"
            )
    return out


def normalize_policy(raw: Any, key: str, where: str) -> dict[str, Any] | None:
    """One update policy map with Heat's defaults filled in (None when absent). Raises HotcError for values
    that are not numbers."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise HotcError(f"{where}: {key} must be a map, not {raw!r}")
    out: dict[str, Any] = dict(POLICY_DEFAULTS[key])
    for name, default in POLICY_DEFAULTS[key].items():
        value = raw.get(name)
        if value is None:
            continue
        try:
            out[name] = float(value) if name == "pause_time" else int(value)
        except (TypeError, ValueError) as exc:
            raise HotcError(
                f"{where}: {key}.{name} must be a number known at plan time, not {value!r}"
            ) from exc
        if name == "pause_time" and out[name] == int(out[name]):
            out[name] = int(out[name])
        del default
    return out
