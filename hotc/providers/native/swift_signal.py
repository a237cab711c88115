"""OS::Heat::SwiftSignal: waits for ``count`` signals PUT to its handle's URL (Heat's Swift format: an empty body
counts as a success, other keys are allowed, a body that is not JSON or an unknown status fails the wait);
``data`` is the JSON object of signal id to data. Nothing is updatable (a change replaces it)."""

from __future__ import annotations

from collections.abc import Callable

from hotc.providers.native.signal_mixin import Signal, SignalWaitMixin, swift_signals


class SwiftSignalDriver(SignalWaitMixin):
    def parse(self, bodies: list[bytes], log: Callable[[str], None]) -> dict[str, Signal]:
        return swift_signals(bodies, log)
