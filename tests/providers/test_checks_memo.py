"""The property checks' memo (``hotc.providers.checks``): properties of a shape already checked clean are not
checked again, and the answer is the same as without the memo, for every corpus template and for crafted
templates where only a value's exact type, a float's sign or a list's order tells two resources apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hotc.errors import Diagnostic
from hotc.parser.api import LoadedStack, Resource, TypeChecks, load_stack
from hotc.providers import checks as C
from tests.corpus.corpus import WHAT, find_corpus, read_verdicts
from tests.inputs import needs_input

CORPUS = find_corpus(Path(__file__))


def _unmemoized() -> TypeChecks:
    """type_checks() whose property check has no memo (every resource checked)."""
    base = C.type_checks()

    def properties(type_name: str, res: Resource, strict: bool) -> Any:
        return C._properties(type_name, res, strict)

    return TypeChecks(properties=properties, attributes=base.attributes, known=base.known)


def _load(
    path: Path, envs: list[str], checks: TypeChecks, strict: bool
) -> tuple[LoadedStack | None, list[Diagnostic]]:
    return load_stack(str(path), envs, {}, {}, require_values=strict, checks=checks, max_size=None)


def _shown(diags: list[Diagnostic]) -> list[tuple[str, str, Any, str | None]]:
    return [(d.severity.value, d.message, d.pos, d.code) for d in diags]


@needs_input(CORPUS, WHAT)
def test_memo_agrees_on_the_corpus() -> None:
    assert CORPUS is not None
    rows = read_verdicts(CORPUS)
    assert len(rows) > 100
    for strict in (False, True):
        memo = C.type_checks()  # one memo across the whole corpus: shapes repeat between templates too
        for row in rows:
            envs = [str(CORPUS / e) for e in row.env_files]
            _, want = _load(CORPUS / row.path, envs, _unmemoized(), strict)
            _, got = _load(CORPUS / row.path, envs, memo, strict)
            assert _shown(got) == _shown(want), row.path


_TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  p: {type: string, default: x}
resources:
"""


def _template(tmp_path: Path, bodies: list[str]) -> Path:
    text = _TEMPLATE + "".join(f"  r{i}:\n    {body}\n" for i, body in enumerate(bodies))
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return path


# pairs of resources where the first is clean and the second is not: a memo that confused their shapes would
# miss the second one's problem
_PAIRS = [
    # True and 1 are equal in Python (and hash alike); 1 is not a boolean
    (
        "{type: OS::Neutron::Net, properties: {admin_state_up: true}}",
        "{type: OS::Neutron::Net, properties: {admin_state_up: 1}}",
    ),
    # the same values under another key
    (
        "{type: OS::Heat::RandomString, properties: {length: 8}}",
        "{type: OS::Heat::RandomString, properties: {lenght: 8}}",
    ),
    # one more list item: server networks' items are maps
    (
        "{type: OS::Nova::Server, properties: {image: i, flavor: f, networks: [{network: n}]}}",
        "{type: OS::Nova::Server, properties: {image: i, flavor: f, networks: [{network: n}, nope]}}",
    ),
    # a call in one, a literal of the wrong type in the other
    (
        "{type: OS::Cinder::Volume, properties: {size: {get_param: p}}}",
        "{type: OS::Cinder::Volume, properties: {size: [1]}}",
    ),
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(("clean", "other"), _PAIRS)
def test_memo_tells_shapes_apart(tmp_path: Path, clean: str, other: str, strict: bool) -> None:
    path = _template(tmp_path, [clean, other, clean, other])
    _, want = _load(path, [], _unmemoized(), strict)
    _, got = _load(path, [], C.type_checks(), strict)
    assert _shown(got) == _shown(want)
    # the problem is the second resource's and the fourth's (lines 8 and 12), each at its own position
    assert {d.pos.line for d in got if d.pos is not None} == {8, 12}


def test_shape_ignores_positions_and_what_calls_hold(tmp_path: Path) -> None:
    path = _template(
        tmp_path,
        [
            "{type: OS::Cinder::Volume, properties: {size: 1, name: {get_param: p}}}",
            "{type: OS::Cinder::Volume, properties: {size: 1, name: {list_join: ['-', [a, b]]}}}",
            "{type: OS::Cinder::Volume, properties: {size: 1.0, name: {get_param: p}}}",
            "{type: OS::Cinder::Volume, properties: {size: true, name: {get_param: p}}}",
        ],
    )
    stack, _ = _load(path, [], C.type_checks(), False)
    assert stack is not None
    shapes = [C.shape(stack.template.resources[f"r{i}"].properties) for i in range(4)]
    assert shapes[0] == shapes[1]  # positions differ, and what the call holds
    assert len({shapes[0], shapes[2], shapes[3]}) == 3  # 1, 1.0 and True are three shapes
    assert C.shape(None) is not None


def test_clean_shapes_are_checked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = C.validate_property_exprs

    def counting(rtype: Any, props: Any, pos: Any, *, strict: bool = True) -> list[Diagnostic]:
        calls.append(rtype.name)
        return real(rtype, props, pos, strict=strict)

    monkeypatch.setattr(C, "validate_property_exprs", counting)
    clean = "{type: OS::Cinder::Volume, properties: {size: 1, name: {get_param: p}}}"
    bad = "{type: OS::Cinder::Volume, properties: {size: 1, nme: x}}"
    path = _template(tmp_path, [clean, clean, bad, clean, bad])
    _, diags = _load(path, [], C.type_checks(), False)
    # the clean shape once; the shape with a problem every time (only clean answers are remembered)
    assert len(calls) == 3
    assert sum(1 for d in diags if d.code == "unknown-property") == 2
