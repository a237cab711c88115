"""OS::Heat::WaitCondition: waits until its handle got ``count`` signals (Heat's signal format: status, reason,
data, id, all optional), fails on a FAILURE signal with its reason, times out after ``timeout`` seconds; ``data``
is the JSON object of signal id to data, as in Heat. An update waits again (signals so far still count)."""

from __future__ import annotations

from collections.abc import Callable

from hotc.providers.native.signal_mixin import Signal, SignalWaitMixin, heat_signals


class WaitConditionDriver(SignalWaitMixin):
    def parse(self, bodies: list[bytes], log: Callable[[str], None]) -> dict[str, Signal]:
        return heat_signals(bodies, log)
