"""``hotc plan --format json`` / ``hotc show PLANFILE --format json``: a stable, versioned document modelled on
Terraform's ``show -json`` (validated by ``hotc/planner/plan.schema.json``).

Top level: ``format_version`` ("1.0": a minor bump adds fields, a major bump breaks), ``stack_name``, ``mode``,
``prior_state`` ({lineage, serial} or null), ``template_digest``, ``options`` (targets, replace, parallelism),
``summary`` (counts per action, plus ``rebuild`` and ``has_changes``), ``resource_changes``, ``resource_drift``,
``output_changes``, ``group_changes`` (per group: members before/after, the update policy and
the batches in the order apply runs them).

Each resource change: ``address``, ``type``, ``name``, ``index``, ``deposed``, ``actions`` (``["no-op"]``,
``["create"]``, ``["update"]``, ``["create","delete"]`` for a replace in Heat's order, ``["delete"]``,
``["forget"]``), ``rebuild``, ``before``, ``after``, ``after_unknown`` (the shape of ``after`` with ``true`` at
values known only after apply, which are ``null`` in ``after``), ``before_sensitive``/``after_sensitive``
(the shape of the value with ``true`` at hidden values, which are ``null`` in ``before``/``after``: a hidden
number stays a number's place, never a string), ``replace_paths`` (paths as lists of steps),
``changed_paths`` (same form), ``action_reason``, ``reason_detail``, ``depends_on``, ``previous_physical_id``,
``moved`` (``{"from": OLD, "to": ADDRESS}`` when a planned move brings the record here first, else null).

``moves``: the planned moves (``--move``, hotc.toml, the moves file), each ``{"from", "to", "source",
"resources": [{"from", "to"}, ...]}``; the apply performs them on the state alone before any other action.
``summary.move`` counts the resources moved.
"""

from __future__ import annotations

from typing import Any

from hotc.planner.jsontext import dumps_indented
from hotc.planner.plan import Action, OutputChange, Plan, ResourceChange
from hotc.planner.present import split_path, summary_counts
from hotc.planner.render.groups import groups_json
from hotc.state.secrets import shown_physical_id
from hotc.values import Unknown


