"""Running the rules over a loaded stack: every template (the root and each nested template once), every
resource of the types a rule reads, then suppression (inline comments, ``hotc.toml``).

Inline suppression, as checkov's ``#checkov:skip=``: a comment ``# hotc:skip=RULE[,RULE…] reason`` inside the
resource's (or parameter's) lines in the template, or on the comment lines just above its name, suppresses those
rules for it. A ``[lint]`` ``skip`` entry of ``hotc.toml`` (:mod:`hotc.lint.config`) does the same from outside.
A suppressed finding is still reported, as suppressed, with its reason.
"""

from __future__ import annotations

import fnmatch
import importlib
import os
import pkgutil
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import cache

from hotc.errors import Pos
from hotc.lint import rules as package
from hotc.lint.config import LintConfig
from hotc.lint.rule import ANY_TYPE, Kind, Level, Outcome, Rule, cannot_tell
from hotc.lint.view import TemplateView
from hotc.model import model
from hotc.parser.api import MISSING, LoadedStack, NestedTemplate

SKIP_COMMENT = re.compile(r"#\s*hotc:skip=([A-Za-z0-9_*?,-]+)(?:[ \t]+(.*?))?\s*$")
NO_REASON = "(no reason given)"


@cache
def all_rules() -> tuple[Rule, ...]:
    """Every rule of :mod:`hotc.lint.rules` (one module each, holding ``RULE``), by id."""
    found: list[Rule] = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        rule = getattr(module, "RULE", None)
        if not isinstance(rule, Rule):
            raise TypeError(f"{module.__name__} has no RULE")
        found.append(rule)
    ids = [r.id for r in found]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"rule ids used twice: {sorted(dupes)}")
    return tuple(sorted(found, key=lambda r: r.id))


@model(slots=True)
class LintFinding:
    """One outcome of one rule, after suppression."""

    rule: Rule
    kind: Kind
    message: str
    pos: Pos | None
    subject: str  # the resource (``group[*]`` for a member definition) or the parameter it is about
    resource_type: str = ""
    suppressed: str | None = None  # the reason, when suppressed
    suppressed_by: str | None = None  # "inline" | "hotc.toml"

    @property
    def severity(self) -> Level:
        return self.rule.severity


@model
class LintReport:
    findings: tuple[LintFinding, ...]
    rules: tuple[Rule, ...]  # the rules that ran

    def active(self) -> list[LintFinding]:
        """Findings (not "cannot tell") that are not suppressed."""
        return [f for f in self.findings if f.kind is Kind.FINDING and f.suppressed is None]

    def failing(self, threshold: Level) -> list[LintFinding]:
        """Unsuppressed findings at or above ``threshold``: the ones that fail ``--fail-on``."""
        return [f for f in self.active() if f.severity.rank >= threshold.rank]


def template_views(loaded: LoadedStack) -> list[TemplateView]:
    """The root template with its parameter values, then every nested template (once each, by path) with its
    parameter defaults (what its parent feeds is not resolved here)."""
    root = TemplateView(
        loaded.template,
        loaded.parameter_values,
        loaded.types,
        loaded.member_types,
        loaded.files,
        environment=loaded.environment,
        hidden=frozenset(loaded.hidden_parameters),
    )
    out = [root]
    seen = {loaded.template.path}
    stack: list[Mapping[str, NestedTemplate]] = [loaded.nested]
    while stack:
        for _key, nt in sorted(stack.pop().items()):
            stack.append(nt.nested)
            if nt.template.path in seen:
                continue
            seen.add(nt.template.path)
            defaults = {n: p.default for n, p in nt.template.parameters.items() if p.default is not MISSING}
            out.append(TemplateView(nt.template, defaults, nt.types, nt.member_types, nt.files, nested=True))
    return out


def _failed(rule: Rule, exc: Exception, pos: Pos | None, subject: str = "") -> Outcome:
    """A rule that raised: reported as "cannot tell" (never a traceback), naming the error so it gets fixed."""
    return cannot_tell(
        f"rule {rule.id} could not check this ({type(exc).__name__}: {exc}); please report it", pos, subject
    )


def _scrub(message: str, secrets: Sequence[str]) -> str:
    """``message`` with every known value of a hidden parameter (three characters or more) masked."""
    for value in secrets:
        if len(value) >= 3 and value in message:
            message = re.sub(rf"(?<![\w]){re.escape(value)}(?![\w])", "******", message)
    return message


