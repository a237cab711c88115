"""``hotc validate`` as its own process ends once its output is written, without the interpreter's teardown
(:mod:`hotc.cli.process_end`), with the same output and exit status as when called from Python."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.planner.test_process_end import WRAPPER, _run

VALID = """\
heat_template_version: 2018-08-31
parameters:
  n: {type: string, default: x}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: n}}
outputs:
  id: {value: {get_attr: [net, name]}}
"""
INVALID = VALID.replace("get_param: n", "get_param: missing").replace("name]", "nope]")


@pytest.mark.parametrize(
    ("text", "args", "code"),
    [
        (VALID, (), 0),
        (VALID, ("--format", "json"), 0),
        (VALID, ("--format", "sarif"), 0),
        (INVALID, (), 1),
        (INVALID, ("--format", "json"), 1),
    ],
)
def test_own_process_ends_without_teardown_and_writes_the_same(
    tmp_path: Path, text: str, args: tuple[str, ...], code: int
) -> None:
    (tmp_path / "t.yaml").write_text(text)
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    argv = ("validate", "-t", "t.yaml", *args)
    rc, out, err, ran, freed = _run(tmp_path, False, *argv)
    assert (rc, ran, freed) == (code, True, True), err  # a caller's process: the usual way out
    assert out.strip()
    rc2, out2, err2, ran2, freed2 = _run(tmp_path, True, *argv)
    assert (rc2, out2, err2) == (rc, out, err)
    assert ran2  # the exit handlers the process registered still run
    assert not freed2  # ... but the interpreter did not tear the heap down object by object


def test_a_template_that_cannot_be_read_says_so_either_way(tmp_path: Path) -> None:
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    argv = ("validate", "-t", "absent.yaml")
    rc, out, err, _ran, _freed = _run(tmp_path, False, *argv)
    assert rc == 1 and "absent.yaml" in out
    assert _run(tmp_path, True, *argv)[:4] == (rc, out, err, True)
