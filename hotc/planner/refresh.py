"""Refreshing recorded resources from the cloud, for ``--refresh-only`` and ``--refresh`` plans, ``hotc check``
and a refresh-only apply.

:func:`refresh_resources` is pure over a ``read`` callable (one recorded resource -> its live form, or None when
the object is gone). :func:`driver_reader` builds one from the providers' drivers, a :class:`DriverReader`, which
also reads many resources at once (:meth:`DriverReader.read_all`): one list call per resource type (a driver's
``read_many``, filtered by hotc's lineage tag where the API allows), in parallel across types, then parallel
GETs (``Driver.read``) for whatever the lists did not answer (types without a list read, adopted objects without
hotc's stamp, objects in a transitional status). For N resources of T types that is about T calls plus a few
shared look-ups, instead of N sequential round trips. Look-ups (a network named in many ports) are made once per
refresh (``ActionContext.cache``). The result is the ``refreshed`` mapping :func:`hotc.planner.make.make_plan`
takes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import replace
from typing import Any

from hotc.errors import HotcError
from hotc.providers.base import ActionContext, Outcome
from hotc.state.document import ResourceState, StackState

Reader = Callable[[ResourceState], ResourceState | None]
DriverLookup = Callable[[str], Any]

DEFAULT_PARALLELISM = 10


def refresh_resources(state: StackState, read: Reader) -> dict[str, ResourceState | None]:
    """Live form of every recorded resource that has a physical id (others cannot be read). A
    :class:`DriverReader` reads them all at once (list calls, parallel GETs); any other reader one by one."""
    todo = [rs for rs in state.resources.values() if rs.physical_id is not None]
    read_all = getattr(read, "read_all", None)
    if callable(read_all):
        return dict(read_all(todo))
    return {rs.address: read(rs) for rs in todo}


class DriverReader:
    """Reads recorded resources through their types' drivers (see the module). Callable on one resource (a GET);
    :meth:`read_all` for many. A type without a driver is kept as recorded."""

    def __init__(
        self,
        state: StackState,
        cloud: Callable[[], Any],
        driver_for: DriverLookup,
        *,
        parallelism: int = DEFAULT_PARALLELISM,
        timeout: float = 60.0,
    ) -> None:
        self.state = state
        self.cloud = cloud
        self.driver_for = driver_for
        self.parallelism = max(1, parallelism)
        self.timeout = timeout
        self.cache: dict[Any, Any] = {}  # look-ups shared by every read of this refresh

    def context(self, rs: ResourceState) -> ActionContext:
        return ActionContext(
            address=rs.address,
            type=rs.type,
            stack_name=self.state.stack_name,
            lineage=self.state.lineage,
            timeout=self.timeout,
            cloud=self.cloud,
            record_physical_id=lambda _pid: None,
            cache=self.cache,
        )

    def __call__(self, rs: ResourceState) -> ResourceState | None:
        driver = self.driver_for(rs.type)
        if driver is None or rs.physical_id is None:
            return rs
        try:
            out = driver.read(self.context(rs), rs.physical_id, dict(rs.properties))
        except HotcError:
            raise
        except Exception as exc:  # noqa: BLE001 -- a driver/cloud failure, reported with the address
            raise HotcError(
                f"{rs.address}: cannot read {rs.type} {rs.physical_id} from the cloud: {exc}"
            ) from exc
        return None if out is None else live_state(rs, out)

    def read_all(
        self, resources: Iterable[ResourceState], errors: dict[str, str] | None = None
    ) -> dict[str, ResourceState | None]:
        """The live form of each resource, by address: list calls per type in parallel, then parallel GETs for
        the rest. A failed read raises (the first one, once every read ended), or, with ``errors``, is recorded
        there (address -> message) and left out of the result."""
        resources = list(resources)
        out: dict[str, ResourceState | None] = {}
        by_type: dict[str, list[ResourceState]] = {}
        for rs in resources:
            if rs.physical_id is None or self.driver_for(rs.type) is None:
                out[rs.address] = rs
            else:
                by_type.setdefault(rs.type, []).append(rs)
        failures: dict[str, str] = {}

        def one(rs: ResourceState) -> tuple[str, ResourceState | None, str | None]:
            try:
                return rs.address, self(rs), None
            except HotcError as exc:
                return rs.address, None, str(exc)

        # pipelined: the GETs of types without a list read start at once, and the GETs a list did not answer
        # as soon as that list is back (not when the slowest list is)
        with ThreadPoolExecutor(max_workers=self.parallelism, thread_name_prefix="hotc-refresh") as pool:
            lists: dict[Future[dict[str, Outcome]], str] = {}
            gets: list[Future[tuple[str, ResourceState | None, str | None]]] = []
            for type_name, items in by_type.items():
                if callable(getattr(self.driver_for(type_name), "read_many", None)):
                    lists[pool.submit(self._list, type_name, items)] = type_name
                else:
                    gets += [pool.submit(one, rs) for rs in items]
            for done in as_completed(lists):
                found = done.result()
                for rs in by_type[lists[done]]:
                    outcome = found.get(str(rs.physical_id))
                    if outcome is None:
                        gets.append(pool.submit(one, rs))
                    else:
                        out[rs.address] = live_state(rs, outcome)
            for got in gets:
                addr, live, error = got.result()
                if error is None:
                    out[addr] = live
                else:
                    failures[addr] = error
        order = {rs.address: i for i, rs in enumerate(resources)}
        out = dict(sorted(out.items(), key=lambda kv: order.get(kv[0], len(order))))
        if failures and errors is None:
            raise HotcError(failures[sorted(failures)[0]])
        if errors is not None:
            errors.update(failures)
        return out

    def _list(self, type_name: str, items: list[ResourceState]) -> dict[str, Outcome]:
        """What one list call of the type's driver answers (by physical id); empty when it has none or fails."""
        driver = self.driver_for(type_name)
        read_many = getattr(driver, "read_many", None)
        if not callable(read_many):
            return {}
        try:
            found = read_many([(self.context(rs), str(rs.physical_id), dict(rs.properties)) for rs in items])
        except Exception:  # noqa: BLE001 -- the GETs that follow read them one by one, with their own errors
            return {}
        return dict(found)


