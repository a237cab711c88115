"""Benchmark: ``hotc drift --all`` over many stacks on S3 (moto_server on 127.0.0.1), offline.

For each stack count (50, 100 and 200 by default) the benchmark writes that many stacks of Heat-native types
(``OS::Heat::TestResource`` and ``OS::Heat::RandomString``, read through their own drivers, no cloud) under one
S3 prefix, then scans them all with the drift operation (:func:`hotc.ops.drift.run` with ``all_stacks``, as
``hotc drift --all`` does, a few stacks at a time) and prints the state reads per stack (S3 GETs of state
documents, counted at the backend) and the time per stack: constant reads and time per stack mean the scan
grows linearly with the stack count.

    python bench/bench_drift.py [--counts 50,100,200] [--resources 10] [--parallelism 4]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_state import start_moto  # noqa: E402
from hotc.ops import drift as op  # noqa: E402
from hotc.providers.drivers import driver_for  # noqa: E402
from hotc.state import ResourceState, StackState  # noqa: E402
from hotc.state.s3 import S3Backend  # noqa: E402


def stack_state(name: str, resources: int) -> StackState:
    st = StackState.new(name)
    for i in range(resources):
        if i % 2:
            rs = ResourceState(
                f"r{i}",
                "OS::Heat::TestResource",
                f"{name}-r{i}",
                "CREATE_COMPLETE",
                properties={"value": f"v{i}"},
            )
        else:
            rs = ResourceState(
                f"s{i}",
                "OS::Heat::RandomString",
                f"{name}-s{i}",
                "CREATE_COMPLETE",
                properties={"length": 16},
                attributes={"value": "x" * 16},
            )
        st = st.with_resource(rs)
    return st


def no_cloud() -> Any:
    raise RuntimeError("the benchmark's stacks hold Heat-native types only: no cloud is needed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="50,100,200", help="stack counts, comma-separated")
    ap.add_argument("--resources", type=int, default=10, help="resources per stack")
    ap.add_argument("--parallelism", type=int, default=op.DEFAULT_STACK_PARALLELISM, help="stacks at a time")
    args = ap.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    for k, v in {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        os.environ.setdefault(k, v)
    proc, endpoint = start_moto()
    os.environ["AWS_ENDPOINT_URL_S3"] = endpoint
    bucket = f"hotc-bench-{uuid.uuid4().hex[:8]}"
    reads: Counter[str] = Counter()
    guard = threading.Lock()
    real_get = S3Backend._get

    def counted_get(self: S3Backend, stack: str) -> Any:
        with guard:
            reads[stack] += 1
        return real_get(self, stack)

    try:
        setup = S3Backend(bucket, "setup", endpoint_url=endpoint, path_style=True)
        setup.client.create_bucket(Bucket=bucket)
        print(
            f"drift --all on S3 (moto_server, 127.0.0.1): {args.resources} Heat-native resources per stack, "
            f"{args.parallelism} stacks at a time"
        )
        print(f"{'stacks':>7} {'state reads':>12} {'reads/stack':>12} {'seconds':>9} {'ms/stack':>9}  exit")
        for n in counts:
            prefix = f"n{n}"
            b = S3Backend(bucket, prefix, endpoint_url=endpoint, path_style=True)
            for i in range(n):
                name = f"stack{i:04d}"
                with b.lock(name, "bench") as lk:
                    b.write(name, stack_state(name, args.resources), lk)
            reads.clear()
            S3Backend._get = counted_get  # type: ignore[method-assign]
            try:
                t0 = time.perf_counter()
                result = op.run(
                    op.DriftRequest(
                        all_stacks=True, backend=f"s3://{bucket}/{prefix}", stack_parallelism=args.parallelism
                    ),
                    cloud=no_cloud,
                    drivers=driver_for,
                )
                dt = time.perf_counter() - t0
            finally:
                S3Backend._get = real_get  # type: ignore[method-assign]
            scanned = len(result.stacks)
            assert scanned == n, (scanned, n)
            total = sum(reads.values())
            print(
                f"{n:>7} {total:>12} {total / n:>12.2f} {dt:>9.2f} {dt / n * 1000:>9.1f}  {result.exit_code}"
                f"  (most reads of one stack: {max(reads.values())})"
            )
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
