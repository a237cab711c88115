"""Block until the RPC daemons (not just the HTTP APIs) are ready.

nova-compute/conductor/scheduler and cinder-volume/scheduler must have sent a heartbeat since SINCE (epoch
seconds; default now - 60): right after a restart the old rows still say ``up`` for up to 60 s. The hypervisor
must be visible and heat-engine up. Services named in $SKIP are not waited for.

Usage: wait_ready.py [timeout_s] [since_epoch]. Exit 1 on timeout, printing what is still missing.
"""

import datetime as dt
import os
import sys
import time

import openstack


def fresh(svc: object, since: float) -> bool:
    updated = getattr(svc, "updated_at", None)
    if not updated or getattr(svc, "state", None) != "up":
        return False
    ts = dt.datetime.fromisoformat(updated.replace("Z", "")).replace(tzinfo=dt.UTC).timestamp()
    return ts >= since - 1


def missing(conn: openstack.connection.Connection, since: float, skip: set[str]) -> list[str]:
    out: list[str] = []
    if "nova" not in skip:
        nova = {s.binary: fresh(s, since) for s in conn.compute.services()}
        out += [b for b in ("nova-compute", "nova-conductor", "nova-scheduler") if not nova.get(b)]
        if not list(conn.compute.hypervisors()):
            out.append("nova hypervisor")
    if "cinder" not in skip:
        cinder = {s.binary: fresh(s, since) for s in conn.block_storage.services()}
        out += [b for b in ("cinder-volume", "cinder-scheduler") if not cinder.get(b)]
    if "heat" not in skip:
        services = conn.orchestration.get("/services").json()["services"]
        if not any(s["status"] == "up" for s in services):
            out.append("heat-engine")
    return out


def main() -> int:
    timeout = float(sys.argv[1]) if len(sys.argv) > 1 else 180
    since = float(sys.argv[2]) if len(sys.argv) > 2 else time.time() - 60
    skip = set(os.environ.get("SKIP", "").split())
    deadline = time.time() + timeout
    conn = openstack.connect(cloud=os.environ.get("OS_CLOUD", "hotc-test"))
    last: list[str] = ["(no answer yet)"]
    while True:
        try:
            last = missing(conn, since, skip)
            if not last:
                print("ready")
                return 0
        except Exception as exc:  # APIs may still be warming up
            last = [f"{type(exc).__name__}: {exc}"]
        if time.time() > deadline:
            print(f"NOT READY after {timeout:.0f}s, still waiting for: {', '.join(last)}", file=sys.stderr)
            return 1
        time.sleep(2)


if __name__ == "__main__":
    sys.exit(main())
