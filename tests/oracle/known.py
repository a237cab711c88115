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
        "Heat's own failure (a RemoteError from its engine), not a verdict on the template: on the loaded test "
        "machine the engine's RPC fails now and then; the first refresh's four such answers, asked again, were "
        "each an ordinary answer that hotc matched, and the refresh asks such cases again"
    ),
}


#: single cases whose disagreement was looked into and is Heat's own doing: case key -> reason
KNOWN_CASES: dict[str, str] = {
    "9d4f2f20ab91720edf75": (
        "case 3527, yaql $.data.m.keys() of {a: 1, b: 2}: yaql's keys() is the map's KeysView, a set, so Heat's "
        "list is in the string-hash order of the engine process that answered (PYTHONHASHSEED): recorded "
        "['b', 'a']; asked again, Heat answered ['a', 'b'] twice. hotc keeps the map's order on purpose (its "
        "answers must not depend on the hash seed, test_hotc_answers_do_not_depend_on_the_hash_seed)"
    ),
}


def reason_for(cause: str, feature: str, case_key: str = "") -> str | None:
    """The stated reason of a disagreement (None: it has none, which the CI test fails on)."""
    if case_key in KNOWN_CASES:
        return KNOWN_CASES[case_key]
    for (c, f), why in KNOWN.items():
        if cause.startswith(c) and feature.startswith(f):
            return why
    return None
