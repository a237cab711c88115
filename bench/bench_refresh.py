"""Refresh at scale against the real test cloud: HTTP calls and wall time to refresh N recorded resources.

For each N (20, 200 and 1,000 by default) the benchmark makes N cheap resources as hotc would (a third each of
networks, ports and security groups, stamped with one lineage's tags), records them in a state, and refreshes
it twice:

- ``list``: hotc's refresh (:func:`hotc.planner.refresh.refresh_resources` over a ``DriverReader``): one list
  call per type filtered by the lineage tag, in parallel across types, parallel GETs only for what the lists do
  not answer, shared look-ups;
- ``one-by-one``: one driver ``read`` (GET, plus what the read itself looks up) per resource, sequentially,
  with no shared look-ups, as hotc refreshed before.

Every HTTP request the connection makes is counted (keystoneauth's ``Session.request``); token requests are
made before the measurement. Both refreshes must give the same properties and attributes (``show``, the API's
raw form, may differ in order), and no drift. The resources are deleted
at the end (their names start with ``hotc-t-bench``, so the test cloud's janitor sweeps them if a run dies).

    OS_CLIENT_CONFIG_FILE=/opt/hotc-cloud/etc/clouds.yaml OS_CLOUD=hotc-test \\
        .venv/bin/python bench/bench_refresh.py [--sizes 20,200,1000] [--parallelism 10]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from keystoneauth1 import session as ks_session  # noqa: E402

from hotc.planner.diff import apply_defaults, changed_keys  # noqa: E402
from hotc.planner.refresh import driver_reader, refresh_resources  # noqa: E402
from hotc.providers.registry import get_schema  # noqa: E402
from hotc.state.document import ResourceState, StackState  # noqa: E402

NET, PORT, SG = "OS::Neutron::Net", "OS::Neutron::Port", "OS::Neutron::SecurityGroup"


class CallCounter:
    """Counts every HTTP request of every keystoneauth session in the process (thread-safe)."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()
        self._orig = ks_session.Session.request

    def __enter__(self) -> CallCounter:
        counter = self

        def request(sess: Any, url: str, method: str, *args: Any, **kwargs: Any) -> Any:
            with counter.lock:
                counter.count += 1
            return counter._orig(sess, url, method, *args, **kwargs)

        ks_session.Session.request = request  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        ks_session.Session.request = self._orig  # type: ignore[method-assign]


def make(conn: Any, n: int, prefix: str, net_id: str, pool: ThreadPoolExecutor) -> StackState:
    """N stamped resources (a third each of networks, ports, security groups) and the state recording them."""
    st = StackState.new(prefix)
    lineage = st.lineage

    def one(i: int) -> ResourceState:
        kind = (NET, PORT, SG)[i % 3]
        addr = f"r{i}"
        tags = [f"hotc-lineage={lineage}", f"hotc-address={addr}"]
        name = f"{prefix}-{addr}"
        if kind == NET:
            res = conn.network.create_network(name=name)
            props: dict[str, Any] = {"name": name}
        elif kind == PORT:
            res = conn.network.create_port(name=name, network_id=net_id)
            props = {"name": name, "network": net_id}
        else:
            res = conn.network.create_security_group(name=name)
            props = {"name": name}
        conn.network.set_tags(res, tags)
        return ResourceState(addr, kind, res.id, "CREATE_COMPLETE", props)

    for rs in pool.map(one, range(n)):
        st = st.with_resource(rs)
    return st


def cleanup(conn: Any, st: StackState, pool: ThreadPoolExecutor) -> None:
    def gone(rs: ResourceState) -> None:
        fn = {
            NET: conn.network.delete_network,
            PORT: conn.network.delete_port,
            SG: conn.network.delete_security_group,
        }
        fn[rs.type](rs.physical_id, ignore_missing=True)

    ports = [rs for rs in st.resources.values() if rs.type == PORT]
    list(pool.map(gone, ports))
    list(pool.map(gone, [rs for rs in st.resources.values() if rs.type != PORT]))


def _comparable(rs: ResourceState | None) -> Any:
    """Properties and attributes, without ``show`` (the API's raw form: Neutron lists a group's rules in
    another order than a GET, and leaves some fields unset in a list)."""
    if rs is None:
        return None
    return rs.properties, {k: v for k, v in rs.attributes.items() if k != "show"}


def drifted(st: StackState, refreshed: dict[str, Any]) -> list[str]:
    out = []
    for addr, live in refreshed.items():
        rs = st.resources[addr]
        rtype = get_schema(rs.type)
        if live is None or changed_keys(
            rtype, apply_defaults(rtype, rs.properties), apply_defaults(rtype, live.properties)
        ):
            out.append(addr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="20,200,1000")
    ap.add_argument("--parallelism", type=int, default=10)
    args = ap.parse_args()
    import openstack

    conn = openstack.connect(cloud=os.environ.get("OS_CLOUD", "hotc-test"))
    conn.authorize()
    run = uuid.uuid4().hex[:8]
    prefix = f"hotc-t-bench-{run}"
    net = conn.network.create_network(name=f"{prefix}-portnet")
    conn.network.create_subnet(network_id=net.id, name=f"{prefix}-portsub", ip_version=4, cidr="10.99.0.0/20")
    print(
        f"{'N':>6} {'types':>5} | {'list calls':>10} {'list wall':>9} | {'1-by-1 calls':>12} {'1-by-1 wall':>11} | drift"
    )
    pool = ThreadPoolExecutor(max_workers=8)
    try:
        for n in (int(x) for x in args.sizes.split(",")):
            st = make(conn, n, f"{prefix}-{n}", net.id, pool)
            try:
                reader = driver_reader(st, lambda: conn, parallelism=args.parallelism)
                with CallCounter() as c1:
                    t0 = time.perf_counter()
                    fast = refresh_resources(st, reader)
                    wall1 = time.perf_counter() - t0
                one = driver_reader(st, lambda: conn)
                one.cache = None  # type: ignore[assignment]  # as before: no shared look-ups either
                with CallCounter() as c2:
                    t0 = time.perf_counter()
                    slow = {addr: one(rs) for addr, rs in st.resources.items()}
                    wall2 = time.perf_counter() - t0
                same = all(_comparable(fast[a]) == _comparable(slow[a]) for a in st.resources)
                drift = drifted(st, fast)
                types = len({rs.type for rs in st.resources.values()})
                print(
                    f"{n:>6} {types:>5} | {c1.count:>10} {wall1:>8.2f}s | {c2.count:>12} {wall2:>10.2f}s | "
                    f"{len(drift)}{'' if same else '  (RESULTS DIFFER)'}",
                    flush=True,
                )
            finally:
                cleanup(conn, st, pool)
    finally:
        for p in conn.network.ports(network_id=net.id):
            conn.network.delete_port(p, ignore_missing=True)
        conn.network.delete_network(net, ignore_missing=True)
        pool.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
