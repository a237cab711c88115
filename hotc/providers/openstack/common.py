"""Shared machinery of the OpenStack drivers: calls with retries, waits, look-ups, stamping, errors.

Every cloud call of a driver goes through :func:`call`, which retries on the errors a cloud throws when it is
busy (409 Conflict, 5xx, 429 rate limits, dropped connections) with exponential backoff, and turns what is left
into a :class:`ProviderError` carrying the cloud's own message. Waits poll with a deadline taken from the
action's timeout. Name-or-id look-ups accept what Heat accepts (a name or an id) and say clearly when the name
matches nothing or several things.
"""

from __future__ import annotations

import base64
import dataclasses
import random
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

from hotc.errors import HotcError
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.openstack.lookup_cache import LookupFiles, files_of
from hotc.providers.openstack.polling import Paced, Poll
from hotc.providers.shared_lookup import once

T = TypeVar("T")
U = TypeVar("U")

TAG_LINEAGE = "hotc-lineage"
TAG_ADDRESS = "hotc-address"

# Waits sleep between polls as hotc.providers.openstack.polling decides (adaptive).
# Retries of transient errors.
RETRY_ATTEMPTS = 6
RETRY_BASE = 0.5
RETRY_CAP = 8.0
CREATE_CONFLICT_RETRIES = 2


class ProviderError(HotcError):
    """A cloud call failed. ``status_code`` is the HTTP status when the cloud answered."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class NotFound(ProviderError):
    """The cloud says the thing does not exist (404), or a name look-up found nothing."""


class Ambiguous(ProviderError):
    """A name look-up found several things."""


# --------------------------------------------------------------------------------------------- time


def now() -> float:
    """The clock waits measure deadlines with (looked up at each call: tests replace this module's ``time``)."""
    return time.monotonic()


def pause(seconds: float) -> None:
    """Sleep between polls and retries (see :func:`now`)."""
    time.sleep(seconds)


# --------------------------------------------------------------------------------------------- errors


def status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "http_status"):
        code = getattr(exc, attr, None)
        if isinstance(code, int):
            return code
    resp = getattr(exc, "response", None)
    code = getattr(resp, "status_code", None)
    return code if isinstance(code, int) else None


def cloud_message(exc: BaseException) -> str:
    """The most useful text of an openstacksdk error: the cloud's own message when there is one."""
    details = getattr(exc, "details", None)
    text = str(details) if details else ""
    if not text:
        text = str(getattr(exc, "message", "") or exc)
    code = status_of(exc)
    return f"{text} (HTTP {code})" if code and str(code) not in text else text


def is_transient(exc: BaseException) -> bool:
    """Errors worth retrying: conflicts, rate limits, server errors, connection problems."""
    code = status_of(exc)
    if code is not None:
        return code in (409, 429) or code >= 500
    name = type(exc).__name__
    return name in ("ConnectionError", "ConnectTimeout", "ReadTimeout", "Timeout", "ConnectFailure")


def retry_after(exc: BaseException) -> float | None:
    """Seconds the cloud asked to wait (a ``Retry-After`` header of a 429/503), if it said."""
    resp = getattr(exc, "response", None)
    headers = getattr(resp, "headers", None) or {}
    value = headers.get("Retry-After") if hasattr(headers, "get") else None
    try:
        return min(float(value), 60.0) if value is not None else None
    except (TypeError, ValueError):
        return None


def translate(exc: BaseException, what: str) -> ProviderError:
    if isinstance(exc, ProviderError):
        return exc
    code = status_of(exc)
    cls = (
        NotFound
        if code == 404 or type(exc).__name__ in ("NotFoundException", "ResourceNotFound")
        else ProviderError
    )
    return cls(f"{what}: {cloud_message(exc)}", status_code=code)