def _run_rule(rule: Rule, views: Sequence[TemplateView]) -> Iterable[tuple[Outcome, str, str, Pos | None]]:
    """(outcome, subject, resource type, the position whose lines may hold an inline suppression)."""
    for view in views:
        secrets = sorted(view.hidden_values(), key=len, reverse=True)
        if rule.check_template is not None:
            try:
                found = list(rule.check_template(view))
            except Exception as exc:  # a bug in a rule: say so and go on with the others
                found = [_failed(rule, exc, view.template.pos)]
            for o in found:
                yield replace(o, message=_scrub(o.message, secrets)), o.subject, "", o.pos
            continue
        assert rule.check_resource is not None
        for res in view.resources():
            if res.type not in rule.types and ANY_TYPE not in rule.types:
                continue
            try:
                found = list(rule.check_resource(res))
            except Exception as exc:  # a bug in a rule: say so and go on with the others
                found = [_failed(rule, exc, res.pos)]
            for o in found:
                yield (
                    replace(o, message=_scrub(o.message, secrets)),
                    o.subject or res.name,
                    res.type,
                    res.resource.pos,
                )


def _lines(sources: Mapping[str, str], path: str, cache_: dict[str, list[str]]) -> list[str]:
    if path not in cache_:
        text = sources.get(path)
        if text is None:
            text = sources.get(os.path.abspath(path))
        if text is None:
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError):
                text = ""
        cache_[path] = text.splitlines()
    return cache_[path]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def inline_skips(lines: Sequence[str], anchor: Pos) -> dict[str, str]:
    """``rule pattern -> reason`` from the ``# hotc:skip=`` comments of the entry whose name is at ``anchor``:
    the comment lines just above it, its own line and the lines indented under it."""
    if anchor.line < 1 or anchor.line > len(lines):
        return {}
    start = anchor.line - 1
    block: list[str] = [lines[start]]
    key_indent = _indent(lines[start])
    i = start - 1
    # the comments just above, at the name's own indentation (a deeper one ends the entry before)
    while i >= 0 and lines[i].lstrip().startswith("#") and _indent(lines[i]) == key_indent:
        block.append(lines[i])
        i -= 1
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and _indent(line) <= key_indent:
            break
        block.append(line)
    out: dict[str, str] = {}
    for line in block:
        hash_at = line.find("#")
        if hash_at < 0:
            continue
        m = SKIP_COMMENT.search(line[hash_at:])
        if m is None:
            continue
        reason = (m.group(2) or "").strip() or NO_REASON
        for rid in m.group(1).split(","):
            if rid:
                out[rid] = reason
    return out


def run_rules(
    loaded: LoadedStack,
    *,
    config: LintConfig | None = None,
    rules: Sequence[Rule] | None = None,
) -> LintReport:
    """Every rule over every template of ``loaded``, suppression applied; findings sorted by file, position,
    rule."""
    chosen = tuple(rules) if rules is not None else all_rules()
    views = template_views(loaded)
    config = config or LintConfig()
    line_cache: dict[str, list[str]] = {}
    skip_cache: dict[Pos, dict[str, str]] = {}
    out: list[LintFinding] = []
    seen: set[tuple[str, Kind, str, Pos | None]] = set()
    for rule in chosen:
        for outcome, subject, type_name, anchor in _run_rule(rule, views):
            key = (rule.id, outcome.kind, outcome.message, outcome.pos)
            if key in seen:
                continue
            seen.add(key)
            reason: str | None = None
            by: str | None = None
            if anchor is not None:
                if anchor not in skip_cache:
                    skip_cache[anchor] = inline_skips(_lines(loaded.sources, anchor.file, line_cache), anchor)
                for pattern, why in skip_cache[anchor].items():
                    if fnmatch.fnmatchcase(rule.id, pattern):
                        reason, by = why, "inline"
                        break
            if reason is None:
                skip = config.skip_for(rule.id, subject)
                if skip is not None:
                    reason, by = skip.reason, "hotc.toml"
            out.append(
                LintFinding(rule, outcome.kind, outcome.message, outcome.pos, subject, type_name, reason, by)
            )

    def order(f: LintFinding) -> tuple[str, int, int, str]:
        p = f.pos
        return (p.file, p.line, p.col, f.rule.id) if p is not None else ("", 0, 0, f.rule.id)

    return LintReport(tuple(sorted(out, key=order)), chosen)
