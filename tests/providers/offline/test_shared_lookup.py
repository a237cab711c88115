"""Look-ups shared by parallel reads are made once, even when many threads miss the same key together."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from hotc.providers.shared_lookup import once, peek


def test_threads_missing_the_same_key_together_fetch_it_once() -> None:
    cache: dict[Any, Any] = {}
    calls: list[int] = []
    inside = threading.Event()
    release = threading.Event()

    def fetch() -> str:
        calls.append(1)
        inside.set()
        release.wait()  # every other thread asks while the first one is still fetching
        return "net-id"

    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(once, cache, ("network", "hotc-private"), fetch)
        inside.wait()
        others = [pool.submit(once, cache, ("network", "hotc-private"), fetch) for _ in range(7)]
        assert peek(cache, ("network", "hotc-private")) is None  # still being fetched
        release.set()
        answers = [first.result()] + [f.result() for f in others]
    assert answers == ["net-id"] * 8
    assert len(calls) == 1
    assert peek(cache, ("network", "hotc-private")) == "net-id"


def test_a_failed_fetch_is_not_kept_and_the_next_asker_fetches_again() -> None:
    cache: dict[Any, Any] = {}

    def boom() -> str:
        raise RuntimeError("cloud said 503")

    with pytest.raises(RuntimeError, match="503"):
        once(cache, "k", boom)
    assert once(cache, "k", lambda: "ok") == "ok"
    assert once(cache, "k", boom) == "ok"  # kept now


def test_none_is_an_answer_that_is_kept() -> None:
    cache: dict[Any, Any] = {}
    calls: list[int] = []

    def fetch() -> None:
        calls.append(1)

    assert once(cache, "missing-name", fetch) is None
    assert once(cache, "missing-name", fetch) is None
    assert calls == [1]