def call(
    ctx: ActionContext | None,
    what: str,
    fn: Callable[..., T],
    *args: Any,
    attempts: int = RETRY_ATTEMPTS,
    retry_if: Callable[[BaseException], bool] = is_transient,
    sleep: Callable[[float], None] | None = None,
    **kwargs: Any,
) -> T:
    """``fn(*args, **kwargs)``, retried with backoff on transient errors; errors become ProviderError.

    Use it only for calls that are safe to repeat (reads, updates to a target value, deletes); creates go through
    :func:`create_once`, which re-reads before re-issuing.
    """
    delay = RETRY_BASE
    for attempt in range(1, attempts + 1):
        t0 = now()
        try:
            result = fn(*args, **kwargs)
        except HotcError:
            raise
        except Exception as exc:
            _told(ctx, now() - t0, exc)
            if attempt < attempts and retry_if(exc):
                wait = retry_after(exc) or delay * (0.75 + random.random() / 2)
                if ctx is not None:
                    ctx.log(f"{what}: {cloud_message(exc)}; retry {attempt}/{attempts - 1} in {wait:.1f}s")
                (sleep or pause)(wait)
                delay = min(delay * 2, RETRY_CAP)
                continue
            raise translate(exc, what) from exc
        _told(ctx, now() - t0, None)
        return result
    raise AssertionError("unreachable")


def _told(ctx: ActionContext | None, seconds: float, exc: BaseException | None) -> None:
    """Tell the run about a cloud call (``ActionContext.on_call``): how long it took and how it failed."""
    if ctx is not None:
        ctx.on_call(seconds, None if exc is None else (status_of(exc) or 0))


def create_once(
    ctx: ActionContext,
    what: str,
    create: Callable[[], T],
    find_existing: Callable[[], T | None],
    *,
    attempts: int = RETRY_ATTEMPTS,
    sleep: Callable[[float], None] | None = None,
) -> T:
    """Create, retrying transient errors; before each retry, look for what the failed attempt may have made
    (by the lineage/address stamp) and return that instead of making a second one."""
    delay = RETRY_BASE
    conflicts = 0
    for attempt in range(1, attempts + 1):
        t0 = now()
        try:
            made = create()
        except HotcError:
            raise
        except Exception as exc:
            _told(ctx, now() - t0, exc)
            conflicts += status_of(exc) == 409
            # a conflict on a create is mostly for good (address or port in use): retry it only twice
            if attempt < attempts and is_transient(exc) and conflicts <= CREATE_CONFLICT_RETRIES:
                ctx.log(f"{what}: {cloud_message(exc)}; retry {attempt}/{attempts - 1} in {delay:.1f}s")
                (sleep or pause)(delay * (0.75 + random.random() / 2))
                delay = min(delay * 2, RETRY_CAP)
                code = status_of(exc)
                if code is None or code >= 500:  # the request may have been carried out: look before retrying
                    try:
                        found = find_existing()
                    except Exception:
                        found = None
                    if found is not None:
                        ctx.log(f"{what}: found the resource the failed attempt made; using it")
                        return found
                continue
            raise translate(exc, what) from exc
        _told(ctx, now() - t0, None)
        return made
    raise AssertionError("unreachable")


def fresh_finder(
    ctx: ActionContext, what: str, list_matches: Callable[[], Iterable[Any]], *, unique: bool = False
) -> Callable[[], Any]:
    """A ``find_existing`` for :func:`create_once` that can only return something made after this call: it
    lists the matches now (before the create) and later returns the newest match that was not there then.
    So a replacement never mistakes the instance it replaces (same stamp, maybe same name) for its own.
    ``unique``: the matches are by a name made for this create (:func:`physical_name`'s random suffix), so
    nothing can match before it: no list call up front (one call less per create)."""
    if unique:
        return lambda: newest(list_matches())
    try:
        before = {str(r.id) for r in list_matches()}
    except Exception as exc:  # cannot tell old from new: then never adopt on a retry
        ctx.log(f"{what}: could not list existing matches ({cloud_message(exc)}); a retry will not adopt")
        return lambda: None
    return lambda: newest(r for r in list_matches() if str(r.id) not in before)


