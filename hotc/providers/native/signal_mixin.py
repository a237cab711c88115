"""Shared mechanics of the signal types (wait-condition handles and conditions, Swift signals, deployments).

A *handle* is one private object in the signal store (:mod:`hotc.state.signal_store`) plus a presigned PUT URL
to it, which the instance uses with plain curl. Every PUT to a versioned bucket is kept, so several signals to
one handle are all read back, oldest first. A *waiter* polls the store until enough signals arrived, one says
FAILURE, the timeout passes or the run is interrupted, and logs its progress
("2 of 3 signals, 40 s of 600 s").

The presigned URL is a credential: every attribute that holds it is listed in ``Outcome.sensitive_attributes``
(masked in plans and outputs, encrypted in the state) and never written to a log line or an event.
"""

from __future__ import annotations

import json
import re
import shlex
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.model import model
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.deployment_group_mixin import pending_member_key

SUCCESS = "SUCCESS"
FAILURE = "FAILURE"
KEY_ATTR = "hotc:signal_key"  # where a handle records its object's key (not a credential)
HANDLES = "handles"


@model
class Signal:
    """One signal as Heat keeps it: ``id`` (a string), status SUCCESS/FAILURE, reason, data."""

    id: str
    status: str
    reason: str
    data: Any


def curl_put(url: str) -> str:
    """A curl command prefix that PUTs to ``url`` (a presigned URL: the method is part of the signature, so it
    must be PUT; the content type is not signed, so any is accepted). Templates append ``--data-binary '{…}'``."""
    return f"curl -i -X PUT -H 'Content-Type: application/json' {shlex.quote(url)}"


def _decode(raw: bytes) -> Any:
    text = raw.decode("utf-8", "replace").strip()
    if not text:
        return {}
    return json.loads(text)


def heat_signals(bodies: list[bytes], log: Callable[[str], None]) -> dict[str, Signal]:
    """Signals of an OS::Heat::WaitConditionHandle, as Heat's ``handle_signal``: every key is optional
    (signal N defaults to id N, status SUCCESS, reason ``Signal N received``, data null); anything else but
    those four keys, or a status other than SUCCESS/FAILURE, is refused ("Metadata format invalid") and does
    not count; a signal reusing an id replaces the earlier one."""
    out: dict[str, Signal] = {}
    for i, raw in enumerate(bodies, 1):
        try:
            body = _decode(raw)
        except ValueError:
            log(f"signal {i} ignored: its body is not JSON")
            continue
        if not isinstance(body, dict):
            log(f"signal {i} ignored: its body is not a JSON object")
            continue
        n = len(out) + 1
        body.setdefault("reason", f"Signal {n} received")
        body.setdefault("data", None)
        body.setdefault("id", n)
        body.setdefault("status", SUCCESS)
        if set(body) != {"data", "reason", "status", "id"} or body["status"] not in (SUCCESS, FAILURE):
            log(f"signal {i} ignored: Metadata format invalid (keys: status, reason, data, id)")
            continue
        sid = str(body["id"])
        out[sid] = Signal(sid, body["status"], str(body["reason"]), body["data"])
    return out


def aws_signals(bodies: list[bytes], log: Callable[[str], None]) -> dict[str, Signal]:
    """Signals of an AWS::CloudFormation::WaitConditionHandle: exactly the keys Status, Reason, UniqueId and
    Data, status SUCCESS or FAILURE (else "Metadata format invalid"); keyed by UniqueId."""
    out: dict[str, Signal] = {}
    for i, raw in enumerate(bodies, 1):
        try:
            body = _decode(raw)
        except ValueError:
            log(f"signal {i} ignored: its body is not JSON")
            continue
        if (
            not isinstance(body, dict)
            or sorted(body) != ["Data", "Reason", "Status", "UniqueId"]
            or body["Status"] not in (SUCCESS, FAILURE)
        ):
            log(f"signal {i} ignored: Metadata format invalid (keys: Status, Reason, UniqueId, Data)")
            continue
        sid = str(body["UniqueId"])
        out[sid] = Signal(sid, body["Status"], str(body["Reason"]), body["Data"])
    return out


