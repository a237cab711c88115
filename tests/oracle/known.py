"""Disagreement classes with Heat that stay, each with its reason. A class is (cause, function-or-feature
label) as :mod:`tests.oracle.report` groups them; the CI test fails on any disagreement of another class.

Keep this list short and honest: a class here is either a deliberate difference (hotc keeps Heat's verdict
where matching it would be harmful, and says so) or work that is known and owned elsewhere."""

from __future__ import annotations

#: (cause prefix, feature label prefix) -> reason
KNOWN: dict[tuple[str, str], str] = {
    ("validate: hotc rejects, Heat accepts", "param:"): (
        "a parameter default that fails its type or its constraints: Heat's template validate accepts it and "
        "its stack create refuses it, hotc refuses it at validate already (parameter checks: trust-plan)"
    ),
    ("create: Heat fails, hotc creates", "nested:"): (
        "a property a template resource passes that its nested parameter cannot take: Heat's create fails, "
        "hotc converts it (nested validation: trust-plan)"
    ),
    ("create: Heat fails, hotc creates", "ResourceGroup"): (
        "open: Heat builds the group's nested template with an output per member attribute the parent asks "
        "for, so a member attribute that does not exist (or a member template whose outputs do not validate) "
        "fails the create; hotc errors only the output that reads it"
    ),
    ("validate: Heat rejects, hotc accepts", "conditions"): (
        "open: a quoted 'true'/'false' where a condition is expected is a condition name in Heat (an invalid "
        "one), which hotc finds only when it evaluates that operand"
    ),
    ("create: Heat's engine fails with an internal error (500)", ""): (
        "Heat's own failure (RemoteError from the engine), not a verdict on the template"
    ),
}


def reason_for(cause: str, feature: str) -> str | None:
    for (c, f), why in KNOWN.items():
        if cause.startswith(c) and feature.startswith(f):
            return why
    return None