def ignore_missing(
    ctx: ActionContext | None, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> Any:
    """Like :func:`call`, but a 404 is success (returns None): deleting what is gone is done."""
    try:
        return call(ctx, what, fn, *args, **kwargs)
    except NotFound:
        return None


# --------------------------------------------------------------------------------------------- waits


def wait_for(
    ctx: ActionContext,
    what: str,
    get: Callable[[], Any],
    ready: Callable[[Any], bool],
    failed: Callable[[Any], str | None] = lambda _r: None,
    *,
    timeout: float | None = None,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
    paced: bool = False,
) -> Any:
    """Poll ``get()`` until ``ready(obj)``; ``failed(obj)`` returns a reason to stop with an error.
    ``get`` returning None means the thing vanished (an error unless ``ready(None)``). A ``get`` that paces
    itself (:class:`~hotc.providers.openstack.polling.Paced`, or ``paced``) is called again without a sleep."""
    paced = paced or isinstance(get, Paced)
    sleep = sleep or pause
    clock = clock or now
    limit = timeout if timeout is not None else (ctx.timeout or 600.0)
    deadline = clock() + limit
    poll = Poll(clock, getattr(ctx, "expected", None), getattr(ctx, "fastest", None))
    last: Any = None
    while True:
        t0 = clock()
        obj = call(ctx, what, get)
        poll.answered(clock() - t0)
        last = obj
        if ready(obj):
            return obj
        if obj is None:
            raise NotFound(f"{what}: the resource disappeared while waiting")
        reason = failed(obj)
        if reason:
            raise ProviderError(f"{what}: {reason}")
        if clock() >= deadline:
            raise ProviderError(
                f"{what}: timed out after {limit:.0f}s (last status: {describe_status(last)})"
            )
        if not paced:
            sleep(min(poll.interval(), max(0.0, deadline - clock())))


def beside(first: Callable[[], T], during: Callable[[], U], name: str = "hotc-beside") -> tuple[list[T], U]:
    """``during()``, with ``first()`` run at the same time in a thread (two round trips at once instead of one
    after the other). Returns ``([first's answer], during's answer)``, or ``([], during's answer)`` when
    ``first()`` failed: the caller then makes that call again where its error is raised and reported (an
    exception left in a thread would only be printed, as a traceback)."""
    box: list[T] = []

    def run() -> None:
        try:
            box.append(first())
        except Exception:  # noqa: BLE001 -- made again by the caller, which reports it
            pass

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    try:
        got = during()
    finally:
        thread.join()
    return box, got


def describe_status(obj: Any) -> str:
    if obj is None:
        return "gone"
    for attr in ("provisioning_status", "status"):
        val = getattr(obj, attr, None)
        if val:
            return str(val)
    return "?"


def wait_status(
    ctx: ActionContext,
    what: str,
    get: Callable[[], Any],
    target: str | Iterable[str],
    failures: Iterable[str] = ("ERROR",),
    *,
    attr: str = "status",
    timeout: float | None = None,
    fault: Callable[[Any], str] = lambda _o: "",
) -> Any:
    targets = {target.upper()} if isinstance(target, str) else {t.upper() for t in target}
    fails = {f.upper() for f in failures}

    def status(o: Any) -> str:
        return str(getattr(o, attr, "") or "").upper()

    def failed(o: Any) -> str | None:
        if status(o) in fails:
            extra = fault(o)
            return f"went to {status(o)}" + (f": {extra}" if extra else "")
        return None

    return wait_for(ctx, what, get, lambda o: o is not None and status(o) in targets, failed, timeout=timeout)


def wait_gone(
    ctx: ActionContext,
    what: str,
    get: Callable[[], Any],
    *,
    failures: Iterable[str] = (),
    attr: str = "status",
    timeout: float | None = None,
) -> None:
    """Wait until ``get()`` returns None (or raises NotFound)."""
    fails = {f.upper() for f in failures}

    def safe_get() -> Any:
        try:
            return get()
        except NotFound:
            return None
        except Exception as exc:
            if status_of(exc) == 404 or type(exc).__name__ in ("NotFoundException", "ResourceNotFound"):
                return None
            raise

    def failed(o: Any) -> str | None:
        st = str(getattr(o, attr, "") or "").upper()
        return f"deletion failed: status {st}" if st in fails else None

    wait_for(ctx, what, safe_get, lambda o: o is None, failed, timeout=timeout, paced=isinstance(get, Paced))


# --------------------------------------------------------------------------------------------- stamping


def stamp(ctx: ActionContext) -> dict[str, str]:
    """The lineage/address stamp as a metadata map."""
    out = {TAG_LINEAGE: ctx.lineage, TAG_ADDRESS: ctx.address}
    out.update({k: v for k, v in ctx.tags.items() if isinstance(v, str)})
    return out


def base_address(stamped: Any) -> str:
    """The address part of an address stamp (a replacement instance is stamped ``address@nonce``)."""
    return str(stamped or "").split("@", 1)[0]


def stamp_tags(ctx: ActionContext) -> list[str]:
    """The stamp as a list of ``key=value`` tags (Neutron, Octavia, Glance)."""
    return [f"{k}={v}" for k, v in sorted(stamp(ctx).items())]


def merge_tags(ctx: ActionContext, user: Iterable[str] | None) -> list[str]:
    tags = [str(t) for t in (user or [])]
    for t in stamp_tags(ctx):
        if t not in tags:
            tags.append(t)
    return tags


def user_tags(tags: Iterable[str] | None) -> list[str]:
    """Tags without hotc's own stamp."""
    return [
        t for t in (tags or []) if not (t.startswith(TAG_LINEAGE + "=") or t.startswith(TAG_ADDRESS + "="))
    ]


def merge_metadata(ctx: ActionContext, user: Mapping[str, Any] | None) -> dict[str, str]:
    md = {str(k): v if isinstance(v, str) else str(v) for k, v in (user or {}).items()}
    md.update(stamp(ctx))
    return md


def user_metadata(md: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (md or {}).items() if k not in (TAG_LINEAGE, TAG_ADDRESS)}


def has_stamp(
    ctx: ActionContext, tags: Iterable[str] | None = None, metadata: Mapping[str, Any] | None = None
) -> bool:
    """Whether a resource carries this action's whole stamp (lineage, address and any other tag the caller
    stamps, e.g. a per-instance one that tells a replacement from the instance it replaces)."""
    want = stamp(ctx)
    if tags is not None:
        have = set(tags)
        return all(f"{k}={v}" in have for k, v in want.items())
    if metadata is not None:
        return all(metadata.get(k) == v for k, v in want.items())
    return False


def newest(items: Iterable[Any]) -> Any:
    """The most recently created of several matches (a replacement's new instance, not the old one)."""
    found = list(items)
    if not found:
        return None
    return max(found, key=lambda r: str(getattr(r, "created_at", "") or ""))


_NAME_BAD = re.compile(r"[^A-Za-z0-9_.-]+")


def physical_name(ctx: ActionContext, given: Any = None, limit: int = 255) -> str:
    """The name to give a cloud resource: the template's, or Heat-style ``<stack>-<address>-<random>``."""
    if given not in (None, ""):
        return str(given)
    short = uuid.uuid4().hex[:12]
    return f"{_name_base(ctx, limit)}-{short}"


def _name_base(ctx: ActionContext, limit: int = 255) -> str:
    base = _NAME_BAD.sub("-", f"{ctx.stack_name}-{ctx.address}").strip("-")
    if len(base) + 13 > limit:
        keep = limit - 13 - 3
        base = f"{base[:2]}-{base[-keep:]}"
    return base


def generated_name_base(ctx: ActionContext, limit: int = 255) -> str:
    """What every name :func:`physical_name` generates for this stack and address starts with."""
    return _name_base(ctx, limit)


def stack_name_prefix(ctx: ActionContext) -> str:
    """``<stack>-``: the start of the names :func:`physical_name` generates for this stack's resources (unless
    shortened to fit a limit)."""
    return f"{_NAME_BAD.sub('-', ctx.stack_name)}-"


def is_generated_name(ctx: ActionContext, name: str | None, limit: int = 255) -> bool:
    """Whether NAME is one :func:`physical_name` makes for this stack and address, or the one another tool
    generated for this very object (``ctx.generated_name``: Heat's, for a stack taken over from Heat)."""
    if not name:
        return False
    if ctx.generated_name is not None and name == ctx.generated_name:
        return True
    base = _name_base(ctx, limit)
    return bool(re.fullmatch(re.escape(base) + r"-[0-9a-f]{12}", name))


# --------------------------------------------------------------------------------------------- values


def plain(value: Any) -> Any:
    """A JSON-serialisable copy of a value from openstacksdk (resources, munches, tuples)."""
    if hasattr(value, "to_dict") and callable(value.to_dict):
        try:
            value = value.to_dict(original_names=True)
        except TypeError:
            value = value.to_dict()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items() if k != "location"}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return str(value)


