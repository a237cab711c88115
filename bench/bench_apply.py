"""Apply wall time against the critical-path lower bound.

A fake provider sleeps a fixed, per-resource latency for each create (tens to hundreds of milliseconds:
shorter than most real cloud calls, so hotc's own overhead shows); graphs of 100-1,000 resources with
different depths and widths are applied from an empty state, with parallelism 10 and with parallelism equal
to the graph's width ("enough"). The lower bound of a run is

    max(longest dependency chain of latencies,  total latency / parallelism)

and the figure printed is wall / bound (1.00 is perfect; the aim is <= 1.05 with enough parallelism).
State writes go through the real group-commit state keeper, to a memory sink: this measures the scheduler.
``--backend local`` writes them to a local backend in a temporary directory instead, which measures the
state store too: there every create waits for two state writes (CREATE_IN_PROGRESS before the cloud call,
the physical id before it returns) and the completion write, and a write of a 1,000-resource state costs
~20 ms (mostly the fsyncs of the file and its directory; the encoder re-encodes only the resources that
changed), so the deep graphs are then partly bound by the state store. ``--backend s3`` does the same against
an S3 backend on a moto_server started on 127.0.0.1 (bench_state's helper).

    PYTHONPATH=. python bench/bench_apply.py [--quick] [--backend memory|local|s3]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hotc.apply.executor import ExecOptions, execute  # noqa: E402
from hotc.state.document import StackState  # noqa: E402
from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, create_plan  # noqa: E402


@dataclass(frozen=True)
class Shape:
    name: str
    n: int
    depth: int  # number of layers
    fan_in: int  # dependencies per resource (from the previous layers)
    latency: tuple[float, float] = (0.02, 0.12)  # seconds per create, uniform in this range


def make_graph(shape: Shape, rng: random.Random) -> tuple[list[FakeResource], dict[str, float]]:
    layers: list[list[str]] = [[] for _ in range(shape.depth)]
    for i in range(shape.n):
        layers[i % shape.depth].append(f"r{i}")
    res: list[FakeResource] = []
    latency: dict[str, float] = {}
    for li, layer in enumerate(layers):
        for addr in layer:
            deps: tuple[str, ...] = ()
            if li > 0:
                pool = [a for lay in layers[max(0, li - 3) : li] for a in lay]
                deps = tuple(
                    sorted(set(rng.sample(pool, min(shape.fan_in, len(pool)))) | {rng.choice(layers[li - 1])})
                )
            res.append(
                FakeResource(
                    addr,
                    depends_on=deps,
                    props=lambda r, a=addr, d=deps: {"name": a, "deps": [r.resource_id(x) for x in d]},
                )
            )
            latency[addr] = rng.uniform(*shape.latency)
    return res, latency


def lower_bound(res: list[FakeResource], latency: dict[str, float], parallelism: int) -> tuple[float, float]:
    finish: dict[str, float] = {}
    for r in res:  # layers are in order, so dependencies come first
        finish[r.address] = latency[r.address] + max((finish[d] for d in r.depends_on), default=0.0)
    cp = max(finish.values())
    return cp, max(cp, sum(latency.values()) / parallelism)


class LocalSink:
    def __init__(self, root: Path, stack: str, backend: Any = None) -> None:
        from hotc.state import backend_from_config

        self.backend = backend if backend is not None else backend_from_config(str(root), root)
        self.stack = stack
        self._cm = self.backend.lock(stack, "apply", timeout=5)
        self.lock = self._cm.__enter__()

    def write(self, state: StackState) -> StackState:
        return self.backend.write(self.stack, state, self.lock)

    def append_events(self, events: list) -> None:
        self.backend.append_events(self.stack, events)

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


_S3: dict[str, Any] = {}


def s3_backend() -> Any:
    """An S3 backend on a fresh bucket of a moto_server started once for the whole run."""
    import atexit
    import os
    import uuid

    from bench_state import start_moto  # type: ignore[import-not-found]

    from hotc.state.s3 import S3Backend

    if "endpoint" not in _S3:
        for k, v in {
            "AWS_ACCESS_KEY_ID": "bench",
            "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_DEFAULT_REGION": "us-east-1",
        }.items():
            os.environ.setdefault(k, v)
        proc, _S3["endpoint"] = start_moto()
        atexit.register(lambda: (proc.terminate(), proc.wait(10)))
    b = S3Backend(
        f"hotc-bench-{uuid.uuid4().hex[:8]}", "bench", endpoint_url=_S3["endpoint"], path_style=True
    )
    b.client.create_bucket(Bucket=b.bucket)
    return b


def run(shape: Shape, parallelism: int, backend: str, seed: int = 7) -> tuple[float, float, float, int]:
    rng = random.Random(seed)
    res, latency = make_graph(shape, rng)
    cloud = FakeCloud()
    for a, d in latency.items():
        cloud.latency[("create", a)] = d
    driver = FakeDriver(cloud)
    desired = FakeDesired(res)
    cp, bound = lower_bound(res, latency, parallelism)
    with tempfile.TemporaryDirectory() as tmp:
        sink: Any
        if backend == "local":
            sink = LocalSink(Path(tmp), "bench")
        elif backend == "s3":
            sink = LocalSink(Path(tmp), "bench", s3_backend())
        else:
            sink = MemorySink()
        t0 = time.monotonic()
        rep = execute(
            create_plan(desired),
            StackState.new("bench"),
            desired,
            lambda _t: driver,
            sink,
            ExecOptions(parallelism=parallelism),
            desired_info=desired.resources,
        )
        wall = time.monotonic() - t0
        if isinstance(sink, LocalSink):
            sink.close()
    if not rep.ok:
        raise SystemExit(f"bench apply failed: {rep.failed[:3]}")
    return wall, cp, bound, cloud.max_in_flight


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the small graphs")
    ap.add_argument("--backend", choices=("memory", "local", "s3"), default="memory")
    args = ap.parse_args()
    shapes = [
        Shape("wide-100", 100, 4, 2, (0.1, 0.5)),
        Shape("deep-100", 100, 50, 1),
        Shape("mixed-300", 300, 15, 3, (0.05, 0.2)),
        Shape("wide-1000", 1000, 5, 2, (0.2, 0.6)),
        Shape("deep-1000", 1000, 100, 2),
        Shape("mixed-1000", 1000, 25, 3, (0.05, 0.15)),
    ]
    if args.quick:
        shapes = shapes[:3]
    print(
        f"{'graph':<12} {'n':>5} {'depth':>5} {'par':>5} {'wall s':>8} {'crit s':>8} {'bound s':>8} "
        f"{'wall/bound':>10} {'max in flight':>13}"
    )
    worst = 0.0
    for shape in shapes:
        width = max(10, -(-shape.n // shape.depth))
        for parallelism in sorted({10, width} if shape.n <= 300 else {width}):
            wall, cp, bound, mif = run(shape, parallelism, args.backend)
            ratio = wall / bound
            if parallelism >= width:
                worst = max(worst, ratio)
            print(
                f"{shape.name:<12} {shape.n:>5} {shape.depth:>5} {parallelism:>5} {wall:>8.3f} {cp:>8.3f} "
                f"{bound:>8.3f} {ratio:>10.3f} {mif:>13}"
            )
    print(f"worst wall/bound with enough parallelism: {worst:.3f} (aim <= 1.05)")


if __name__ == "__main__":
    main()
