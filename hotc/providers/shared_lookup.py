"""Look-ups shared by the parallel actions of one run (``ActionContext.cache``), each made once.

Reads run in parallel threads. A plain check-then-set on the shared dict lets two threads that miss the same key
at the same moment both call the cloud, so a refresh made the same name look-up twice now and then. Here the
first thread to miss a key fetches it, and the others wait for its answer. A failed fetch is not kept: every
waiter then fetches on its own, and sees its own error."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_GUARD = ("hotc.shared_lookup", "guard")  # the cache's own lock, kept in the cache (one per run, no globals)


class _Pending:
    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


def once(cache: dict[Any, Any], key: Any, fetch: Callable[[], T]) -> T:
    """``cache[key]``, fetched by ``fetch()`` the first time any thread asks for ``key``."""
    guard: threading.Lock = cache.setdefault(_GUARD, threading.Lock())  # setdefault is atomic on a dict
    while True:
        with guard:
            found = cache.get(key, _MISSING)
            if found is _MISSING:
                mine = _Pending()
                cache[key] = mine
                break
        if not isinstance(found, _Pending):
            return found  # type: ignore[no-any-return]
        found.done.wait()
    try:
        value = fetch()
    except BaseException:
        with guard:
            del cache[key]
        mine.done.set()
        raise
    with guard:
        cache[key] = value
    mine.done.set()
    return value


def peek(cache: dict[Any, Any] | None, key: Any) -> Any:
    """What the cache holds for ``key`` (None when nothing, or while it is still being fetched)."""
    if cache is None:
        return None
    found = cache.get(key)
    return None if isinstance(found, _Pending) else found


_MISSING = object()