def show(resource: Any) -> dict[str, Any]:
    """The API representation of a resource (server-side attribute names), for the ``show`` attribute."""
    out = plain(resource)
    return out if isinstance(out, dict) else {}


def outcome(resource: Any, attributes: Mapping[str, Any], physical_id: str | None = None) -> Outcome:
    attrs = dict(attributes)
    attrs["show"] = show(resource)
    return Outcome(physical_id or resource.id, attrs)


def props_get(props: Mapping[str, Any], *names: str) -> Any:
    """The first of several (Heat name, hidden legacy alias) properties that has a value."""
    for n in names:
        v = props.get(n)
        if v is not None and v != "":
            return v
    return None


# --------------------------------------------------------------------------------------------- look-ups


_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")


def lookup(
    ctx: ActionContext | None,
    kind: str,
    name_or_id: Any,
    get: Callable[[str], Any],
    by_name: Callable[[str], Iterable[Any]],
    *,
    shared: dict[Any, Any] | None = None,
    conn: Any = None,
) -> Any:
    """Find one resource by id or by name, as Heat does: an id first, then an exact name that must be unique.
    Catalog answers (:func:`_catalog`) are kept in ``shared``, else in ``ctx.lookups`` (the run's). ``conn``:
    the connection, whose look-up cache between processes (:mod:`hotc.providers.openstack.lookup_cache`) is
    read first and given what is found."""
    if name_or_id is None or name_or_id == "":
        raise ProviderError(f"no {kind} given")
    value = str(name_or_id)
    if shared is None:
        shared = getattr(ctx, "lookups", None)
    files = None if conn is None else files_of(conn)
    if shared is not None and kind in CATALOG_KINDS:
        # parallel actions that miss the same flavor or image at once (a group's members) ask the cloud once
        return once(shared, (kind, value), lambda: _kept_or_looked_up(ctx, kind, value, get, by_name, files))
    if shared is not None and (kind, value) in shared:
        return shared[(kind, value)]
    found = _kept_or_looked_up(ctx, kind, value, get, by_name, files)
    if shared is not None and _catalog(kind, found):
        shared[(kind, value)] = found
    return found


