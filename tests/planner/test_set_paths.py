"""Paths of changes inside lists Heat treats as sets: never an index that names different items on the two sides."""

from __future__ import annotations

from hotc.planner.diff import detail_paths
from hotc.providers.registry import get_schema

SG = get_schema("OS::Neutron::SecurityGroup")


def rule(port: int) -> dict[str, object]:
    return {"protocol": "tcp", "port_range_min": port, "port_range_max": port}


def test_reordered_set_with_one_changed_item_names_the_whole_set() -> None:
    before = {"rules": [rule(80), rule(22)]}
    after = {"rules": [rule(22), rule(8080)]}
    assert detail_paths(SG, before, after, ["rules"]) == ["rules"]


def test_item_changed_in_place_names_its_fields() -> None:
    before = {"rules": [rule(22), rule(80)]}
    after = {"rules": [rule(22), rule(8080)]}
    assert detail_paths(SG, before, after, ["rules"]) == [
        "rules[1].port_range_max",
        "rules[1].port_range_min",
    ]


def test_added_item_names_the_whole_set() -> None:
    assert detail_paths(SG, {"rules": [rule(22)]}, {"rules": [rule(22), rule(80)]}, ["rules"]) == ["rules"]
