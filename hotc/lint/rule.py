"""The rule API: what a security rule declares and what it reports.

A rule (:class:`Rule`) has an id (``HOT101``), a severity (low, medium, high, critical, as checkov's), a title,
the Heat resource types it reads (empty: the rule reads the template itself, its parameters), a rationale, a
fix, a help address, and a good and a bad example (template text; the tests run every rule over both). Its
check returns :class:`Outcome` s: a finding (the template does what the rule warns of) or "cannot tell" (the
value the rule needs is known only at apply time, or depends on a parameter without a value); both carry the
position of the resource or property they are about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import TYPE_CHECKING

from hotc.errors import Pos
from hotc.model import model

if TYPE_CHECKING:
    from hotc.lint.view import ResourceView, TemplateView

#: in ``Rule.types``: the rule reads resources of every type
ANY_TYPE = "*"

#: where the rules' documentation lives (each rule's ``helpUri`` is this plus ``#`` and the rule id)
DOCS_URI = "docs/lint-rules.md"


class Level(str, Enum):
    """A finding's severity, lowest first."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return _RANK[self]

    @classmethod
    def parse(cls, text: str) -> Level:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(
                f"unknown severity {text!r}: use one of {', '.join(m.value for m in cls)}"
            ) from None


_RANK = {Level.LOW: 0, Level.MEDIUM: 1, Level.HIGH: 2, Level.CRITICAL: 3}


class Kind(str, Enum):
    FINDING = "finding"
    CANNOT_TELL = "cannot-tell"


@model(slots=True)
class Outcome:
    """What a check found about one resource (or parameter): a finding or a "cannot tell"."""

    kind: Kind
    message: str
    pos: Pos | None
    # what it is about, for a template rule: the parameter's name (a resource rule's is the resource's)
    subject: str = ""


def finding(message: str, pos: Pos | None, subject: str = "") -> Outcome:
    return Outcome(Kind.FINDING, message, pos, subject)


def cannot_tell(message: str, pos: Pos | None, subject: str = "") -> Outcome:
    return Outcome(Kind.CANNOT_TELL, message, pos, subject)


ResourceCheck = Callable[["ResourceView"], Iterable[Outcome]]
TemplateCheck = Callable[["TemplateView"], Iterable[Outcome]]


@model
class Rule:
    """One security rule. Exactly one of ``check_resource`` (called for each resource whose type is in
    ``types``) and ``check_template`` (called once per template, ``types`` empty) is set."""

    id: str
    name: str  # CamelCase, for SARIF's rule name
    severity: Level
    title: str
    types: tuple[str, ...]
    rationale: str
    fix: str
    good: str  # a template the rule passes
    bad: str  # a template the rule reports (at least one finding)
    check_resource: ResourceCheck | None = None
    check_template: TemplateCheck | None = None
    # an environment file given with the example (-e), for the rules that read environments
    good_env: str = ""
    bad_env: str = ""

    @property
    def help_uri(self) -> str:
        return f"{DOCS_URI}#{self.id.lower()}"

    @property
    def service(self) -> str:
        """The service the rule is about (``Neutron``, ``Nova``, … or ``Template``)."""
        if not self.types:
            return "Template"
        if ANY_TYPE in self.types:
            return "Any"
        return self.types[0].split("::")[1]
