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
    ("validate: Heat rejects, hotc accepts", "env:"): "open: parameter_merge_strategies conflicts and shapes",
    ("create: Heat fails, hotc creates", "ResourceGroup"): (
        "open: Heat builds the group's nested template with an output per attribute the parent asks for, "
        "and a member attribute that does not exist fails the create"
    ),
    (
        "output: values differ",
        "nested:",
    ): "open: get_resource of a template resource is its stack's ARN in Heat",
    ("output: values differ", "ResourceGroup"): "open: refs of template-resource members, member names",
    (
        "output: Heat errors, hotc has a value",
        "nested:",
    ): "open: get_attr of OS::stack_id on a template resource",
    ("output: values differ", "map_replace"): "open: map_replace with integer keys",
    ("validate: Heat rejects, hotc accepts", "conditions"): (
        "open: an output without a condition naming a resource whose condition is false"
    ),
    ("validate: hotc rejects, Heat accepts", "list_join"): "open: list_join element types are result-time",
}


def reason_for(cause: str, feature: str) -> str | None:
    for (c, f), why in KNOWN.items():
        if cause.startswith(c) and feature.startswith(f):
            return why
    return None