CATALOG_KINDS = frozenset({"flavor", "image"})

_MADE = "hotc.made ids"  # ctx.lookups[(_MADE, kind)]: the ids of the objects of that kind this run created


def remember_made(ctx: ActionContext, kind: str, oid: Any) -> None:
    """Note that this run created the ``kind`` object ``oid`` (see :func:`made_or_found_id`)."""
    shared = getattr(ctx, "lookups", None)
    if isinstance(shared, dict) and oid:
        made: set[str] = shared.setdefault((_MADE, kind), set())  # setdefault and add are atomic on the GIL
        made.add(str(oid))


def made_in_run(ctx: ActionContext | None, kind: str, oid: Any) -> bool:
    """Whether this run created the ``kind`` object ``oid`` (:func:`remember_made`)."""
    shared = getattr(ctx, "lookups", None)
    return isinstance(shared, dict) and oid is not None and str(oid) in shared.get((_MADE, kind), ())


def made_or_found_id(
    ctx: ActionContext | None,
    conn: Any,
    kind: str,
    value: Any,
    find: Callable[[ActionContext | None, Any, Any], Any],
) -> str:
    """The id of the ``kind`` object ``value`` names, for a request body that needs only the id: ``value``
    itself when it is the id of an object this run created (a ``get_resource`` of a resource made earlier in the
    run: it exists, and a look-up would be a round trip on the create's path for nothing), else the id of what
    ``find(ctx, conn, value)`` finds (by id or name, as Heat). An object gone since is refused by the request
    that names it, as it would be a moment after a look-up."""
    if made_in_run(ctx, kind, value):
        return str(value)
    return str(find(ctx, conn, value).id)


def catalog_of(conn: Any) -> dict[Any, Any] | None:
    """The catalog look-ups kept on a connection (``hotc.providers.openstack.auth.CloudFactory``), also through
    a view that wraps the connection's attributes (the plan's memoising view keeps the wrapped one as
    ``_target``); None when the connection keeps none."""
    found = getattr(conn, "_hotc_catalog", None)
    found = getattr(found, "_target", found)
    return found if isinstance(found, dict) else None