def driver_reader(
    state: StackState,
    cloud: Callable[[], Any],
    driver_for: DriverLookup,
    *,
    parallelism: int = DEFAULT_PARALLELISM,
) -> DriverReader:
    """A :class:`DriverReader` using each type's driver (``driver_for``: the CLI's composition root gives
    ``hotc.providers.drivers.driver_for``); ``cloud``: the connection getter."""
    return DriverReader(state, cloud, driver_for, parallelism=parallelism)


def live_state(rs: ResourceState, outcome: Outcome) -> ResourceState:
    """The recorded resource with what a read found: its live properties merged in, its attributes."""
    props: Mapping[str, Any] = (
        rs.properties if outcome.properties is None else _merge(rs.properties, outcome.properties)
    )
    return replace(
        rs,
        physical_id=outcome.physical_id or rs.physical_id,
        properties=dict(props),
        attributes=dict(outcome.attributes) or dict(rs.attributes),
    )


def _merge(recorded: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """The recorded properties with the live value of every property the driver reported (``Driver.read``
    reports what the cloud can tell, normalised as the template writes it; what it cannot report, such as a
    server's ``user_data``, keeps its recorded value). A recorded value holding a secret (masked) stays as
    recorded: a refresh never writes a secret into the state in clear."""
    out = dict(recorded)
    for k, v in live.items():
        if k in recorded and _has_masked(recorded[k]):
            continue
        out[k] = v
    return out


def _has_masked(value: Any) -> bool:
    if isinstance(value, dict):
        return "__sensitive__" in value or any(_has_masked(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_masked(v) for v in value)
    return False
