"""Pausing Python's cyclic garbage collector around a step that builds a large structure.

Decoding, building the IR and planning allocate hundreds of thousands of small objects that live until the
step ends (and form few cycles): the collector's repeated passes over them would cost a large share of the
step, growing with the heap. :func:`gc_paused` disables it for the step. On the way out, everything the step
allocated is still in the youngest generation, so the first collection after re-enabling would walk all of
it (about 0.1-0.25 s for 10,000 resources, once per step): ``gc.freeze()`` + ``gc.unfreeze()`` first moves
every tracked object to the oldest generation in O(1) (still collectable, not walked again until a full
collection is due). That is skipped when the caller keeps objects frozen itself (it then decides).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the ``with`` block; restore the previous setting after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


__all__ = ["gc_paused"]
