"""The machinery of the fake openstacksdk connection: a clock that only moves when a driver waits, gates that
hold an asynchronous transition until the test opens them, the call log, and the errors openstacksdk raises.

Time: drivers poll through ``hotc.providers.openstack.common.now``/``pause``, which read that module's ``time``;
:meth:`FakeClock.install` swaps it for this clock, so a driver's ``sleep`` advances the fake clock by the
seconds asked and lets the cloud make one step (:meth:`Cloud.tick`). Nothing ever really sleeps.

Transitions: a status change the real API makes asynchronously (BUILD -> ACTIVE, creating -> available,
PENDING_CREATE -> ACTIVE) is a :class:`Transition` that completes on a later tick, once its gate (if any) is
open. A test holds a gate to keep an object in its transitional status (``cloud.gates["server.create"]``), and
opens it when it wants the cloud to move on, or from a hook run at each tick.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from openstack import exceptions


def not_found(what: str) -> exceptions.ResourceNotFound:
    return exceptions.ResourceNotFound(message=f"{what} could not be found", http_status=404)


def conflict(message: str) -> exceptions.ConflictException:
    return exceptions.ConflictException(message=message, http_status=409)


def bad_request(message: str) -> exceptions.BadRequestException:
    return exceptions.BadRequestException(message=message, http_status=400)


@dataclass
class Gate:
    """Holds every transition that names it until opened."""

    name: str
    open: bool = True
    waited: int = 0  # how many ticks a transition spent held here

    def hold(self) -> Gate:
        self.open = False
        return self

    def release(self) -> None:
        self.open = True


@dataclass
class Transition:
    gate: str
    apply: Callable[[], None]
    ready_at: int  # the tick from which it may complete


@dataclass
class Call:
    service: str
    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class FakeClock:
    """``time``-like: ``monotonic()`` and ``sleep()``; a sleep advances the clock and ticks the cloud."""

    def __init__(self, cloud: Cloud) -> None:
        self.cloud = cloud
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(seconds, 0.001)
        self.cloud.tick()

    def install(self, monkeypatch: Any) -> FakeClock:
        from hotc.providers.openstack import common

        monkeypatch.setattr(common, "time", self)
        return self


class Cloud:
    """The shared state of one fake cloud: objects by service and kind, transitions, gates, the call log."""

    def __init__(self, project_id: str = "p-0001") -> None:
        self.project_id = project_id
        self.objects: dict[str, dict[str, dict[str, Any]]] = {}
        self.ticks = 0
        self.pending: list[Transition] = []
        self.gates: dict[str, Gate] = {}
        self.calls: list[Call] = []
        self.hooks: list[Callable[[Cloud], None]] = []  # run at each tick
        self.faults: dict[str, list[BaseException]] = {}  # "service.method" -> errors to raise, in turn
        self._ids = itertools.count(1)

    # -- ids and storage
    def new_id(self, prefix: str = "") -> str:
        return str(uuid.UUID(int=next(self._ids)))

    def table(self, kind: str) -> dict[str, dict[str, Any]]:
        return self.objects.setdefault(kind, {})

    def get(self, kind: str, oid: Any, what: str | None = None) -> dict[str, Any]:
        obj = self.table(kind).get(str(oid))
        if obj is None:
            raise not_found(f"{what or kind} {oid}")
        return obj

    def find(self, kind: str, oid: Any) -> dict[str, Any] | None:
        return self.table(kind).get(str(oid))

    def put(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        self.table(kind)[str(obj["id"])] = obj
        return obj

    def drop(self, kind: str, oid: Any) -> None:
        self.table(kind).pop(str(oid), None)

    def all(self, kind: str) -> list[dict[str, Any]]:
        return list(self.table(kind).values())

    # -- time
    def gate(self, name: str) -> Gate:
        return self.gates.setdefault(name, Gate(name))

    def later(self, gate: str, apply: Callable[[], None], after: int = 1) -> None:
        """Run ``apply`` on a later tick (``after`` ticks from now at the earliest), once ``gate`` is open."""
        self.pending.append(Transition(gate, apply, self.ticks + after))

    def tick(self) -> None:
        self.ticks += 1
        for hook in list(self.hooks):
            hook(self)
        due, self.pending = self.pending, []
        for t in due:
            g = self.gate(t.gate)
            if t.ready_at <= self.ticks and g.open:
                t.apply()
            else:
                if not g.open:
                    g.waited += 1
                self.pending.append(t)

    def settle(self, limit: int = 100) -> None:
        """Tick until nothing is pending (or only held transitions are)."""
        for _ in range(limit):
            if not any(self.gate(t.gate).open for t in self.pending):
                return
            self.tick()

    # -- calls
    def record(self, service: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.calls.append(Call(service, method, args, dict(kwargs)))
        errors = self.faults.get(f"{service}.{method}")
        if errors:
            raise errors.pop(0)

    def fail_next(self, method: str, *errors: BaseException) -> None:
        """Make the next calls of ``service.method`` raise these errors, in turn."""
        self.faults.setdefault(method, []).extend(errors)

    def count(self, method: str | None = None) -> int:
        return sum(1 for c in self.calls if method is None or f"{c.service}.{c.method}" == method)

    def methods(self) -> list[str]:
        return [f"{c.service}.{c.method}" for c in self.calls]


class Proxy:
    """A service proxy: every public method call is recorded in the cloud's call log (and may be made to
    fail with :meth:`Cloud.fail_next`)."""

    service = ""

    def __init__(self, cloud: Cloud) -> None:
        self.cloud = cloud

    def __getattribute__(self, name: str) -> Any:
        attr = object.__getattribute__(self, name)
        if name.startswith("_") or not callable(attr) or name in ("cloud", "service"):
            return attr
        cloud: Cloud = object.__getattribute__(self, "cloud")
        service = object.__getattribute__(self, "service")

        def recorded(*args: Any, **kwargs: Any) -> Any:
            cloud.record(service, name, args, kwargs)
            return attr(*args, **kwargs)

        return recorded


def oid(value: Any) -> str:
    """The id of a resource given as an id or as a resource object (openstacksdk takes both)."""
    return str(getattr(value, "id", value))


def matches(
    obj: Mapping[str, Any], query: Mapping[str, Any], aliases: Mapping[str, str] | None = None
) -> bool:
    """A list filter as Neutron/Nova/Cinder apply it: equal fields; ``tags`` all present."""
    for key, want in query.items():
        if want is None or key in ("details", "limit", "marker", "paginated"):
            continue
        field_name = (aliases or {}).get(key, key)
        if key in ("tags", "tag"):
            wanted = [want] if isinstance(want, str) else list(want)
            if not set(wanted) <= set(obj.get("tags") or []):
                return False
            continue
        if obj.get(field_name) != want:
            return False
    return True


def select(
    items: Iterable[Mapping[str, Any]], query: Mapping[str, Any], aliases: Mapping[str, str] | None = None
) -> Iterator[Mapping[str, Any]]:
    return (i for i in items if matches(i, query, aliases))


@dataclass
class Response:
    """What ``proxy.get/post/patch(url, raise_exc=False)`` returns (enough for raise_from_response)."""

    status_code: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "application/json"})

    @property
    def content(self) -> bytes:
        return b"{}" if self.body is None else b"x"

    def json(self) -> Any:
        return self.body

    @property
    def text(self) -> str:
        return str(self.body)

    @property
    def reason(self) -> str:
        return "error"

    @property
    def url(self) -> str:
        return ""
