"""Plan options and CI deny rules (``--deny ACTION:TYPE_GLOB``, ``--policy-file``)."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import Any

from hotc.errors import HotcError
from hotc.model import model

# Actions an apply keeps in flight at most (--parallelism), chosen from measurements on the test cloud (bench/RESULTS.md,
# "Performance"): a group of 30 servers created and deleted faster with 40 than with Terraform's 10 (Heat starts
# every ready resource at once); the executor lowers it while the cloud says it is busy (hotc.apply.throttle).
DEFAULT_PARALLELISM = 40

MODES = ("normal", "destroy", "refresh-only")

# The actions a deny rule may name. ``rebuild`` matches an in-place server rebuild (an update that wipes the
# root disk); ``update`` matches every in-place update including rebuilds.
DENY_ACTIONS = ("create", "update", "rebuild", "replace", "delete", "forget", "*")

# Exit status of ``hotc plan`` when a deny rule is violated (documented in docs/guides/plan.md).
DENY_EXIT_CODE = 3


POLICY_LEVELS = ("deny", "warn")


@model
class DenyRule:
    """A policy rule over planned changes: ``ACTION:TYPE_GLOB[@ADDRESS_GLOB]``, optionally only when the change
    touches a property (``changed``: property path globs). ``level`` ``deny`` fails the gate (exit 3); ``warn``
    reports the finding (plan text, JSON ``policy``, Markdown, SARIF) without failing."""

    action: str
    type_glob: str
    source: str = "--deny"  # where the rule came from (command line or policy file path)
    address_glob: str = "*"
    level: str = "deny"
    changed: tuple[str, ...] = ()  # property path globs; empty: any change
    message: str = ""  # the reviewer-facing reason given by the policy's author

    def __str__(self) -> str:
        text = f"{self.action}:{self.type_glob}"
        if self.address_glob != "*":
            text += f"@{self.address_glob}"
        if self.changed:
            text += f" when {' or '.join(self.changed)} changes"
        return text

    def matches(self, action: str, rebuild: bool, type_name: str, address: str = "") -> bool:
        if self.action == "*":
            hit = action != "no-op"
        elif self.action == "rebuild":
            hit = action == "update" and rebuild
        else:
            hit = self.action == action
        return (
            hit
            and fnmatch.fnmatchcase(type_name, self.type_glob)
            and (self.address_glob == "*" or fnmatch.fnmatchcase(address, self.address_glob))
        )

    def matches_paths(self, changed_paths: tuple[str, ...]) -> bool:
        if not self.changed:
            return True
        return any(fnmatch.fnmatchcase(p, g) for p in changed_paths for g in self.changed)


def parse_deny_rule(text: str, source: str = "--deny", level: str = "deny") -> DenyRule:
    action, sep, glob = text.partition(":")
    action = action.strip().lower()
    glob, _, address = glob.strip().partition("@")
    glob, address = glob.strip(), address.strip() or "*"
    if not sep or not glob:
        raise HotcError(
            f"{source}: rule {text!r}: expected ACTION:TYPE_GLOB[@ADDRESS_GLOB], e.g. 'replace:OS::Cinder::*' "
            "or 'delete:*@db*'"
        )
    # Type names contain '::', so only the first ':' separates the action.
    if action not in DENY_ACTIONS:
        raise HotcError(
            f"{source}: rule {text!r}: unknown action {action!r}; use one of {', '.join(DENY_ACTIONS)}"
        )
    return DenyRule(action, glob, source, address_glob=address, level=level)


def _rule_from_map(item: dict[str, Any], where: str, level: str) -> DenyRule:
    known = {"action", "type", "address", "changed", "message", "level"}
    extra = sorted(set(item) - known)
    if extra:
        raise HotcError(f"{where}: unknown key(s) {', '.join(extra)}; a rule has {', '.join(sorted(known))}")
    action, type_glob, address = item.get("action", "*"), item.get("type", "*"), item.get("address", "*")
    changed = item.get("changed", [])
    if isinstance(changed, str):
        changed = [changed]
    message = item.get("message", "")
    level = item.get("level", level)
    if not all(isinstance(x, str) for x in (action, type_glob, address, message)) or not (
        isinstance(changed, list) and all(isinstance(c, str) for c in changed)
    ):
        raise HotcError(
            f"{where}: action, type, address and message are strings, changed a list of property path globs"
        )
    if level not in POLICY_LEVELS:
        raise HotcError(f"{where}: level {level!r}: use deny or warn")
    rule = parse_deny_rule(f"{action}:{type_glob}@{address}", where, level)
    return DenyRule(
        rule.action,
        rule.type_glob,
        where,
        address_glob=rule.address_glob,
        level=level,
        changed=tuple(changed),
        message=message,
    )


def load_policy_file(path: Path) -> tuple[DenyRule, ...]:
    """A policy file: a YAML or JSON list of deny rules, or a map ``{deny: [...], warn: [...]}``. A rule is a
    string ``ACTION:TYPE_GLOB[@ADDRESS_GLOB]`` or a map ``{action, type, address, changed, message}``
    (``changed``: property path globs the change must touch; a map in a plain list may set ``level``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HotcError(f"--policy-file {path}: cannot read: {exc.strerror or exc}") from exc
    import yaml  # lazy: check and destroy never read a policy file; check must not load yaml (test_startup_imports)

    try:
        data: Any = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise HotcError(f"--policy-file {path}: not valid YAML/JSON: {exc}") from exc
    groups: list[tuple[str, Any]]
    if isinstance(data, dict) and set(data) <= set(POLICY_LEVELS) and data:
        groups = [(lvl, data[lvl]) for lvl in POLICY_LEVELS if lvl in data]
    else:
        groups = [("deny", data)]
    if not all(isinstance(items, list) for _, items in groups):
        raise HotcError(
            f"{path}: a policy file holds a list of 'ACTION:TYPE_GLOB' rules (or a map with keys 'deny' and 'warn')"
        )
    rules: list[DenyRule] = []
    n = 0
    for level, items in groups:
        for item in items:
            n += 1
            where = f"{path}: rule {n}"
            if isinstance(item, str):
                rules.append(parse_deny_rule(item, where, level))
            elif isinstance(item, dict):
                rules.append(_rule_from_map(item, where, level))
            else:
                raise HotcError(
                    f"{where}: expected 'ACTION:TYPE_GLOB' or {{action: ..., type: ...}}, got {item!r}"
                )
    return tuple(rules)


@model
class PlanOptions:
    mode: str = "normal"  # normal | destroy | refresh-only
    targets: tuple[str, ...] = ()  # addresses (a group or nested stack address selects all its members)
    # addresses left out of the plan with everything that depends on them (destroy: with what they need)
    excludes: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()  # addresses to replace even when they could be kept
    parallelism: int = DEFAULT_PARALLELISM  # stored in the plan for apply
    deny: tuple[DenyRule, ...] = ()
    # (address, id) pairs: existing objects to take over (``--import ADDR=ID``), created by adopting them
    imports: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise HotcError(f"unknown plan mode {self.mode!r}; use one of {', '.join(MODES)}")
        if self.parallelism < 1:
            raise HotcError(f"--parallelism {self.parallelism}: must be at least 1")
        if self.mode == "destroy" and self.replace:
            raise HotcError("--replace cannot be combined with --destroy")
        if self.mode == "refresh-only" and self.replace:
            raise HotcError("--replace cannot be combined with --refresh-only")
        if self.imports and self.mode != "normal":
            raise HotcError(f"--import cannot be combined with --{self.mode}")
        seen: dict[str, str] = {}
        for addr, pid in self.imports:
            if addr in seen and seen[addr] != pid:
                raise HotcError(f"--import {addr}: given twice, with {seen[addr]} and {pid}")
            seen[addr] = pid


def parse_import(text: str) -> tuple[str, str]:
    """``ADDRESS=ID`` (``--import``)."""
    addr, sep, pid = text.partition("=")
    addr, pid = addr.strip(), pid.strip()
    if not sep or not addr or not pid:
        raise HotcError(f"--import {text!r}: expected ADDRESS=ID, e.g. --import web=8c3f...")
    return addr, pid