def _catalog(kind: str, found: Any) -> bool:
    """Whether a look-up's answer may be shared by the run's actions: flavors and images, and networks that are
    shared or external (what templates name, and what stacks seldom make and replace within one run)."""
    if kind in CATALOG_KINDS:
        return True
    return kind == "network" and bool(
        getattr(found, "is_router_external", False) or getattr(found, "is_shared", False)
    )


def _kept_or_looked_up(
    ctx: ActionContext | None,
    kind: str,
    value: str,
    get: Callable[[str], Any],
    by_name: Callable[[str], Iterable[Any]],
    files: LookupFiles | None,
) -> Any:
    """What the look-up cache between processes keeps for the query (the plan-time checks, without an action
    context, read any record; actions only catalog ones), else :func:`_lookup`'s answer, then kept there."""
    if files is None:
        return _lookup(ctx, kind, value, get, by_name)
    kept = files.load(kind, value, catalog_only=ctx is not None)
    if kept is not None:
        return kept
    found = _lookup(ctx, kind, value, get, by_name)  # not found, ambiguous: raised, and never kept
    files.save(kind, value, found, catalog=_catalog(kind, found))
    return found


def _lookup(
    ctx: ActionContext | None,
    kind: str,
    value: str,
    get: Callable[[str], Any],
    by_name: Callable[[str], Iterable[Any]],
) -> Any:
    try:
        found = call(ctx, f"look up {kind} {value!r}", get, value)
        if found is not None:
            return found
    except NotFound:
        pass
    except ProviderError as exc:
        if exc.status_code not in (400, 404):
            raise
    matches = [
        m for m in call(ctx, f"look up {kind} {value!r}", lambda: list(by_name(value))) if m.name == value
    ]
    if not matches:
        raise NotFound(f"{kind} {value!r} not found (neither an id nor the name of one)")
    if len(matches) > 1:
        ids = ", ".join(sorted(m.id for m in matches))
        raise Ambiguous(f"{kind} name {value!r} is ambiguous: {len(matches)} match ({ids}); use an id")
    return matches[0]


def get_or_none(
    ctx: ActionContext | None, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> Any:
    """``fn(...)`` or None when the cloud says 404."""
    try:
        return call(ctx, what, fn, *args, **kwargs)
    except NotFound:
        return None


class _Reads(Protocol):
    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None: ...


def read_back(
    driver: _Reads, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], gone: str
) -> Outcome:
    """What ``driver`` reads of an object it has just made or changed; :class:`NotFound` saying ``gone`` when
    the object is not there any more."""
    out = driver.read(ctx, physical_id, props)
    if out is None:
        raise NotFound(gone)
    return out


def adopt_by_generated_name(
    ctx: ActionContext,
    props: Mapping[str, Any],
    what: str,
    listed: Callable[[], Iterable[Any]],
    limit: int = 255,
) -> str | None:
    """The id of the one object of a kind that carries no stamp of hotc's and has the name hotc generated for
    this stack and address (a killed run's create), leaving out the objects the state records (an old instance
    that a replacement deposed still has this address's generated name until it is deleted). None when the
    template gives the name: a given name is no evidence that the object is hotc's, so it is never adopted on
    that ground."""
    if props.get("name"):
        return None
    found = [
        o
        for o in call(ctx, f"list {what}", lambda: list(listed()))
        if is_generated_name(ctx, o.name, limit) and not ctx.recorded(str(o.id))
    ]
    return str(found[0].id) if len(found) == 1 else None


# --------------------------------------------------------------------------------------------- defaults


