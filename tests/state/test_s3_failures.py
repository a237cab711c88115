"""S3 going away or misbehaving in the middle of an operation: clear errors, previous state intact."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.errors import HotcError
from hotc.state import BackendError, StateConflictError
from hotc.state.s3 import S3Backend

from .samples import counter, counter_state
from .tcpproxy import TcpProxy


@pytest.fixture
def proxy(moto_s3: Any) -> Any:
    p = TcpProxy(moto_s3.port)
    yield p
    p.stop()


def backend_via(proxy: TcpProxy, bucket: Any, **kw: Any) -> S3Backend:
    return S3Backend(
        bucket.name,
        bucket.prefix,
        endpoint_url=proxy.endpoint,
        path_style=True,
        max_attempts=2,
        connect_timeout=1,
        read_timeout=5,
        **kw,
    )


def test_endpoint_gone_between_read_and_write_leaves_state_intact(s3_bucket: Any, proxy: TcpProxy) -> None:
    b = backend_via(proxy, s3_bucket, lease_seconds=30)
    notes: list[str] = []
    b.notify = notes.append
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
    before = s3_bucket.client().get_object(Bucket=s3_bucket.name, Key=s3_bucket.key("web", "state.json"))
    before_bytes = before["Body"].read()
    with pytest.raises(BackendError) as exc:
        with b.lock("web", "apply") as lk:
            st, _ = b.read("web")
            proxy.stop()  # the S3 endpoint vanishes in the middle of the operation
            b.write("web", counter_state("web", 2).__class__(**{**st.__dict__, "status": "X"}), lk)
    msg = str(exc.value)
    assert "cannot reach the S3 endpoint" in msg and "not changed" in msg, msg
    # the lock could not be released either: said plainly, with the way out
    assert any("could not release the lock" in n and "force-unlock web" in n for n in notes), notes
    # moto kept running: the stored state is byte-for-byte the previous one
    after = s3_bucket.client().get_object(Bucket=s3_bucket.name, Key=s3_bucket.key("web", "state.json"))
    assert after["Body"].read() == before_bytes and after["ETag"] == before["ETag"]
    # when the endpoint is back, the stale lock is named and can be force-unlocked
    proxy.start()
    holder = b.current_lock("web")
    assert holder is not None and holder.operation == "apply"
    b.force_unlock("web", holder.id)
    with b.lock("web", "apply") as lk:
        st, _ = b.read("web")
        assert counter(st) == 1


def test_server_killed_mid_operation(s3_server_factory: Any) -> None:
    """A real moto_server process dies while we hold the lock: the write fails with a clear error.
    (moto keeps data in memory, so what was stored cannot be inspected after it dies; the proxy test above
    checks that the previous state survives an unreachable endpoint.)"""
    server = s3_server_factory()
    bucket = server.make_bucket()
    b = S3Backend(
        bucket, "p", endpoint_url=server.endpoint, path_style=True, max_attempts=2, connect_timeout=1
    )
    b.notify = lambda _m: None
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
    with pytest.raises(HotcError) as exc:
        with b.lock("web", "apply") as lk:
            st, _ = b.read("web")
            server.stop()
            b.write("web", counter_state("web", 2).__class__(**{**st.__dict__, "status": "X"}), lk)
    assert "cannot reach the S3 endpoint" in str(exc.value)


def test_5xx_is_retried(s3_bucket: Any, proxy: TcpProxy) -> None:
    b = S3Backend(
        s3_bucket.name, s3_bucket.prefix, endpoint_url=proxy.endpoint, path_style=True, max_attempts=4
    )
    with b.lock("web", "apply") as lk:
        proxy.fail_next = 2  # the next two requests get 503 Service Unavailable
        b.write("web", counter_state("web", 7), lk)
    assert proxy.failed == 2
    assert counter(b.read("web")[0]) == 7


def test_5xx_beyond_the_retries_is_reported_plainly(s3_bucket: Any, proxy: TcpProxy) -> None:
    b = backend_via(proxy, s3_bucket)
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
        proxy.fail_next = 10
        with pytest.raises(BackendError, match=r"ServiceUnavailable.*not changed"):
            b.write("web", counter_state("web", 2), lk)
        proxy.fail_next = 0
    assert counter(b.read("web")[0]) == 1


class IgnoresConditions:
    """An S3 client for a store that silently ignores If-None-Match / If-Match (as some old gateways do)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.meta = inner.meta

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.inner, name)

        def call(**kw: Any) -> Any:
            kw.pop("IfNoneMatch", None)
            kw.pop("IfMatch", None)
            return fn(**kw)

        return call