def swift_signals(bodies: list[bytes], log: Callable[[str], None]) -> dict[str, Signal]:
    """Signals of an OS::Heat::SwiftSignalHandle, as Heat's SwiftSignal reads its objects: an empty body is
    ``{}``, other keys are allowed, defaults by position; a body that is not JSON or a status other than
    SUCCESS/FAILURE fails the wait (HotcError)."""
    out: dict[str, Signal] = {}
    for i, raw in enumerate(bodies, 1):
        try:
            body = _decode(raw)
        except ValueError:
            raise HotcError(f"Failed to parse JSON data: {raw[:200]!r}") from None
        if not isinstance(body, dict):
            raise HotcError(f"Failed to parse JSON data: {raw[:200]!r}")
        sid = str(body.get("id", i))
        status = body.get("status", SUCCESS)
        if status not in (SUCCESS, FAILURE):
            raise HotcError(f"Unknown status: {status}")
        out[sid] = Signal(sid, status, str(body.get("reason", f"Signal {sid} received")), body.get("data"))
    return out


def data_of(signals: Mapping[str, Signal]) -> str:
    """The ``data`` attribute Heat gives: a JSON object of signal id to its data."""
    return json.dumps({s.id: s.data for s in signals.values()})


# ------------------------------------------------------------------------------------------------ handles


