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

A plan saved from a refresh (``hotc plan --refresh -o FILE``) carries what the refresh read that the plan used
and the state does not record (:func:`carried_attributes`, ``Plan.refreshed_attributes``; hidden values as
digests only). Its apply reads those resources again (:func:`read_again`): when the cloud still says the same,
the apply resolves from what it read, as the plan did; when not, it stops before anything runs and says what
changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hotc.errors import HotcError
from hotc.providers.base import ActionContext, Outcome
from hotc.state.document import ResourceState, StackState
from hotc.state.secrets import canonical_json, is_masked, mask, matches_masked, secret_attributes

if TYPE_CHECKING:
    from concurrent.futures import Future

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
        signals: Callable[[], Any] | None = None,
    ) -> None:
        self.state = state
        self.signals = signals  # the signal store, for the types read from it (a DeployedServer's metadata)
        self.cloud = cloud
        self.driver_for = driver_for
        self.parallelism = max(1, parallelism)
        self.timeout = timeout
        self.cache: dict[Any, Any] = {}  # look-ups shared by every read of this refresh

    def context(self, rs: ResourceState) -> ActionContext:
        ctx = ActionContext(
            address=rs.address,
            type=rs.type,
            stack_name=self.state.stack_name,
            lineage=self.state.lineage,
            timeout=self.timeout,
            cloud=self.cloud,
            record_physical_id=lambda _pid: None,
            cache=self.cache,
            generated_name=rs.generated_name,
        )
        return ctx if self.signals is None else replace(ctx, signals=self.signals)

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

        # lazy: the thread pool only when there is something to read (a plan from an empty state reads nothing)
        from concurrent.futures import ThreadPoolExecutor, as_completed

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
    signals: Callable[[], Any] | None = None,
) -> DriverReader:
    """A :class:`DriverReader` using each type's driver (``driver_for``: the CLI's composition root gives
    ``hotc.providers.drivers.driver_for``); ``cloud``: the connection getter; ``signals``: the signal store's
    getter (without one, the types read from the store keep what the state recorded)."""
    return DriverReader(state, cloud, driver_for, parallelism=parallelism, signals=signals)


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


# ------------------------------------------------------------------------------------------ saved refresh plans

_ABSENT = object()
_SHOWN = 300  # characters of a value a message quotes


def carried_attributes(
    state: StackState | None,
    planned: Mapping[str, ResourceState],
    refreshed: Mapping[str, Any],
    read: Iterable[tuple[str, str]],
) -> dict[str, dict[str, Any]]:
    """What a saved plan must carry so its apply resolves as the plan did: for each ``(address, attribute)``
    the plan resolved (``read``) from a resource the refresh read (``refreshed``), the value the plan used
    (``planned``: the state merged with the refresh) when the state records another one. Attributes that hold
    secrets (``secret_attributes``) are carried as the state's masked marker (a digest), never in clear."""
    out: dict[str, dict[str, Any]] = {}
    if state is None or not refreshed:
        return out
    for addr, name in sorted(read):
        recorded, live = state.resources.get(addr), planned.get(addr)
        if addr not in refreshed or recorded is None or live is None:
            continue
        value = live.attributes.get(name, _ABSENT)
        if value is _ABSENT or (name in recorded.attributes and _same(recorded.attributes[name], value)):
            continue
        hidden = secret_attributes(
            (*recorded.sensitive_attributes, *live.sensitive_attributes),
            recorded.sensitive_paths,
            {name: value},
        )
        out.setdefault(addr, {})[name] = mask(value, None) if name in hidden else value
    return out


def changed_since(
    carried: Mapping[str, Mapping[str, Any]], reread: Mapping[str, ResourceState | None]
) -> list[str]:
    """What the cloud says now that differs from what a saved plan's refresh read (``carried``), one line per
    attribute (a hidden value is not quoted), or per resource found gone."""
    lines: list[str] = []
    for addr, attrs in carried.items():
        live = reread.get(addr)
        if live is None:
            lines.append(f"{addr} no longer exists")
            continue
        for name, promised in attrs.items():
            now = live.attributes.get(name, _ABSENT)
            if is_masked(promised):
                if now is _ABSENT or not matches_masked(promised, now):
                    lines.append(f"{addr}.{name} (a hidden value) is not what the plan read")
            elif now is _ABSENT:
                lines.append(
                    f"{addr}.{name}: the plan read {_quoted(promised)}, the cloud no longer reports it"
                )
            elif not _same(promised, now):
                lines.append(f"{addr}.{name}: {_difference(promised, now)}")
    return lines


def read_again(
    state: StackState, carried: Mapping[str, Mapping[str, Any]], reader: DriverReader
) -> StackState:
    """``state`` with the attributes read again from the cloud for every resource a saved plan's refresh read
    (``carried``: ``Plan.refreshed_attributes``), once they are found to be what the plan read. Raises
    HotcError, before anything is applied, when a read fails or the cloud changed since the plan was made."""
    todo = [state.resources[a] for a in carried if a in state.resources]
    try:
        reread = reader.read_all(todo)
    except HotcError as exc:
        raise HotcError(
            f"the plan was made from a refresh, and reading the cloud again failed: {exc.message}; "
            "nothing was applied"
        ) from exc
    changed = changed_since(carried, reread)
    if changed:
        raise HotcError(
            "what the plan's refresh read changed in the cloud since the plan was made: "
            + "; ".join(changed)
            + ". Nothing was applied; make a new plan with 'hotc plan --refresh'"
        )
    out = state
    for addr, live in reread.items():
        rs = state.resources.get(addr)
        if rs is not None and live is not None and live.attributes != rs.attributes:
            out = out.with_resource(replace(rs, attributes=dict(live.attributes)))
    return out


def _same(a: Any, b: Any) -> bool:
    return a == b or canonical_json(a) == canonical_json(b)


def _difference(promised: Any, now: Any) -> str:
    """How ``now`` differs from ``promised``: the items a list gained and lost, the keys of a map that changed,
    else both values."""
    if isinstance(promised, list) and isinstance(now, list):
        was = {canonical_json(x) for x in promised}
        has = {canonical_json(x) for x in now}
        parts = [f"the plan read {len(promised)} item(s), the cloud now has {len(now)}"]
        added = [x for x in now if canonical_json(x) not in was]
        removed = [x for x in promised if canonical_json(x) not in has]
        if added:
            parts.append("added " + ", ".join(_quoted(x) for x in added))
        if removed:
            parts.append("removed " + ", ".join(_quoted(x) for x in removed))
        return "; ".join(parts) if added or removed else parts[0] + " (in another order)"
    if isinstance(promised, dict) and isinstance(now, dict):
        keys = sorted(
            {str(k) for k in (*promised, *now) if not _same(promised.get(k, _ABSENT), now.get(k, _ABSENT))}
        )
        shown = [
            f"{k}: {_quoted(promised.get(k))} -> {_quoted(now.get(k))}"
            if k in promised and k in now
            else f"{k}: {'added' if k in now else 'removed'}"
            for k in keys
        ]
        return "changed " + ", ".join(shown)
    return f"the plan read {_quoted(promised)}, the cloud now has {_quoted(now)}"


def _quoted(value: Any) -> str:
    text = canonical_json(value).decode()
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