def test_store_without_conditional_writes_is_refused(s3_bucket: Any) -> None:
    client = IgnoresConditions(s3_bucket.client())
    b = S3Backend(s3_bucket.name, s3_bucket.prefix, client=client)
    with pytest.raises(BackendError, match=r"does not honour conditional writes") as refused:
        with b.lock("web", "apply"):
            pass
    # what it tells the user to do works for plan, apply and destroy, which take no --unsafe-no-locking:
    # another store or a directory; the flag is named only for the state-editing commands that take it
    message = str(refused.value)
    assert "--backend DIR" in message and "AWS S3" in message
    assert "--unsafe-no-locking" in message.split("Only the commands that edit a state by hand")[1]
    assert "--unsafe-no-locking" not in message.split("Only the commands that edit a state by hand")[0]
    unsafe = S3Backend(s3_bucket.name, s3_bucket.prefix, client=client, unsafe_no_locking=True)
    with unsafe.lock("web", "apply") as lk:
        assert lk.unsafe
        unsafe.write("web", counter_state("web", 3), lk)
    assert counter(unsafe.read("web")[0]) == 3


def test_probe_runs_once_per_backend(s3_bucket: Any) -> None:
    calls: list[str] = []
    inner = s3_bucket.client()

    class Counting:
        meta = inner.meta

        def __getattr__(self, name: str) -> Any:
            calls.append(name)
            return getattr(inner, name)

    b = S3Backend(s3_bucket.name, s3_bucket.prefix, client=Counting())
    for _ in range(3):
        with b.lock("web", "apply"):
            pass
    # probe: two puts, the listing of its versions and the clean-up of the one stored version, once; then per
    # lock: one put (create) and
    # one delete (release)
    assert calls.count("put_object") == 2 + 3 and calls.count("delete_object") == 1 + 3
    listing = inner.list_object_versions(Bucket=s3_bucket.name, Prefix=s3_bucket.prefix + "/.hotc-probe")
    assert not listing.get("Versions") and not listing.get("DeleteMarkers")  # no trace of the probe


def test_lock_taken_over_while_held_stops_further_writes(s3_bucket: Any) -> None:
    from hotc.state import LockLostError

    a = S3Backend(s3_bucket.name, s3_bucket.prefix, lease_seconds=0.6)
    notes: list[str] = []
    a.notify = notes.append
    other = S3Backend(s3_bucket.name, s3_bucket.prefix)
    with a.lock("web", "apply") as lk:
        a.write("web", counter_state("web", 1), lk)
        other.force_unlock("web", lk.id)
        import time

        deadline = time.monotonic() + 10
        while not notes and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(LockLostError, match="lost"):
            a.write("web", counter_state("web", 2), lk)
    assert counter(other.read("web")[0]) == 1


def test_conflict_error_message(s3_bucket: Any) -> None:
    a = S3Backend(s3_bucket.name, s3_bucket.prefix)
    with a.lock("web", "apply") as lk:
        s1 = a.write("web", counter_state("web", 1), lk)
        s3_bucket.client().put_object(
            Bucket=s3_bucket.name, Key=s3_bucket.key("web", "state.json"), Body=b"{}"
        )
        with pytest.raises(
            StateConflictError, match=r"s3://.*/team/env/web/state.json: the state changed underneath"
        ):
            a.write("web", s1.__class__(**{**s1.__dict__, "status": "Y"}), lk)


