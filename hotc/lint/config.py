"""The ``[lint]`` section of ``hotc.toml``, the project file found in the working directory or one of its
parents::

    [lint]
    skip = [
      {rule = "HOT101", resource = "bastion_sg", reason = "the bastion is reached from anywhere on purpose"},
      {rule = "HOT0*", reason = "parameters are reviewed elsewhere"},   # no resource: every resource
    ]

``rule`` and ``resource`` are shell patterns (``*``, ``?``); ``resource`` names a resource (``group[*]`` for a
group's member definition, which ``group`` also matches) or, for a parameter rule, the parameter. ``reason`` is
required: a suppressed finding is listed with it.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from pathlib import Path
from typing import Any

from hotc.errors import HotcError
from hotc.model import model

CONFIG_FILE = "hotc.toml"


@model(slots=True)
class Skip:
    rule: str
    resource: str  # "*" for every resource
    reason: str

    def matches(self, rule_id: str, subject: str) -> bool:
        if not fnmatch.fnmatchcase(rule_id, self.rule):
            return False
        base = subject[:-3] if subject.endswith("[*]") else subject
        return fnmatch.fnmatchcase(subject, self.resource) or fnmatch.fnmatchcase(base, self.resource)


@model(slots=True)
class LintConfig:
    skips: tuple[Skip, ...] = ()
    path: str | None = None  # the hotc.toml it came from

    def skip_for(self, rule_id: str, subject: str) -> Skip | None:
        for s in self.skips:
            if s.matches(rule_id, subject):
                return s
        return None


def find_config(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``hotc.toml``: in ``start`` (default: the working directory) or one of its parents."""
    here = Path(start if start is not None else os.getcwd()).resolve()
    for d in (here, *here.parents):
        candidate = d / CONFIG_FILE
        if candidate.is_file():
            return candidate
    return None


def _bad(path: Path, what: str) -> HotcError:
    return HotcError(f"{path}: [lint] {what}; see docs/lint-rules.md (Suppressing a finding)")


def parse_config(path: Path, doc: dict[str, Any]) -> LintConfig:
    section = doc.get("lint", {})
    if not isinstance(section, dict):
        raise _bad(path, "must be a table")
    unknown = sorted(set(section) - {"skip"})
    if unknown:
        raise _bad(path, f"has unknown key(s) {', '.join(unknown)} (known: skip)")
    entries = section.get("skip", [])
    if not isinstance(entries, list):
        raise _bad(path, "skip must be a list of tables {rule, resource, reason}")
    skips: list[Skip] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _bad(path, f"skip[{i}] must be a table {{rule, resource, reason}}")
        extra = sorted(set(entry) - {"rule", "resource", "reason"})
        if extra:
            raise _bad(path, f"skip[{i}] has unknown key(s) {', '.join(extra)}")
        rule, resource, reason = entry.get("rule"), entry.get("resource", "*"), entry.get("reason")
        if not isinstance(rule, str) or not rule:
            raise _bad(path, f'skip[{i}] needs rule = "RULE-ID"')
        if not isinstance(resource, str) or not resource:
            raise _bad(path, f"skip[{i}].resource must be a resource name or pattern")
        if not isinstance(reason, str) or not reason.strip():
            raise _bad(path, f'skip[{i}] needs a reason = "why this finding is accepted"')
        skips.append(Skip(rule, resource, reason.strip()))
    return LintConfig(tuple(skips), str(path))


def load_config(start: str | os.PathLike[str] | None = None) -> LintConfig:
    """The ``[lint]`` section of the nearest ``hotc.toml`` (none: nothing skipped). A file that cannot be read or
    parsed is a HotcError naming it."""
    path = find_config(start)
    if path is None:
        return LintConfig()
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise HotcError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise HotcError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return parse_config(path, doc)
