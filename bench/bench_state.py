"""Benchmark: lock + read + write round trips per second, local file backend and S3 (moto_server on 127.0.0.1).

    python bench/bench_state.py [--iterations N] [--resources R]

Each round trip takes the stack's lock, reads the state, writes a changed state (a compare-and-swap write) and
releases the lock -- what one small ``hotc apply`` does at least once. It also times repeated writes under one
lock (what the applier does after every resource action) and event appends.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hotc.state import Event, OutputState, ResourceState, StackState  # noqa: E402
from hotc.state.backend import BaseBackend  # noqa: E402
from hotc.state.local import LocalBackend  # noqa: E402
from hotc.state.s3 import S3Backend  # noqa: E402


def sample_state(resources: int) -> StackState:
    st = StackState.new("bench")
    for i in range(resources):
        st = st.with_resource(
            ResourceState(
                address=f"server[{i}]",
                type="OS::Nova::Server",
                physical_id=str(uuid.uuid4()),
                status="CREATE_COMPLETE",
                properties={
                    "flavor": "m1.small",
                    "image": "cirros",
                    "networks": [{"network": "net"}],
                    "metadata": {"index": i},
                },
                attributes={"first_address": f"10.0.{i // 250}.{i % 250}"},
                dependencies=("net",),
            )
        )
    return st


def bump(st: StackState, n: int) -> StackState:
    return replace(st, outputs={"n": OutputState(value=n)})


def run(name: str, backend: BaseBackend, iterations: int, resources: int) -> None:
    stack = f"bench-{uuid.uuid4().hex[:8]}"
    seed = replace(sample_state(resources), stack_name=stack)
    with backend.lock(stack, "seed") as lk:
        backend.write(stack, seed, lk)
    t0 = time.perf_counter()
    for i in range(iterations):
        with backend.lock(stack, "bench") as lk:
            st, _ = backend.read(stack)
            assert st is not None
            backend.write(stack, bump(st, i), lk)
    dt = time.perf_counter() - t0
    print(
        f"{name:<28} lock+read+write+unlock: {iterations / dt:8.1f} round trips/s  ({dt / iterations * 1000:6.2f} ms each)"
    )
    with backend.lock(stack, "bench") as lk:
        st, _ = backend.read(stack)
        assert st is not None
        t0 = time.perf_counter()
        for i in range(iterations):
            st = backend.write(stack, bump(st, -i - 1), lk)
        dt = time.perf_counter() - t0
    print(
        f"{name:<28} writes under one lock:  {iterations / dt:8.1f} writes/s       ({dt / iterations * 1000:6.2f} ms each)"
    )
    t0 = time.perf_counter()
    for i in range(iterations):
        backend.append_events(stack, [Event.now(f"server[{i}]", "OS::Nova::Server", "CREATE_COMPLETE")])
    dt = time.perf_counter() - t0
    print(
        f"{name:<28} append_events:          {iterations / dt:8.1f} appends/s      ({dt / iterations * 1000:6.2f} ms each)"
    )


def start_moto() -> tuple[subprocess.Popen[bytes], str]:
    exe = Path(sys.executable).parent / "moto_server"
    exe_s = str(exe) if exe.exists() else shutil.which("moto_server")
    if not exe_s:
        raise SystemExit("moto_server not found (pip install 'moto[server]')")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [exe_s, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(endpoint, timeout=1)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit("moto_server did not start") from None
            time.sleep(0.1)
    return proc, endpoint


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--resources", type=int, default=50, help="resources in the benchmark state")
    args = ap.parse_args()
    print(f"state with {args.resources} resources, {args.iterations} iterations per figure")
    with tempfile.TemporaryDirectory() as d:
        run("local (fsync)", LocalBackend(Path(d) / ".hotc"), args.iterations, args.resources)
    for k, v in {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        os.environ.setdefault(k, v)
    proc, endpoint = start_moto()
    try:
        b = S3Backend(f"hotc-bench-{uuid.uuid4().hex[:8]}", "bench", endpoint_url=endpoint, path_style=True)
        b.client.create_bucket(Bucket=b.bucket)
        run("s3 (moto_server, 127.0.0.1)", b, args.iterations, args.resources)
        b.client.put_bucket_versioning(Bucket=b.bucket, VersioningConfiguration={"Status": "Enabled"})
        run("s3 versioned bucket", b, args.iterations, args.resources)
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
