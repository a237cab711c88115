"""The inputs the issue's fuzzer found crashing or hanging hotc, each run through ``hotc validate`` and
``hotc plan`` in a bounded worker (CPU alarm, address-space limit, wall backstop: a hang or a blow-up fails
the test instead of stalling it). Each must end with a clear, positioned error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.fuzz.runner import Pool

HEAD = "heat_template_version: 2018-08-31\n"


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    with Pool(1, env={"HOTC_FUZZ_WALL": "20"}) as p:
        yield p


def _run(pool: Pool, mode: str, template: str, **files: bytes) -> dict[str, Any]:
    res = pool.run_case(mode, {"t.yaml": template.encode("utf-8", "surrogatepass"), **files})
    assert res["kind"] == "ok", (res["kind"], res.get("detail"), res.get("output"))
    assert res["exit"] == 1, res
    return res


def _value(expr: str) -> str:
    return HEAD + f"resources:\n  a:\n    type: OS::Heat::Value\n    properties:\n      value: {expr}\n"


@pytest.mark.parametrize("mode", ["validate", "plan"])
@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("/dev/zero", "it is a character device, not a regular file"),
        ("zero", "it is a character device, not a regular file"),  # a symlink to /dev/zero
        ("fifo", "it is a FIFO (named pipe), not a regular file"),
        ("dir", "it is a directory"),
        ('"a\\0b"', "the path contains a NUL byte"),
        ("big.txt", "exceeds the maximum allowed size (524288 bytes)"),
    ],
    ids=["dev-zero", "symlink-to-dev-zero", "fifo", "directory", "nul-byte", "too-large"],
)
def test_get_file_reads_regular_files_only_and_checks_the_size_first(
    pool: Pool, mode: str, target: str, says: str
) -> None:
    res = _run(pool, mode, _value(f"{{get_file: {target}}}"), **{"big.txt": b"x" * (600 * 1024)})
    assert "t.yaml:6:14: error: cannot read get_file target" in res["output"] and says in res["output"]


@pytest.mark.parametrize("mode", ["validate", "plan"])
def test_nul_byte_in_a_resource_type(pool: Pool, mode: str) -> None:
    res = _run(pool, mode, HEAD + 'resources:\n  a:\n    type: "nested\\0.yaml"\n')
    assert "t.yaml:4:11: error:" in res["output"] and "NUL byte" in res["output"]
    assert "embedded null byte" not in res["output"]


BOMB = (
    HEAD
    + "parameters:\n  p:\n    type: json\n    default:\n"
    + "      a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"      a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9))
    + "resources:\n  v:\n    type: OS::Heat::Value\n    properties: {value: *a8}\n"
)


@pytest.mark.parametrize("mode", ["validate", "plan"])
def test_yaml_alias_bomb_is_refused_naming_the_file(pool: Pool, mode: str) -> None:
    assert len(BOMB) < 1000
    res = _run(pool, mode, BOMB)
    assert (
        "t.yaml:" in res["output"]
        and "YAML aliases (*name) expand this document to more than" in res["output"]
    )


@pytest.mark.parametrize("mode", ["validate", "plan"])
def test_recursive_yaml_alias_is_refused(pool: Pool, mode: str) -> None:
    res = _run(pool, mode, HEAD + "resources: &r {x: *r}\n")
    assert "t.yaml:" in res["output"] and "error:" in res["output"]


@pytest.mark.parametrize("mode", ["validate", "plan"])
def test_deeply_nested_json_is_refused(pool: Pool, mode: str) -> None:
    res = _run(pool, mode, '{"heat_template_version": "2018-08-31", "x": ' + "[" * 20000 + "]" * 20000 + "}")
    assert "t.yaml:1:1: error:" in res["output"]


@pytest.mark.parametrize("mode", ["validate", "plan"])
def test_a_mapping_in_parameter_groups(pool: Pool, mode: str) -> None:
    t = (
        HEAD
        + "parameters:\n  p: {type: string, default: x}\nparameter_groups:\n- label: g\n  parameters:\n  - {p: 1}\n"
    )
    res = _run(pool, mode, t + "resources: {}\n")
    assert (
        "t.yaml:7:5: error: Parameter Groups error: parameter_groups.g: The grouped parameter"
        in res["output"]
    )
    assert "does not reference a valid parameter" in res["output"]


CHILD = b"heat_template_version: 2018-08-31\nparameters:\n  label: {type: string}\nresources: {}\n"


@pytest.mark.parametrize(
    ("template", "says"),
    [
        (
            HEAD
            + "resources:\n  a:\n    type: OS::Heat::Value\n    properties: {value: {str_split: [',', 3]}}\n",
            "error: t.yaml:5:25: the template cannot be evaluated for planning",
        ),
        (
            HEAD
            + "parameters:\n  d: {type: json, default: {}}\nresources:\n  grp:\n    type: OS::Heat::ResourceGroup\n"
            "    properties: {count: 2, resource_def: {get_param: d}}\n",
            # Heat's property validation on the resolved value, at the function that gives it
            "t.yaml:7:42: error: grp: OS::Heat::ResourceGroup: required property resource_def.type is missing",
        ),
        (
            HEAD + "parameters:\n  p: {type: json, default: {}}\nresources:\n  c:\n    type: child.yaml\n"
            "    properties: {get_param: p}\n",
            "error: child.yaml:3:3: nested stack c: parameter 'label' has no value",
        ),
        (
            HEAD + "resources:\n  grp:\n    type: OS::Heat::ResourceGroup\n"
            "    properties: {count: 100000000, resource_def: {type: OS::Heat::None}}\n",
            "error: t.yaml:3:3: grp: count 100000000 is more members than hotc plans for one group",
        ),
    ],
    ids=["evaluation", "resource_def", "nested-parameter", "huge-group"],
)
def test_plan_only_errors_carry_a_position(pool: Pool, template: str, says: str) -> None:
    res = _run(pool, "plan", template, **{"child.yaml": CHILD})
    assert says in res["output"], res["output"]
