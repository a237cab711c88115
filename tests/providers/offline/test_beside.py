"""``common.beside``: a call made in a thread while another runs; a failure there is the caller's to make again."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hotc.providers.openstack.common import beside


def test_both_answers_come_back_and_the_first_ran_in_another_thread() -> None:
    seen: list[str] = []

    def first() -> str:
        seen.append(threading.current_thread().name)
        return "first"

    box, got = beside(first, lambda: "during", "hotc-test")
    assert (box, got) == (["first"], "during")
    assert seen == ["hotc-test"]


def test_a_failure_in_the_thread_is_an_empty_box_and_no_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    hooked: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", hooked.append)  # what would print the thread's traceback

    def first() -> str:
        raise RuntimeError("the cloud said no")

    box, got = beside(first, lambda: 42)
    assert (box, got) == ([], 42)
    assert hooked == []


def test_a_failure_of_during_is_raised_after_the_thread_ends() -> None:
    ended = threading.Event()

    def first() -> None:
        ended.wait(5)
        ended.set()

    def during() -> None:
        ended.set()
        raise ValueError("during failed")

    with pytest.raises(ValueError, match="during failed"):
        beside(first, during)
    assert ended.is_set()
