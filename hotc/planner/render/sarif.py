"""SARIF 2.1.0 for code scanning: ``hotc validate --format sarif`` and ``hotc plan --format sarif``.

Every result carries a stable rule id from :data:`RULES` (documented in ``docs/sarif-rules.md``; a test keeps
the two and every diagnostic ``code`` used in hotc in step) and, where hotc knows it, the template position.
Paths are written relative to the working directory (``%SRCROOT%``), as code-scanning uploads expect when hotc
runs at the repository root.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from hotc import __version__
from hotc.errors import Diagnostic, Pos, Severity
from hotc.model import model
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.present import label, reason_text

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@model(slots=True)
class Rule:
    id: str
    name: str
    short: str
    level: str  # the default SARIF level: error | warning | note


def _template_rule(code: str, name: str, short: str, level: str = "error") -> Rule:
    return Rule(f"template/{code}", name, short, level)


# Template diagnostics, by ``Diagnostic.code``. A diagnostic without a code is ``template/general``.
TEMPLATE_RULES: dict[str, Rule] = {
    r.id.split("/", 1)[1]: r
    for r in (
        _template_rule("general", "TemplateProblem", "A problem in a template or environment."),
        _template_rule("syntax", "Syntax", "The file is not valid YAML or JSON."),
        _template_rule("structure", "Structure", "A section or entry has the wrong shape."),
        _template_rule("too-large", "TooLarge", "A template or file is larger than the size limit."),
        _template_rule("limit", "Limit", "An input exceeds one of hotc's safety limits."),
        _template_rule("duplicate-key", "DuplicateKey", "A mapping repeats a key.", "warning"),
        _template_rule("version", "Version", "The heat_template_version is unknown or wrong."),
        _template_rule("file", "File", "A file the template names (get_file, nested) cannot be read."),
        _template_rule("environment", "Environment", "An environment file is invalid."),
        _template_rule(
            "reference", "Reference", "A reference to a resource, parameter or condition is wrong."
        ),
        _template_rule("attribute", "Attribute", "get_attr names an attribute the type does not have."),
        _template_rule("cycle", "Cycle", "Resources depend on each other in a cycle."),
        _template_rule("type", "ResourceType", "A resource type is invalid."),
        _template_rule("unknown-type", "UnknownType", "A resource type is not known to Heat or hotc."),
        _template_rule("hidden-type", "HiddenType", "A resource type is hidden or deprecated.", "warning"),
        _template_rule(
            "unsupported-type", "UnsupportedType", "hotc cannot apply this resource type or option."
        ),
        _template_rule(
            "unsupported-option",
            "UnsupportedOption",
            "An option needs a service hotc does not have (hotc plan refuses it).",
            "warning",
        ),
        _template_rule(
            "restricted-action", "RestrictedAction", "A change needs an action restricted_actions forbids."
        ),
        _template_rule("property", "Property", "A resource property is invalid for its type."),
        _template_rule("custom-constraint", "CustomConstraint", "A value fails a custom constraint."),
        _template_rule("parameter-definition", "ParameterDefinition", "A parameter is declared wrongly."),
        _template_rule(
            "parameter-value", "ParameterValue", "A parameter value fails its type or constraints."
        ),
        _template_rule(
            "missing-parameter", "MissingParameter", "A parameter without a default has no value."
        ),
        _template_rule(
            "unknown-parameter", "UnknownParameter", "A value is given for an undeclared parameter."
        ),
        _template_rule("parameter-groups", "ParameterGroups", "parameter_groups is invalid."),
        _template_rule("condition", "Condition", "A condition is invalid."),
        _template_rule("function-args", "FunctionArguments", "An intrinsic function has wrong arguments."),
        _template_rule("function-version", "FunctionVersion", "A function is not in this template version."),
        _template_rule(
            "function-spelling",
            "FunctionSpelling",
            "A key looks like a misspelt function name (Heat takes the mapping as data).",
            "warning",
        ),
        _template_rule("invalid-function", "InvalidFunction", "A function is used where it is not allowed."),
        _template_rule("removed-function", "RemovedFunction", "A removed CloudFormation function is used."),
        _template_rule("eval", "Evaluation", "An expression cannot be evaluated."),
        _template_rule("yaql", "Yaql", "A yaql expression is invalid."),
        _template_rule("nested", "NestedTemplate", "A nested template is invalid."),
    )
}

# Plan results: what a reviewer should look at, placed at the resource's line.
PLAN_RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "plan/replace",
            "Replace",
            "The resource is replaced: a new one is made, the old one deleted.",
            "warning",
        ),
        Rule("plan/rebuild", "Rebuild", "The server is rebuilt in place: its root disk is wiped.", "warning"),
        Rule("plan/delete", "Delete", "The resource is deleted.", "warning"),
        Rule("plan/forget", "Forget", "The resource leaves hotc's state and stays in the cloud.", "note"),
        Rule(
            "plan/disruptive-update",
            "DisruptiveUpdate",
            "An in-place update interrupts service (e.g. a resize).",
            "note",
        ),
        Rule(
            "plan/move",
            "Move",
            "The resource's record moves to a new address (state only); the object is kept.",
            "note",
        ),
        Rule("policy/deny", "PolicyDeny", "A plan change violates a deny policy rule.", "error"),
        Rule("policy/warn", "PolicyWarn", "A plan change matches a warn policy rule.", "warning"),
    )
}


def rule_for(d: Diagnostic) -> Rule:
    return TEMPLATE_RULES.get(d.code or "general", TEMPLATE_RULES["general"])


def all_rules() -> list[Rule]:
    return [*TEMPLATE_RULES.values(), *PLAN_RULES.values()]


def _uri(path: str) -> str:
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    if rel.startswith(".."):
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


def _location(pos: Pos | None) -> list[dict[str, Any]]:
    if pos is None or pos.file.startswith("<") or pos.file == "(none)":
        return []
    region = {"startLine": max(pos.line, 1), "startColumn": max(pos.col, 1)}
    return [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": _uri(pos.file), "uriBaseId": "%SRCROOT%"},
                "region": region,
            }
        }
    ]


def _fingerprint(*parts: str) -> dict[str, str]:
    # stable across runs and line moves: what the result is about, never where
    return {"hotc/v1": hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]}


def _result(rule: Rule, level: str, message: str, pos: Pos | None, *key: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": rule.id,
        "level": level,
        "message": {"text": message},
        "partialFingerprints": _fingerprint(rule.id, *key),
    }
    loc = _location(pos)
    if loc:
        out["locations"] = loc
    return out


def diagnostic_results(diags: Iterable[Diagnostic]) -> list[dict[str, Any]]:
    out = []
    for d in diags:
        rule = rule_for(d)
        level = "error" if d.severity is Severity.ERROR else "warning"
        where = d.pos.file if d.pos else ""
        out.append(_result(rule, level, d.message, d.pos, where, d.message))
    return out


def _change_rule(c: ResourceChange, disruptive: bool) -> Rule | None:
    if c.action is Action.REPLACE:
        return PLAN_RULES["plan/replace"]
    if c.action is Action.DELETE:
        return PLAN_RULES["plan/delete"]
    if c.action is Action.FORGET:
        return PLAN_RULES["plan/forget"]
    if c.action is Action.UPDATE and c.rebuild:
        return PLAN_RULES["plan/rebuild"]
    if c.action is Action.UPDATE and disruptive:
        return PLAN_RULES["plan/disruptive-update"]
    return None


def plan_results(
    plan: Plan,
    positions: Mapping[str, Pos],
    *,
    disruptive: frozenset[str] = frozenset(),
    policy: Iterable[tuple[str, str, str]] = (),
) -> list[dict[str, Any]]:
    """Results for the destructive or disruptive changes of ``plan`` (at the resource's template position when
    ``positions`` has it) and for policy findings ``(level, address, message)`` with level ``deny``/``warn``."""
    out = []
    for c in plan.changes:
        rule = _change_rule(c, c.address in disruptive)
        if rule is None:
            continue
        msg = f"{label(c)} {c.address} ({c.type}): {reason_text(c)}"
        out.append(_result(rule, rule.level, msg, positions.get(c.address), c.address, c.action.value))
    for c in plan.changes:
        if c.moved_from and not c.deposed:
            rule = PLAN_RULES["plan/move"]
            msg = f"move {c.moved_from} -> {c.address} ({c.type}): the record moves, the object is kept"
            out.append(_result(rule, rule.level, msg, positions.get(c.address), c.address, "move"))
    for level, address, message in policy:
        rule = PLAN_RULES["policy/deny" if level == "deny" else "policy/warn"]
        out.append(_result(rule, rule.level, message, positions.get(address), address, message))
    return out


def _rule_json(r: Rule) -> dict[str, Any]:
    return {
        "id": r.id,
        "name": r.name,
        "shortDescription": {"text": r.short},
        "defaultConfiguration": {"level": r.level},
        "fullDescription": {"text": r.short},
        "help": {"text": f"{r.short} Rule {r.id}: see docs/sarif-rules.md in hotc's documentation."},
    }


def render_sarif(results: list[dict[str, Any]]) -> str:
    """One SARIF log with one run of hotc; ``rules`` lists the rules the results use, ``ruleIndex`` points
    into it."""
    used: list[Rule] = []
    index: dict[str, int] = {}
    by_id = {r.id: r for r in all_rules()}
    for res in results:
        rid = res["ruleId"]
        if rid not in index:
            index[rid] = len(used)
            used.append(by_id[rid])
        res["ruleIndex"] = index[rid]
    cwd = os.getcwd().replace(os.sep, "/").rstrip("/") + "/"
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "hotc",
                        "version": __version__,
                        "rules": [_rule_json(r) for r in used],
                    }
                },
                "originalUriBaseIds": {
                    "%SRCROOT%": {"uri": "file://" + ("" if cwd.startswith("/") else "/") + cwd}
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"
