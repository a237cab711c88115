"""State bytes written by an apply whose ResourceGroup members each read a large file (get_file).

A ResourceGroup of N members (default 100) whose resource_def is a template resource (a nested stack) holding
an OS::Heat::Value whose value is ``{get_file: big.txt}`` (default 500 KB): every member records the
file's text among its resolved properties, and every state write of the apply carries the whole document.
Prints the number of state writes, the bytes they wrote, the final state's size and the wall time of the
apply (a local backend in a temporary directory; no cloud).

    PYTHONPATH=. python bench/bench_big_file_group.py [--members N] [--kb K]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotc.state.backend import BaseBackend  # noqa: E402
from tests.clirun import run_hotc  # noqa: E402

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {members}
      resource_def:
        type: member.yaml
"""
MEMBER = """heat_template_version: 2018-08-31
resources:
  blob:
    type: OS::Heat::Value
    properties:
      value: {get_file: big.txt}
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=100)
    ap.add_argument("--kb", type=int, default=500)
    args = ap.parse_args()
    written: list[int] = []
    put = BaseBackend.write

    def counting(self: BaseBackend, stack: str, state: object, lock: object, **kw: object) -> object:
        from hotc.state import codec

        written.append(len(codec.dumps(state, self.key)))  # type: ignore[arg-type, attr-defined]
        return put(self, stack, state, lock, **kw)  # type: ignore[arg-type]

    BaseBackend.write = counting  # type: ignore[method-assign, assignment]
    with tempfile.TemporaryDirectory(prefix="hotc-bench-") as tmp:
        work = Path(tmp)
        (work / "group.yaml").write_text(TEMPLATE.format(members=args.members))
        (work / "member.yaml").write_text(MEMBER)
        line = "x" * 99 + "\n"
        (work / "big.txt").write_text(line * (args.kb * 1024 // len(line)))
        start = time.perf_counter()
        res = run_hotc(work, "apply", "-t", "group.yaml", "--auto-approve")
        wall = time.perf_counter() - start
        if res.returncode != 0:
            sys.exit(res.stderr)
        size = os.path.getsize(work / ".hotc" / "group.json")
    print(
        f"{args.members} members x {args.kb} KB: {len(written)} state writes, "
        f"{sum(written) / 1e6:.1f} MB written, final state {size / 1e6:.2f} MB, apply {wall:.1f} s"
    )


if __name__ == "__main__":
    main()