class SignalHandleMixin:
    """Create/read/update/delete of a handle: a fresh object key, a presigned PUT URL to it. Subclasses say
    which attributes carry the URL (:meth:`url_attributes`) and whether ``get_resource`` gives one of them."""

    reference: str | None = None  # the attribute get_resource gives instead of the id (AWS, Swift: the URL)

    def url_attributes(self, url: str, props: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def secret_names(self) -> tuple[str, ...]:
        raise NotImplementedError

    def needs_store(self, props: Mapping[str, Any]) -> bool:
        return True

    def _outcome(self, pid: str, attrs: Mapping[str, Any]) -> Outcome:
        return Outcome(
            pid, attrs, sensitive_attributes=self.secret_names(), reference_attribute=self.reference
        )

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        pid = str(uuid.uuid4())
        if not self.needs_store(props):
            return self._outcome(pid, self.url_attributes("", props))
        store = ctx.signals()
        key = store.key(ctx.stack_name, HANDLES, pid)
        url = store.presign(key, "PUT")
        ctx.record_physical_id(pid)
        return self._outcome(pid, {KEY_ATTR: key, **self.url_attributes(url, props)})

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        """What the state recorded, which is Heat's read too: a handle's attributes (``token``, ``endpoint``,
        ``curl_cli``, ``signal``; a Swift handle's ``endpoint`` and ``curl_cli``) are ``CACHE_NONE`` in Heat but
        computed from ``self.data()``, the resource data Heat wrote when it made the handle's credentials or
        temp URL; no service is asked. Here the URL was presigned at create and lives only in the state
        (presigning again would give another URL), so the read keeps it. The waiters' ``data`` is read live."""
        return self._outcome(physical_id, {})

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        return self._outcome(physical_id, {})

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        if not self.needs_store(props):
            return
        store = ctx.signals()
        store.delete_all(store.key(ctx.stack_name, HANDLES, physical_id))

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None


# ------------------------------------------------------------------------------------------------ waiting

Reader = Callable[[], Mapping[str, Signal]]


def wait_for_signals(
    ctx: ActionContext,
    read: Reader,
    count: int,
    timeout: float,
    name: str,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Signal]:
    """Poll ``read`` until ``count`` signals arrived (returns them), one is a FAILURE (raises
    ``WaitConditionFailure`` with the failure reasons joined by ``;``), ``timeout`` seconds pass (raises
    ``WaitConditionTimeout``: "N of COUNT received - REASONS") or the run is interrupted. Logs progress
    when the number of signals changes and every 30 seconds."""
    start = clock()
    last_logged = -1.0
    last_n = -1
    delay = 0.5
    ctx.log(f"waiting for {count} signal{'s' if count != 1 else ''} (timeout {timeout:g} s)")
    while True:
        signals = dict(read())
        elapsed = clock() - start
        failures = [s.reason for s in signals.values() if s.status != SUCCESS]
        if failures:
            raise HotcError(f"WaitConditionFailure: resources.{name}: {';'.join(failures)}")
        if len(signals) >= count:
            ctx.log(f"{len(signals)} of {count} signals, {elapsed:.0f} s of {timeout:g} s: done")
            return signals
        if elapsed >= timeout:
            reasons = ";".join(s.reason for s in signals.values() if s.status == SUCCESS)
            raise HotcError(
                f"WaitConditionTimeout: resources.{name}: {len(signals)} of {count} received"
                + (f" - {reasons}" if reasons else "")
            )
        if ctx.cancelled():
            raise HotcError(
                f"interrupted while waiting for signals: {len(signals)} of {count} received after {elapsed:.0f} s"
            )
        if len(signals) != last_n or elapsed - last_logged >= 30:
            ctx.log(f"{len(signals)} of {count} signals, {elapsed:.0f} s of {timeout:g} s")
            last_n, last_logged = len(signals), elapsed
        sleep(max(0.0, min(delay, timeout - elapsed)))
        delay = min(delay * 1.5, 5.0)


class SignalWaitMixin:
    """Create/update of a waiter (WaitCondition, SwiftSignal): find the handle's object, wait for the signals,
    expose ``data``. Subclasses give the property names, the handle look-up and the signal format."""

    handle_prop = "handle"
    timeout_prop = "timeout"
    count_prop = "count"
    data_attr = "data"

    def parse(self, bodies: list[bytes], log: Callable[[str], None]) -> dict[str, Signal]:
        raise NotImplementedError

    def handle_key(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """The store key of the handle's object; None when the handle needs no signal (NO_SIGNAL)."""
        handle = props.get(self.handle_prop)
        lookup = getattr(ctx, "lookup", None)
        rs = lookup(str(handle)) if lookup is not None and handle is not None else None
        if rs is not None:
            if (rs.properties or {}).get("signal_transport") == "NO_SIGNAL":
                return None
            key = (rs.attributes or {}).get(KEY_ATTR)
            if isinstance(key, str) and key:
                return key
        store = ctx.signals()
        key = store.key_of_url(str(handle)) if handle is not None else None
        if key is None:
            raise HotcError(
                f"{self.handle_prop}: not a signal handle of this stack (give it with get_resource of a "
                "wait-condition or Swift signal handle)"
            )
        return str(key)

    def _reader(self, ctx: ActionContext, key: str | None, count: int) -> Reader:
        if key is None:  # NO_SIGNAL: Heat adds one empty signal per poll
            none = heat_signals([b"{}"] * count, ctx.log)
            return lambda: none
        store = ctx.signals()
        seen: set[str] = set()

        def log_once(msg: str) -> None:
            if msg not in seen:
                seen.add(msg)
                ctx.log(msg)

        return lambda: self.parse(store.versions(key), log_once)

    def _wait(self, ctx: ActionContext, pid: str, props: Mapping[str, Any]) -> Outcome:
        count = int(props.get(self.count_prop) or 1)
        timeout = float(props.get(self.timeout_prop) or 0)
        key = self.handle_key(ctx, props)
        name = ctx.address.rsplit(".", 1)[-1]
        signals = wait_for_signals(ctx, self._reader(ctx, key, count), count, timeout, name)
        return Outcome(pid, {self.data_attr: data_of(signals)})

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        pid = str(uuid.uuid4())
        ctx.record_physical_id(pid)
        return self._wait(ctx, pid, props)

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # Heat restarts the wait on update (the signals received so far still count)
        return self._wait(ctx, physical_id, new)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        count = int(props.get(self.count_prop) or 1)
        key = self.handle_key(ctx, props)
        return Outcome(physical_id, {self.data_attr: data_of(self._reader(ctx, key, count)())})

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        return None

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None


# --------------------------------------------------------------------------------------- hotc signal

HANDLE_TYPES = frozenset(
    {
        "OS::Heat::WaitConditionHandle",
        "OS::Heat::SwiftSignalHandle",
        "AWS::CloudFormation::WaitConditionHandle",
        "OS::Heat::UpdateWaitConditionHandle",
    }
)
WAITER_HANDLE_PROPS: Mapping[str, str] = {
    "OS::Heat::WaitCondition": "handle",
    "OS::Heat::SwiftSignal": "handle",
    "AWS::CloudFormation::WaitCondition": "Handle",
}


DEPLOYMENT_TYPES = frozenset({"OS::Heat::SoftwareDeployment", "OS::Heat::StructuredDeployment"})
DEPLOYMENT_GROUP_TYPES = frozenset(
    {
        "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::StructuredDeploymentGroup",
        "OS::Heat::SoftwareDeployments",
        "OS::Heat::StructuredDeployments",
    }
)


def signal_key(resources: Mapping[str, Any], address: str, store: Any, stack: str = "") -> str:
    """The store key ``hotc signal STACK ADDRESS`` writes to: the handle's object for a handle, or for a wait
    condition / Swift signal, its handle's. Raises HotcError naming what ADDRESS can be."""
    rs = resources.get(address)
    member = re.fullmatch(r"(.+)\[([^\]]+)\]", address)
    if rs is None and member is not None and member.group(1) in resources:
        group = resources[member.group(1)]
        if group.type in DEPLOYMENT_GROUP_TYPES:
            if group.physical_id is None:
                raise HotcError(f"{member.group(1)} has not been created yet")
            found = pending_member_key(store, stack, str(group.physical_id), member.group(2))
            if found is None:
                raise HotcError(
                    f"{address} is not waiting for a signal (no apply is running an action of member "
                    f"{member.group(2)!r} of {member.group(1)})"
                )
            return found
    if rs is not None and rs.type in DEPLOYMENT_GROUP_TYPES:
        raise HotcError(f"{address} is a {rs.type}: signal one of its members, {address}[NAME]")
    if rs is None:
        raise HotcError(f"{address}: no such resource in the state (see 'hotc resource list')")
    if rs.type in WAITER_HANDLE_PROPS:
        handle = (rs.properties or {}).get(WAITER_HANDLE_PROPS[rs.type])
        for other in resources.values():
            if other.physical_id is not None and other.physical_id == handle and other.type in HANDLE_TYPES:
                return signal_key(resources, other.address, store, stack)
        key = store.key_of_url(str(handle)) if isinstance(handle, str) else None
        if key is None:
            raise HotcError(f"{address}: its handle is not a signal handle of this stack")
        return str(key)
    if rs.type in DEPLOYMENT_TYPES:
        if rs.physical_id is None:
            raise HotcError(f"{address} has not been created yet")
        raw = store.get(store.key(stack, "deployments", f"{rs.physical_id}/pending"))
        if not raw:
            raise HotcError(f"{address} is not waiting for a signal (no apply is running one of its actions)")
        return str(raw.decode())
    if rs.type not in HANDLE_TYPES:
        raise HotcError(
            f"{address} is a {rs.type}: hotc signal sends to a wait-condition handle, a wait condition, a "
            "Swift signal, a software deployment or a scaling policy"
        )
    if rs.physical_id is None:
        raise HotcError(f"{address} has not been created yet")
    if (rs.properties or {}).get("signal_transport") == "NO_SIGNAL":
        raise HotcError(f"{address} has signal_transport NO_SIGNAL: it takes no signals")
    key = (rs.attributes or {}).get(KEY_ATTR)
    if not isinstance(key, str) or not key:
        raise HotcError(f"{address}: the state records no signal object for it")
    return key
