"""Unit tests of the OpenStack provider's shared machinery (retries, waits, stamping, look-ups), with fakes;
and the context helper the real-cloud driver tests use."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from hotc.errors import HotcError
from hotc.providers.base import ActionContext
from hotc.providers.openstack import common
from hotc.providers.openstack.common import NotFound, ProviderError


@dataclass
class Recorder:
    ids: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)


def make_ctx(
    conn: Any,
    address: str,
    type_: str = "OS::Test",
    *,
    lineage: str | None = None,
    stack: str = "hotc-t",
    timeout: float = 120.0,
    rec: Recorder | None = None,
    instance: str | None = None,
) -> ActionContext:
    """A driver context as the executor makes it; ``instance`` is the address stamp of a replacement
    (``address@nonce``), defaulting to the address."""
    rec = rec if rec is not None else Recorder()
    lin = lineage or uuid.uuid4().hex
    return ActionContext(
        address=address,
        type=type_,
        stack_name=stack,
        lineage=lin,
        timeout=timeout,
        cloud=lambda: conn,
        record_physical_id=rec.ids.append,
        tags={"hotc-lineage": lin, "hotc-address": instance or address},
        log=rec.logs.append,
    )


class FakeHttpError(Exception):
    def __init__(self, code: int, details: str = "busy") -> None:
        super().__init__(f"HTTP {code}")
        self.status_code = code
        self.details = details


def no_sleep(_s: float) -> None:
    return None


def test_call_retries_transient_errors_then_succeeds() -> None:
    attempts: list[int] = []

    def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise FakeHttpError(503 if len(attempts) == 1 else 409)
        return "ok"

    rec = Recorder()
    ctx = make_ctx(None, "r", rec=rec)
    assert common.call(ctx, "do it", flaky, sleep=no_sleep) == "ok"
    assert len(attempts) == 3
    assert len(rec.logs) == 2 and "retry 1/" in rec.logs[0]


def test_call_does_not_retry_client_errors_and_keeps_cloud_message() -> None:
    attempts: list[int] = []

    def bad() -> None:
        attempts.append(1)
        raise FakeHttpError(400, "Invalid input for cidr")

    with pytest.raises(ProviderError) as err:
        common.call(None, "create subnet", bad, sleep=no_sleep)
    assert len(attempts) == 1
    assert "create subnet" in err.value.message and "Invalid input for cidr" in err.value.message
    assert err.value.status_code == 400
    assert isinstance(err.value, HotcError)


def test_call_gives_up_after_the_attempt_budget() -> None:
    attempts: list[int] = []

    def always() -> None:
        attempts.append(1)
        raise FakeHttpError(429, "rate limited")

    with pytest.raises(ProviderError, match="rate limited"):
        common.call(None, "list", always, attempts=4, sleep=no_sleep)
    assert len(attempts) == 4


def test_404_is_not_found_and_ignore_missing_swallows_it() -> None:
    def gone() -> None:
        raise FakeHttpError(404, "no such thing")

    with pytest.raises(NotFound):
        common.call(None, "get", gone, sleep=no_sleep)
    assert common.ignore_missing(None, "delete", gone) is None
    assert common.get_or_none(None, "get", gone) is None


def test_create_once_adopts_what_a_failed_attempt_made() -> None:
    made: list[str] = []

    def create() -> str:
        made.append("x")
        raise FakeHttpError(502, "bad gateway after the server did it")

    result = common.create_once(make_ctx(None, "r"), "create", create, lambda: "found-it", sleep=no_sleep)
    assert result == "found-it" and len(made) == 1


def test_create_once_retries_when_nothing_was_made() -> None:
    made: list[str] = []

    def create() -> str:
        made.append("x")
        if len(made) == 1:
            raise FakeHttpError(500)
        return "new"

    assert common.create_once(make_ctx(None, "r"), "create", create, lambda: None, sleep=no_sleep) == "new"
    assert len(made) == 2


def test_create_once_gives_up_early_on_conflicts_and_never_adopts_on_them() -> None:
    made: list[str] = []

    def create() -> str:
        made.append("x")
        raise FakeHttpError(409, "IP address 10.0.0.5 already allocated")

    looked: list[int] = []

    def find() -> str | None:
        looked.append(1)
        return "an-old-instance"

    with pytest.raises(ProviderError, match="already allocated"):
        common.create_once(make_ctx(None, "r"), "create port", create, find, sleep=no_sleep)
    assert len(made) == 3 and looked == []


def test_fresh_finder_never_returns_what_existed_before_the_create() -> None:
    @dataclass
    class R:
        id: str
        created_at: str

    cloud = [R("old", "2026-01-01T00:00:00")]  # the instance a replacement replaces: same stamp
    ctx = make_ctx(None, "r")
    find_new = common.fresh_finder(ctx, "create", lambda: list(cloud))
    assert find_new() is None

    def create() -> str:
        cloud.append(R("new", "2026-01-02T00:00:00"))  # the cloud made it, then the answer was lost
        raise FakeHttpError(504, "gateway timeout")

    assert common.create_once(ctx, "create", create, find_new, sleep=no_sleep).id == "new"


@dataclass
class Obj:
    status: str
    id: str = "1"
    name: str = "n"


def test_wait_status_reaches_target_fails_on_error_and_times_out() -> None:
    seq = iter(["BUILD", "BUILD", "ACTIVE"])
    ctx = make_ctx(None, "r")
    got = common.wait_for(
        ctx, "server", lambda: Obj(next(seq)), lambda o: o.status == "ACTIVE", sleep=no_sleep
    )
    assert got.status == "ACTIVE"

    seq2 = iter(["BUILD", "ERROR"])
    with pytest.raises(ProviderError, match="went to ERROR: no valid host"):
        common.wait_status(ctx, "server", lambda: Obj(next(seq2)), "ACTIVE", fault=lambda o: "no valid host")

    clock = iter(range(0, 10_000, 50))
    with pytest.raises(ProviderError, match=r"timed out after 100s \(last status: BUILD\)"):
        common.wait_for(
            ctx,
            "server",
            lambda: Obj("BUILD"),
            lambda o: o.status == "ACTIVE",
            timeout=100,
            sleep=no_sleep,
            clock=lambda: float(next(clock)),
        )


def test_rate_limit_waits_as_long_as_the_cloud_asks() -> None:
    class Resp:
        headers = {"Retry-After": "7"}

    err = FakeHttpError(429, "slow down")
    err.response = Resp()  # type: ignore[attr-defined]
    calls: list[int] = []
    slept: list[float] = []

    def limited() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise err
        return "ok"

    assert common.call(None, "list", limited, sleep=slept.append) == "ok"
    assert slept == [7.0]


def test_wait_gone_treats_404_as_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = iter([Obj("DELETING"), FakeHttpError(404)])

    def get() -> Any:
        v = next(calls)
        if isinstance(v, Exception):
            raise v
        return v

    monkeypatch.setattr(common, "pause", lambda _s: None)
    common.wait_gone(make_ctx(None, "r"), "volume", get)


def test_stamp_tags_and_metadata_round_trip() -> None:
    ctx = make_ctx(None, "web[2].port", lineage="L1")
    tags = common.merge_tags(ctx, ["mine"])
    assert tags == ["mine", "hotc-address=web[2].port", "hotc-lineage=L1"]
    assert common.user_tags(tags) == ["mine"]
    assert common.has_stamp(ctx, tags=tags)
    assert not common.has_stamp(make_ctx(None, "web[2].port", lineage="L2"), tags=tags)
    md = common.merge_metadata(ctx, {"a": 1})
    assert md == {"a": "1", "hotc-lineage": "L1", "hotc-address": "web[2].port"}
    assert common.user_metadata(md) == {"a": "1"}


def test_physical_name_is_heat_style_and_bounded() -> None:
    ctx = make_ctx(None, "web[2].port", stack="prod")
    name = common.physical_name(ctx)
    assert name.startswith("prod-web-2-.port-") or name.startswith("prod-web-2-port-")
    assert common.physical_name(ctx, "given") == "given"
    assert len(common.physical_name(make_ctx(None, "x" * 300), limit=64)) <= 64
    assert common.is_generated_name(ctx, name)
    assert not common.is_generated_name(make_ctx(None, "web[2]", stack="prod"), name)
    assert not common.is_generated_name(ctx, "given") and not common.is_generated_name(ctx, None)
    long_ctx = make_ctx(None, "y" * 300)
    assert common.is_generated_name(long_ctx, common.physical_name(long_ctx, limit=64), limit=64)


@dataclass
class Named:
    id: str
    name: str


def test_lookup_by_id_then_unique_name() -> None:
    items = [Named("id-1", "a"), Named("id-2", "b"), Named("id-3", "b")]

    def get(v: str) -> Named:
        for i in items:
            if i.id == v:
                return i
        raise FakeHttpError(404)

    def by_name(v: str) -> list[Named]:
        return [i for i in items if i.name == v]

    assert common.lookup(None, "network", "id-2", get, by_name).id == "id-2"
    assert common.lookup(None, "network", "a", get, by_name).id == "id-1"
    with pytest.raises(ProviderError, match="ambiguous"):
        common.lookup(None, "network", "b", get, by_name)
    with pytest.raises(NotFound, match="network 'zz' not found"):
        common.lookup(None, "network", "zz", get, by_name)


def test_plain_makes_json_values() -> None:
    class Res:
        def to_dict(self, original_names: bool = False) -> Mapping[str, Any]:
            return {"id": "x", "location": {"cloud": "c"}, "tags": ("a",), "raw": b"\x00"}

    assert common.plain(Res()) == {"id": "x", "tags": ["a"], "raw": "AA=="}


def test_a_name_another_tool_generated_for_this_object_is_a_generated_name() -> None:
    # a stack taken over from Heat: Heat named the unnamed object <stack>-<resource>-<short id>, and the state
    # keeps that name (ResourceState.generated_name), which a read then takes as hotc takes its own
    heat_name = "webapp-sg-soaapsiltltc"
    ctx = make_ctx(None, "sg", stack="prod")
    assert not common.is_generated_name(ctx, heat_name)
    kept = replace(ctx, generated_name=heat_name)
    assert common.is_generated_name(kept, heat_name)
    assert common.is_generated_name(kept, common.physical_name(ctx))  # hotc's own still are
    assert not common.is_generated_name(kept, "webapp-sg-aaaaaaaaaaaa")  # only that very name


def test_adoption_by_a_generated_name_skips_what_the_state_records() -> None:
    """A killed run's create is adopted by the name hotc generated, but an old instance that a replacement
    deposed (recorded in the state, not yet deleted) has a generated name of the same address too: it is left
    out, so the one unrecorded object is still found (with both counted, none was, and it was orphaned)."""
    from dataclasses import replace as dc_replace
    from types import SimpleNamespace

    ctx = make_ctx(None, "rs0", stack="prod")
    old, new = (SimpleNamespace(id=i, name=common.physical_name(ctx)) for i in ("old-id", "new-id"))
    # both counted: two matches, ambiguous, so none is adopted
    assert common.adopt_by_generated_name(ctx, {}, "record sets", lambda: [old, new]) is None
    known = dc_replace(ctx, recorded=lambda pid: pid == "old-id")
    assert common.adopt_by_generated_name(known, {}, "record sets", lambda: [old, new]) == "new-id"
    assert common.adopt_by_generated_name(known, {"name": "given"}, "record sets", lambda: [new]) is None
