"""Shared presentation helpers for the plan renderers: ordering, masking, paths, value formatting."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from typing import Any

from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.values import Unknown

SENSITIVE = "(sensitive)"
KNOWN_AFTER_APPLY = "(known after apply)"
MASK_KEY = "__sensitive__"

_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


def split_path(path: str) -> list[str | int]:
    """``rules[1].port_range_min`` -> ["rules", 1, "port_range_min"]."""
    out: list[str | int] = []
    for name, idx in _STEP.findall(path):
        out.append(int(idx) if idx else name)
    return out


def get_path(value: Any, steps: Iterable[str | int]) -> Any:
    for s in steps:
        if isinstance(value, dict):
            value = value.get(str(s))
        elif isinstance(value, list) and isinstance(s, int) and 0 <= s < len(value):
            value = value[s]
        else:
            return None
    return value


def mask(props: Any, sensitive_paths: Iterable[str]) -> Any:
    """Properties with the value at every sensitive path (``value.password``, ``rules[1].port``; ``*``: all)
    and every masked state value hidden as :data:`SENSITIVE`; siblings of a sensitive value stay as they are."""
    paths = set(sensitive_paths)
    if props is None:
        return None
    if "*" in paths and isinstance(props, dict):
        return {k: SENSITIVE for k in props}
    if not paths:
        return _mask_markers(props)
    return _mask_at(props, [split_path(p) for p in paths])


def _mask_at(v: Any, paths: list[list[str | int]]) -> Any:
    if any(not p for p in paths):
        return SENSITIVE
    if isinstance(v, dict):
        if MASK_KEY in v:
            return SENSITIVE
        return {k: _mask_at(x, [p[1:] for p in paths if p[0] == k]) for k, x in v.items()}
    if isinstance(v, list):
        return [_mask_at(x, [p[1:] for p in paths if p[0] == i]) for i, x in enumerate(v)]
    return v


def _mask_markers(v: Any) -> Any:
    if isinstance(v, dict):
        if MASK_KEY in v:
            return SENSITIVE
        return {k: _mask_markers(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_mask_markers(x) for x in v]
    return v


def is_sensitive_path(path: str, sensitive_paths: Iterable[str]) -> bool:
    """Does the value at ``path`` hold a secret: is it at, inside or above a sensitive path?"""
    sp = set(sensitive_paths)
    if not sp:
        return False
    if "*" in sp:
        return True
    steps = split_path(path) if path else []
    for p in sp:
        q = split_path(p)
        n = min(len(q), len(steps))
        if q[:n] == steps[:n]:
            return True
    return False


# what json.dumps(..., ensure_ascii=False) writes for a string, without its per-call set-up (a plan of 10,000
# resources formats tens of thousands of scalars)
_json_str: Any = json.encoder.encode_basestring
_SCALAR_JSON: dict[bool | None, str] = {True: "true", False: "false", None: "null"}
# what json.dumps(v, ensure_ascii=False, sort_keys=True, default=str) makes for each call, made once
_JSON_ONE_LINE = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=str)


def fmt(value: Any, limit: int = 200) -> str:
    """One-line rendering of a value: Unknown -> (known after apply)."""
    t = type(value)
    text: str
    if t is str:
        if value == SENSITIVE:
            return SENSITIVE
        text = _json_str(value)
    elif t is bool or value is None:
        return _SCALAR_JSON[value]
    elif t is int:
        text = int.__repr__(value)
    else:
        if isinstance(value, Unknown):
            return KNOWN_AFTER_APPLY
        if value == SENSITIVE:
            return SENSITIVE
        one = _one_line(value)
        text = one if one is not None else _JSON_ONE_LINE.encode(_plain(value))
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


_encode_str = json.encoder.encode_basestring  # (_json_str, typed)
_KNOWN_AFTER_APPLY_JSON = _encode_str(KNOWN_AFTER_APPLY)
_SENSITIVE_JSON = _encode_str(SENSITIVE)


def _one_line(v: Any) -> str | None:
    """What ``_JSON_ONE_LINE.encode(_plain(v))`` makes, written directly for the plain data a plan holds (str
    keys; str, int, bool, None, finite float, list, dict and Unknown values): the encoder's set-up per
    call costs more than the text of a small list or map. None for anything else (the encoder decides)."""
    t = type(v)
    if t is Unknown:
        return _KNOWN_AFTER_APPLY_JSON
    if t is dict:
        if MASK_KEY in v:
            return _SENSITIVE_JSON
        try:
            keys = sorted(v)
        except TypeError:
            return None
        parts = []
        for k in keys:
            if type(k) is not str:
                return None  # the encoder's rules for other keys
            x = v[k]
            sub = _encode_str(x) if type(x) is str else _one_line(x)
            if sub is None:
                return None
            parts.append(_encode_str(k) + ": " + sub)
        return "{" + ", ".join(parts) + "}"
    if t is list:  # (not a tuple: _plain leaves what is inside one to the encoder's default=str)
        items = []
        for x in v:
            sub = _encode_str(x) if type(x) is str else _one_line(x)
            if sub is None:
                return None
            items.append(sub)
        return "[" + ", ".join(items) + "]"
    if t is str:
        return _encode_str(v)
    if v is None:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return int.__repr__(v)
    if t is float:
        return float.__repr__(v) if v - v == 0.0 else None  # NaN and the infinities: the encoder's words
    if isinstance(v, Unknown):
        return _KNOWN_AFTER_APPLY_JSON
    return None


def _plain(v: Any) -> Any:
    if isinstance(v, Unknown):
        return KNOWN_AFTER_APPLY
    if isinstance(v, dict):
        if MASK_KEY in v:
            return SENSITIVE
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def sort_key(c: ResourceChange) -> int:
    """Destructive first: delete/forget, replace, rebuild, update, create, no-op."""
    if c.action in (Action.DELETE, Action.FORGET):
        return 0
    if c.action is Action.REPLACE:
        return 1
    if c.action is Action.UPDATE and c.rebuild:
        return 2
    if c.action is Action.UPDATE:
        return 3
    if c.action is Action.CREATE:
        return 4
    return 5


def ordered(plan: Plan) -> list[ResourceChange]:
    return sorted((c for c in plan.changes if c.action is not Action.NOOP), key=sort_key)


def is_destructive(c: ResourceChange) -> bool:
    return c.action in (Action.DELETE, Action.REPLACE) or (c.action is Action.UPDATE and c.rebuild)


def label(c: ResourceChange) -> str:
    if c.action is Action.UPDATE and c.rebuild:
        return "rebuild"
    return c.action.value


def summary_counts(plan: Plan) -> dict[str, int]:
    counts = plan.summary()
    counts["rebuild"] = sum(1 for c in plan.changes if c.action is Action.UPDATE and c.rebuild)
    counts["import"] = sum(1 for c in plan.changes if c.import_id is not None)
    counts["move"] = sum(len(m.leaves) for m in plan.moves)
    return counts


def summary_line(plan: Plan) -> str:
    s = summary_counts(plan)
    parts = [
        f"{s['create']} to create" + (f" ({s['import']} existing to adopt)" if s["import"] else ""),
        f"{s['update']} to update",
    ]
    if s["rebuild"]:
        parts[-1] += f" ({s['rebuild']} rebuild{'s' if s['rebuild'] != 1 else ''})"
    parts += [f"{s['replace']} to replace", f"{s['delete']} to delete"]
    if s["forget"]:
        parts.append(f"{s['forget']} to forget")
    if s["move"]:
        parts.append(f"{s['move']} to move")
    parts.append(f"{s['no-op']} unchanged")
    return ", ".join(parts)


def move_lines(plan: Plan) -> list[str]:
    """One line per moved resource: ``a -> b (TYPE), from --move a=b``, then what else it needs."""
    by_address = {c.address: c for c in plan.changes if not c.deposed}
    out = []
    for m in plan.moves:
        for old, new in m.leaves:
            c = by_address.get(new)
            then = "" if c is None or c.action is Action.NOOP else f"; then {label(c)}"
            kind = f" ({c.type})" if c is not None else ""
            out.append(f"{old} -> {new}{kind}, from {m.source} ({m}){then}")
    return out


def reason_text(c: ResourceChange) -> str:
    if c.reason_detail:
        return c.reason_detail
    return c.action_reason.replace("_", " ")


def string_diff(c: ResourceChange, path: str, limit: int = 60) -> list[str] | None:
    """A line diff for a long or multi-line string change (scripts, user_data), so the difference shows even
    when it is past the first characters; None when a one-line rendering is enough or the value is hidden."""
    if is_sensitive_path(path, c.sensitive_paths):
        return None
    steps = split_path(path)
    old, new = get_path(c.before or {}, steps), get_path(c.after or {}, steps)
    if not (isinstance(old, str) and isinstance(new, str)):
        return None
    if "\n" not in old and "\n" not in new and len(old) <= 120 and len(new) <= 120:
        return None
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1))[2:]
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return lines


def changed_lines(c: ResourceChange) -> list[tuple[str, str, str, bool]]:
    """(path, old, new, forces_replacement) for each changed path of an update/replace."""
    before = c.before or {}
    after = c.after or {}
    forced = set(c.replace_paths)
    out = []
    for path in c.changed_paths:
        steps = split_path(path)
        sens = is_sensitive_path(path, c.sensitive_paths)
        old = SENSITIVE if sens else fmt(get_path(before, steps))
        new_v = get_path(after, steps)
        new = SENSITIVE if sens and not isinstance(new_v, Unknown) else fmt(new_v)
        out.append((path, old, new, str(steps[0]) in forced if steps else False))
    return out


def import_verb(c: ResourceChange) -> str | None:
    """What a change that adopts an existing object does (None for other changes)."""
    if c.import_id is None:
        return None
    if c.action_reason == "import_by_request":
        return f"will be imported: existing object {c.import_id} (nothing is created; managed from now on)"
    if c.action is Action.REPLACE:
        return (
            f"record will be replaced: existing object {c.import_id} adopted instead of {c.previous_physical_id} "
            "(external_id changed; no object is created)"
        )
    if c.action is Action.UPDATE:
        return f"record will be updated: {c.import_id} adopted with external_id (the object is not changed)"
    return f"will be adopted: existing object {c.import_id} (external_id: never changed or deleted by hotc)"
