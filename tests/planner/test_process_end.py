"""``hotc plan`` as its own process ends once everything is written, without the interpreter's teardown
(hotc.cli.process_end); called from Python it returns as before. Both write the same output, exit codes and
plan file, and the process's exit handlers run in both."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  n: {type: string, default: x}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: n}}
  sub:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.0.0.0/24}
"""

# run as a program: an exit handler and an object freed only by the interpreter's teardown each leave a mark;
# OWN=1 calls main() as the console script does, OWN=0 as a caller does (main(argv))
WRAPPER = """\
import atexit, os, sys
from pathlib import Path

class Teardown:
    def __del__(self):
        Path("teardown.mark").write_text("freed")

keep = Teardown()
atexit.register(lambda: Path("atexit.mark").write_text("ran"))
from hotc.cli.app import main
args = sys.argv[2:]
if sys.argv[1] == "1":
    sys.argv = ["hotc", *args]
    main()
else:
    main(args)
"""


def _run(tmp: Path, own: bool, *args: str) -> tuple[int, str, str, bool, bool]:
    for mark in ("teardown.mark", "atexit.mark"):
        (tmp / mark).unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, str(tmp / "wrapper.py"), "1" if own else "0", *args],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return (
        proc.returncode,
        proc.stdout,
        proc.stderr,
        (tmp / "atexit.mark").exists(),
        (tmp / "teardown.mark").exists(),
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ((), 0),
        (("--detailed-exitcode", "-o", "p.plan"), 2),
        (("--format", "json"), 0),
        (("--deny", "create:OS::Neutron::Subnet"), 3),
    ],
)
def test_own_process_ends_without_teardown_and_writes_the_same(
    tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    argv = ("plan", "-t", "t.yaml", *args)
    rc, out, err, ran, freed = _run(tmp_path, False, *argv)
    saved = (tmp_path / "p.plan").read_text() if "-o" in args else None
    assert (rc, ran, freed) == (code, True, True), err  # a caller's process: the usual way out
    assert "Plan for stack" in out or '"resource_changes"' in out
    rc2, out2, err2, ran2, freed2 = _run(tmp_path, True, *argv)
    assert (rc2, out2, err2) == (rc, out, err)
    assert ran2  # the exit handlers the process registered still run
    assert not freed2  # ... but the interpreter did not tear the heap down object by object
    if saved is not None:
        shown = subprocess.run(
            [sys.executable, "-m", "hotc", "show", "p.plan"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert shown.returncode == 0, shown.stderr
        assert "to create" in shown.stdout


def test_an_error_still_ends_the_usual_way(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("heat_template_version: 2018-08-31\nresources:\n  a: {type: [x]}\n")
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    rc, _out, err, ran, freed = _run(tmp_path, True, "plan", "-t", "t.yaml")
    assert rc == 1 and "t.yaml:3" in err
    assert ran and freed