def _known(v: Any) -> Any:
    """``after`` with Unknowns as null."""
    if isinstance(v, Unknown):
        return None
    if isinstance(v, dict):
        return {k: _known(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_known(x) for x in v]
    return v


def _has(m: Any) -> bool:
    if m is True:
        return True
    if isinstance(m, dict):
        return any(_has(x) for x in m.values())
    if isinstance(m, list):
        return any(_has(x) for x in m)
    return False


def unknown_mask(v: Any) -> Any:
    """Terraform's after_unknown: true at unknown leaves; maps keep only keys holding unknowns; a list holding
    unknowns keeps its length (false where known), else is empty."""
    if isinstance(v, Unknown):
        return True
    if isinstance(v, dict):
        return {k: m for k, x in v.items() if _has(m := unknown_mask(x))}
    if isinstance(v, list):
        ms = [unknown_mask(x) for x in v]
        return [m if _has(m) else False for m in ms] if any(_has(m) for m in ms) else []
    return False


def _split_sensitive(props: Any, paths: tuple[str, ...]) -> tuple[Any, Any]:
    """(``props`` with ``null`` at each sensitive path and masked state value, the shape of ``props`` with
    ``true`` there): JSON keeps its types, a hidden number is a ``null`` beside its ``*_sensitive`` flag."""
    if not isinstance(props, dict):
        return (None, {}) if props is None else _split(props, [])
    steps = [[k] for k in props] if "*" in paths else [split_path(p) for p in paths]
    value, shape = _split(props, steps)
    return value, shape or {}


def _split(v: Any, paths: list[list[str | int]]) -> tuple[Any, Any]:
    if any(not p for p in paths):
        # an unknown stays unknown (after_unknown), it reveals nothing
        return (v if isinstance(v, Unknown) else None), True
    if isinstance(v, Unknown):
        return v, False
    if isinstance(v, dict) and "__sensitive__" in v:
        return None, True
    if isinstance(v, dict):
        out: dict[str, Any] = {}
        shape: dict[str, Any] = {}
        for k, x in v.items():
            out[k], s = _split(x, [p[1:] for p in paths if p[0] == k])
            if _has(s):
                shape[k] = s
        return out, shape
    if isinstance(v, list):
        pairs = [_split(x, [p[1:] for p in paths if p[0] == i]) for i, x in enumerate(v)]
        shapes = [s if _has(s) else False for _x, s in pairs]
        return [x for x, _s in pairs], shapes if any(_has(s) for s in shapes) else []
    return v, False


def change_json(c: ResourceChange) -> dict[str, Any]:
    before, before_sensitive = _split_sensitive(c.before, c.sensitive_paths)
    after, after_sensitive = _split_sensitive(c.after, c.sensitive_paths)
    return {
        "address": c.address,
        "type": c.type,
        "index": c.index,
        "deposed": c.deposed,
        "actions": c.action.json_actions,
        "rebuild": c.rebuild,
        "before": _known(before),
        "after": _known(after),
        "after_unknown": unknown_mask(after) if after is not None else {},
        "before_sensitive": before_sensitive,
        "after_sensitive": after_sensitive,
        "replace_paths": [split_path(p) for p in c.replace_paths],
        "changed_paths": [split_path(p) for p in c.changed_paths],
        "action_reason": c.action_reason or None,
        "reason_detail": c.reason_detail or None,
        "depends_on": list(c.depends_on),
        "previous_physical_id": shown_physical_id(c.type, c.previous_physical_id),
        "deletion_policy": c.deletion_policy,
        "importing": {"id": c.import_id, "external_id": c.action_reason != "import_by_request"}
        if c.import_id is not None
        else None,
        "hooks": list(c.hooks),  # the breakpoints the apply pauses at, in order (hotc.planner.hooks)
        "moved": {"from": c.moved_from, "to": c.address} if c.moved_from else None,
    }


def _output_json(o: OutputChange) -> dict[str, Any]:
    def show(v: Any) -> Any:
        if o.sensitive and v is not None and not isinstance(v, Unknown):
            return None  # hidden: null, with "sensitive": true beside it
        return _known(_split(v, [])[0])

    return {
        "actions": o.action.json_actions,
        "before": show(o.before),
        "after": show(o.after),
        "after_unknown": unknown_mask(o.after) if o.after is not None else False,
        "sensitive": o.sensitive,
        "error": o.error,
    }


def plan_json(plan: Plan) -> dict[str, Any]:
    counts = summary_counts(plan)
    return {
        "format_version": plan.format_version,
        "stack_name": plan.stack_name,
        "mode": plan.mode,
        "prior_state": None
        if plan.state_lineage is None
        else {"lineage": plan.state_lineage, "serial": plan.state_serial},
        "template_digest": plan.template_digest,
        "options": {
            "targets": list(plan.targets),
            "exclude": list(plan.excludes),
            "imports": {
                c.address: c.import_id for c in plan.changes if c.action_reason == "import_by_request"
            },
            "replace": list(plan.replace_requests),
            "parallelism": plan.parallelism,
        },
        "summary": {**counts, "has_changes": plan.has_changes},
        "resource_changes": [change_json(c) for c in plan.changes],
        "resource_drift": [change_json(c) for c in plan.resource_drift],
        "moves": [
            {
                "from": m.from_address,
                "to": m.to_address,
                "source": m.source,
                "resources": [{"from": old, "to": new} for old, new in m.leaves],
            }
            for m in plan.moves
        ],
        "output_changes": {o.name: _output_json(o) for o in plan.output_changes},
        "group_changes": groups_json(plan),
        "policy": {
            "passed": not any(f.level == "deny" for f in plan.policy_findings),
            "findings": [
                {
                    "level": f.level,
                    "rule": f.rule,
                    "source": f.source,
                    "address": f.address,
                    "type": f.type,
                    "action": f.action,
                    "message": f.message or None,
                }
                for f in plan.policy_findings
            ],
        },
        "warnings": list(plan.warnings),
        "review": dict(plan.review),
        "quota": dict(plan.quota) or None,
    }


def render_json(plan: Plan) -> str:
    # json.dumps(plan_json(plan), indent=2, ensure_ascii=False, default=str), written faster
    return dumps_indented(plan_json(plan), 2, ensure_ascii=False, default=str) + "\n"


__all__ = ["Action", "change_json", "plan_json", "render_json", "unknown_mask"]