class Defaulted:
    """A driver seen through its type's schema: every property map it receives gets Heat's defaults filled in
    and hidden legacy names moved to their current names (``hotc.providers.validation.apply_defaults``), so the
    driver behaves the same whether or not its caller applied them already (applying them twice is harmless)."""

    def __init__(self, type_name: str, inner: Any) -> None:
        self.type_name = type_name
        self.inner = inner

    def _d(self, props: Mapping[str, Any]) -> Mapping[str, Any]:
        # lazy: hotc check loads the drivers, not the schema registry nor the parser (test_startup_imports)
        from hotc.providers.registry import get_schema
        from hotc.providers.validation import apply_defaults

        rtype = get_schema(self.type_name)
        return props if rtype is None else apply_defaults(rtype, props)

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        return _applied(self.inner.create(ctx, self._d(props)))

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        defaulted = self._d(props)
        out: Outcome | None = self.inner.read(ctx, physical_id, defaulted)
        return None if out is None else _written(out, props, defaulted)

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        old_d, new_d = self._d(old), self._d(new)
        return _applied(self.inner.update(ctx, physical_id, old_d, new_d, changed))

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        self.inner.delete(ctx, physical_id, self._d(props), policy=policy)

    def read_many(self, items: Iterable[tuple[ActionContext, str, Mapping[str, Any]]]) -> dict[str, Outcome]:
        """Outcomes by physical id of the resources one list call found (``batch.ListRead``); empty for a driver
        that reads one by one only. The caller reads the others with :meth:`read`."""
        fn = getattr(self.inner, "read_many", None)
        if not callable(fn):
            return {}
        given = {pid: (props, self._d(props)) for _c, pid, props in items}
        found = fn([(c, pid, given[pid][1]) for c, pid, _props in items])
        return {pid: _written(out, *given[pid]) for pid, out in found.items()}

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return self.inner.find_adoptable(ctx, self._d(props))  # type: ignore[no-any-return]

    def prepare_for_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> bool:
        fn = getattr(self.inner, "prepare_for_replace", None)
        return bool(fn(ctx, physical_id, self._d(old), self._d(new))) if callable(fn) else False

    def restore_after_failed_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        fn = getattr(self.inner, "restore_after_failed_replace", None)
        if callable(fn):
            fn(ctx, physical_id, self._d(old), self._d(new))

    def __getattr__(self, name: str) -> Any:  # extra lifecycle methods (suspend/resume…) of the inner driver
        return getattr(self.inner, name)


def _written(out: Outcome, recorded: Mapping[str, Any], defaulted: Mapping[str, Any]) -> Outcome:
    """A read's live properties written as the template wrote them (``live.as_written``)."""
    # cycle: hotc.providers.openstack.live imports this module (ProviderError)
    from hotc.providers.openstack.live import as_written

    if out.properties is None:
        return out
    return dataclasses.replace(out, properties=as_written(recorded, defaulted, out.properties))


def _applied(out: Outcome) -> Outcome:
    """A create's or update's outcome records the properties it was given: the live properties a driver's read
    reports (when a create ends with a read) are for refreshes only."""
    return dataclasses.replace(out, properties=None) if out.properties is not None else out


def with_defaults(drivers: Mapping[str, Any]) -> dict[str, Any]:
    return {name: Defaulted(name, d) for name, d in drivers.items()}


def settle(
    ctx: ActionContext, what: str, obj: Any, get: Callable[[], Any], busy: Callable[[Any], bool]
) -> Any:
    """OBJ, or — when it is still busy (a create or update in progress, e.g. one a killed run started) — the
    object once it is not, so that reading never reports a half-made resource. Returns None if it vanished."""
    if obj is None or not busy(obj):
        return obj

    def safe_get() -> Any:
        try:
            return get()
        except Exception as exc:
            if status_of(exc) == 404 or type(exc).__name__ in ("NotFoundException", "ResourceNotFound"):
                return None
            raise

    return wait_for(ctx, f"{what}: wait while it is busy", safe_get, lambda o: o is None or not busy(o))


_K = TypeVar("_K")
_V = TypeVar("_V")

#: how many independent reads :func:`all_at_once` makes at the same time
READERS = 8


def all_at_once(calls: Mapping[_K, Callable[[], _V]]) -> dict[_K, _V]:
    """Each call's answer, in the calls' order, :data:`READERS` calls at a time (they are independent reads);
    the first failure is raised and the calls not started yet are dropped."""
    if len(calls) <= 1:
        return {k: f() for k, f in calls.items()}
    with ThreadPoolExecutor(max_workers=min(READERS, len(calls)), thread_name_prefix="hotc-read") as pool:
        futures = {k: pool.submit(f) for k, f in calls.items()}
        try:
            return {k: f.result() for k, f in futures.items()}
        finally:
            for f in futures.values():
                f.cancel()
