"""The resolved-value checks of one plan remember what already passed (hotc.providers.validation._memo_key): a
value that differs from one seen before only in what its Unknowns wait on is not checked again; anything else
(a scalar inside, a key, the type of a scalar, which Unknowns are the same one) is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hotc.errors import HotcError
from hotc.parser.api import load_stack
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.providers.checks import type_checks
from hotc.providers.validation import _memo_key
from hotc.values import Unknown

A, B = Unknown.of("a"), Unknown.of("b")


def test_values_differing_only_in_what_unknowns_wait_on_share_a_key() -> None:
    assert _memo_key(1, [{"port": A}]) == _memo_key(1, [{"port": B}])
    assert _memo_key(1, {"x": A, "y": B}) == _memo_key(1, {"x": B, "y": A})


def test_everything_else_tells_values_apart() -> None:
    key = _memo_key
    assert key(1, {"x": A, "y": A}) != key(1, {"x": A, "y": B})  # the same Unknown twice, or two
    assert key(1, [1]) != key(1, [True]) != key(1, [1.0])
    assert key(1, {1: "v"}) != key(1, {True: "v"})
    assert key(1, {"a": 1}) != key(1, {"b": 1})
    assert key(1, [A, 1]) != key(1, [1, A])
    assert key(1, [1]) != key(2, [1])  # another schema
    assert key(1, ["x"]) != key(1, ("x",))
    assert key(1, [object()]) is None  # not plain data: checked every time


SERVERS = """heat_template_version: 2021-04-16
parameters:
  none_ip: {type: string, default: ""}
  ip: {type: string, default: 10.0.0.5}
resources:
  net: {type: OS::Neutron::Net}
"""


def _servers(n: int, bad: int | None) -> str:
    text = SERVERS
    for i in range(n):
        param = "ip" if i == bad else "none_ip"
        text += f"""  p{i}: {{type: OS::Neutron::Port, properties: {{network: {{get_resource: net}}}}}}
  s{i}:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      networks: [{{port: port-id, fixed_ip: {{get_param: {param}}}}}]
      metadata: {{peer: {{get_attr: [p{i}, fixed_ips]}}}}
"""
    return text


def _plan(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    loaded, diags = load_stack(str(path), [], {}, {}, require_values=True, checks=type_checks())
    assert loaded is not None, diags
    make_plan(build_desired(loaded, "stack", None), None, PlanOptions())


def test_many_resources_of_one_shape_plan(tmp_path: Path) -> None:
    _plan(tmp_path, _servers(5, None))


@pytest.mark.parametrize("bad", [0, 3])
def test_a_bad_value_after_many_good_ones_of_the_same_shape_is_refused(tmp_path: Path, bad: int) -> None:
    with pytest.raises(HotcError) as caught:
        _plan(tmp_path, _servers(5, bad))
    lines = [d.message for d in caught.value.diagnostics]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"s{bad}: ") and "fixed_ip and port cannot both be given" in lines[0], lines


def test_a_resource_whose_values_passed_before_is_not_walked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo's whole-resource entry: the same values (Unknowns aside) as a resource that passed every check
    are not walked again (neither property by property nor by the cross-property rules: one memo key is made
    of the whole values); a value that differs anywhere is walked, and a bad one refused."""
    from hotc.providers import validation
    from hotc.providers.registry import get_schema

    server = get_schema("OS::Nova::Server")
    assert server is not None
    walked: list[str] = []
    keys: list[Any] = []
    real_plain, real_key = validation._Checker._check_plain, validation._memo_key

    def counting(self: Any, prop: Any, value: Any, pos: Any, where: str) -> None:
        walked.append(where)
        real_plain(self, prop, value, pos, where)

    def key(head: Any, value: Any) -> Any:
        keys.append(head)
        return real_key(head, value)

    monkeypatch.setattr(validation._Checker, "_check_plain", counting)
    monkeypatch.setattr(validation, "_memo_key", key)
    memo: dict[Any, Any] = {}

    def check(values: dict[str, Any]) -> list[str]:
        walked.clear()
        keys.clear()
        diags = validation.validate_resolved_values(server, values, list(values), lambda _p: None, memo=memo)
        return [d.message for d in diags]

    good = {"image": "cirros", "flavor": "m1.small", "networks": [{"port": A}], "metadata": {"peer": A}}
    assert check(good) == [] and walked  # the first one is walked
    assert check({**good, "networks": [{"port": B}], "metadata": {"peer": B}}) == []
    assert walked == [] and len(keys) == 1  # the whole values' key, and nothing else
    bad = {**good, "networks": [{"port": "port-id", "fixed_ip": "10.0.0.5"}]}
    assert any("fixed_ip and port cannot both be given" in m for m in check(bad)) and walked
    assert any(
        "fixed_ip and port cannot both be given" in m for m in check(bad)
    )  # refused again, not memoized
    assert (
        check({**good, "flavor": ["m1.small"]}) and walked
    )  # another value in one property: walked, refused
    assert check({**good, "metadata": {"peer": A, "x": 1}}) == [] and walked  # a key more: walked