def test_lost_reply_to_a_conditional_write_is_recognised(s3_bucket: Any, proxy: TcpProxy) -> None:
    """The state PUT reaches S3 but its reply is lost; botocore retries, the retry gets 412 (the ETag moved on
    -- because of our own write). hotc sees the stored object is exactly what it wrote: success, not conflict."""
    b = S3Backend(
        s3_bucket.name, s3_bucket.prefix, endpoint_url=proxy.endpoint, path_style=True, max_attempts=3
    )
    with b.lock("web", "apply") as lk:
        s1 = b.write("web", counter_state("web", 1), lk)
        proxy.drop_responses = 1
        s2 = b.write("web", counter_state("web", 2), lk)
        assert proxy.drop_responses == 0  # a reply was really swallowed
        s3 = b.write("web", counter_state("web", 3), lk)  # and the next CAS write works from the right ETag
    assert (s1.serial, s2.serial, s3.serial) == (1, 2, 3)
    assert counter(b.read("web")[0]) == 3


def test_lost_reply_to_the_lock_create_is_recognised(s3_bucket: Any, proxy: TcpProxy) -> None:
    b = S3Backend(
        s3_bucket.name, s3_bucket.prefix, endpoint_url=proxy.endpoint, path_style=True, max_attempts=3
    )
    b.ensure_conditional_writes()
    proxy.drop_responses = 1
    with b.lock("web", "apply", timeout=0) as lk:  # the retry finds our own lock record: we hold it
        assert proxy.drop_responses == 0
        b.write("web", counter_state("web", 1), lk)
    assert b.current_lock("web") is None


def _probe_leftovers(bucket: Any) -> list[str]:
    """Every object, version or delete marker left under the probe's prefix."""
    from hotc.state.s3 import PROBE_DIR

    prefix = f"{bucket.prefix}/{PROBE_DIR}/" if bucket.prefix else f"{PROBE_DIR}/"
    r = bucket.client().list_object_versions(Bucket=bucket.name, Prefix=prefix)
    return [v["Key"] for v in [*r.get("Versions", []), *r.get("DeleteMarkers", [])]]


@pytest.mark.parametrize("lost", [1, 2], ids=["first-create", "second-create"])
def test_lost_reply_to_the_conditional_write_probe(s3_bucket: Any, proxy: TcpProxy, lost: int) -> None:
    """A reply of the probe's creates is lost and botocore's retry gets 412: that is proof that the store
    honours conditional writes (the probe key is new, so only our own create can be there), not an uncaught
    ClientError; and the probe object is removed, every version of it."""
    b = S3Backend(
        s3_bucket.name, s3_bucket.prefix, endpoint_url=proxy.endpoint, path_style=True, max_attempts=3
    )
    if lost == 2:
        b.client.meta.events.register_first(
            "before-send.s3.PutObject", lambda request, **_: _arm_on_second(proxy, request)
        )
    else:
        proxy.drop_responses = 1
    assert b.ensure_conditional_writes() is True
    assert proxy.drop_responses == 0  # a reply was really swallowed
    assert _probe_leftovers(s3_bucket) == []
    with b.lock("web", "apply", timeout=0) as lk:
        b.write("web", counter_state("web", 1), lk)
    assert counter(b.read("web")[0]) == 1


_PUTS: list[str] = []


def _arm_on_second(proxy: TcpProxy, request: Any) -> None:
    """Lose the reply of the second probe create (the one that a store honouring If-None-Match refuses)."""
    if ".hotc-probe" in request.url:
        _PUTS.append(request.url)
        if len(_PUTS) == 2:
            proxy.drop_responses = 1
