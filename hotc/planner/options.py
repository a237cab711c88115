"""Plan options and CI deny rules (``--deny ACTION:TYPE_GLOB``, ``--policy-file``)."""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hotc.errors import HotcError

MODES = ("normal", "destroy", "refresh-only")

# The actions a deny rule may name. ``rebuild`` matches an in-place server rebuild (an update that wipes the
# root disk); ``update`` matches every in-place update including rebuilds.
DENY_ACTIONS = ("create", "update", "rebuild", "replace", "delete", "forget", "*")

# Exit status of ``hotc plan`` when a deny rule is violated (documented in conventions.md / README).
DENY_EXIT_CODE = 3


@dataclass(frozen=True)
class DenyRule:
    """``ACTION:TYPE_GLOB``: no resource whose type matches the glob may get that action."""

    action: str
    type_glob: str
    source: str = "--deny"  # where the rule came from (command line or policy file path)

    def __str__(self) -> str:
        return f"{self.action}:{self.type_glob}"

    def matches(self, action: str, rebuild: bool, type_name: str) -> bool:
        if self.action == "*":
            hit = action != "no-op"
        elif self.action == "rebuild":
            hit = action == "update" and rebuild
        else:
            hit = self.action == action
        return hit and fnmatch.fnmatchcase(type_name, self.type_glob)


def parse_deny_rule(text: str, source: str = "--deny") -> DenyRule:
    action, sep, glob = text.partition(":")
    action = action.strip().lower()
    glob = glob.strip()
    if not sep or not glob:
        raise HotcError(
            f"{source}: deny rule {text!r}: expected ACTION:TYPE_GLOB, e.g. 'replace:OS::Cinder::*'"
        )
    # Type names contain '::', so only the first ':' separates the action.
    if action not in DENY_ACTIONS:
        raise HotcError(
            f"{source}: deny rule {text!r}: unknown action {action!r}; use one of {', '.join(DENY_ACTIONS)}"
        )
    return DenyRule(action, glob, source)


def load_policy_file(path: Path) -> tuple[DenyRule, ...]:
    """A policy file: a YAML or JSON list of ``ACTION:TYPE_GLOB`` strings, or ``{deny: [...]}``;
    items may also be maps ``{action: replace, type: "OS::Cinder::*"}``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HotcError(f"--policy-file {path}: cannot read: {exc.strerror or exc}") from exc
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise HotcError(f"--policy-file {path}: not valid YAML/JSON: {exc}") from exc
    if isinstance(data, dict):
        data = data.get("deny", None)
    if not isinstance(data, list):
        raise HotcError(
            f"{path}: a policy file holds a list of 'ACTION:TYPE_GLOB' rules (or a map with key 'deny')"
        )
    rules: list[DenyRule] = []
    for i, item in enumerate(data):
        where = f"{path}: rule {i + 1}"
        if isinstance(item, str):
            rules.append(parse_deny_rule(item, where))
        elif (
            isinstance(item, dict)
            and isinstance(item.get("action"), str)
            and isinstance(item.get("type", "*"), str)
        ):
            rules.append(parse_deny_rule(f"{item['action']}:{item.get('type', '*')}", where))
        else:
            raise HotcError(
                f"{where}: expected 'ACTION:TYPE_GLOB' or {{action: ..., type: ...}}, got {item!r}"
            )
    return tuple(rules)


@dataclass(frozen=True)
class PlanOptions:
    mode: str = "normal"  # normal | destroy | refresh-only
    targets: tuple[str, ...] = ()  # addresses (a group or nested stack address selects all its members)
    replace: tuple[str, ...] = ()  # addresses to replace even when they could be kept
    parallelism: int = 10  # stored in the plan for apply
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
