"""Shared mechanics of the deployment groups (OS::Heat::SoftwareDeploymentGroup, StructuredDeploymentGroup and
their deprecated aliases SoftwareDeployments, StructuredDeployments).

Heat makes a group a nested stack with one SoftwareDeployment (or StructuredDeployment) per entry of the
``servers`` map: the member is named after the map's key, its ``server`` is the entry's value, its other
properties are the group's. hotc runs those members inside the group's own create/update/delete (all at once,
or in the batches of the group's update_policy: ``batch_create`` on create, ``rolling_update`` for the members an
update changes), with the member deployment's mechanics (:mod:`hotc.providers.native.deployment_mixin`): each member publishes
its derived config (``deploy_resource_name`` = the key) into its server's metadata and waits for that server's
signal. An update does what Heat's nested-stack update does to the members: a key added is created (CREATE), a
key removed is deleted (its DELETE action), a member whose properties changed is updated (UPDATE), or replaced
(created anew, then the old one deleted) when an input declared ``replace_on_change`` changed; an unchanged
member is left alone. The group's attributes are maps of key to the member's attribute: ``deploy_stdouts``,
``deploy_stderrs``, ``deploy_status_codes``, and, for any other name (a declared output of the config, or
``deploy_stdout``), that attribute of every member.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from hotc.errors import HotcError
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.deployment_mixin import OUTPUT_ATTRS, DeploymentMixin
from hotc.providers.schemas.heat import deployment_input_replace

MEMBERS_ATTR = "hotc:members"  # key -> member id (the object prefix of its signals; not a credential)
GROUP_ATTRS = {"deploy_stdouts": "deploy_stdout", "deploy_stderrs": "deploy_stderr",
               "deploy_status_codes": "deploy_status_code"}  # fmt: skip
MAX_PARALLEL = 16


def pause_interrupted(ctx: ActionContext, seconds: float) -> bool:
    """Wait ``seconds``, or less when the run is asked to stop (then True)."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if ctx.cancelled():
            return True
        time.sleep(min(0.2, left))
    return ctx.cancelled()


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)


def member_id(gid: str, key: str) -> str:
    """A new member's id: ``GROUP/KEY-HEX`` (the prefix of its signal objects, so ``hotc signal STACK
    GROUP[KEY]`` finds the action it waits on)."""
    return f"{gid}/{_safe(key)}-{uuid.uuid4().hex}"


def pending_member_key(store: Any, stack: str, gid: str, key: str) -> str | None:
    """The signal object the member ``key`` of the group ``gid`` waits on now (None: it waits on nothing)."""
    prefix = store.key(stack, "deployments", gid) + "/"
    pattern = re.compile(re.escape(prefix + _safe(key)) + r"-[0-9a-f]{32}/pending$")
    for k in store.keys_under(prefix):
        if pattern.match(k):
            raw = store.get(k)
            if raw:
                return str(raw.decode())
    return None


def member_props(props: Mapping[str, Any], key: str) -> dict[str, Any]:
    """Heat's ``build_resource_definition``: the group's properties without ``servers``, with ``server`` the
    entry's value."""
    out = {k: v for k, v in props.items() if k != "servers"}
    out["server"] = _servers(props).get(key)
    return out


def _servers(props: Mapping[str, Any]) -> dict[str, Any]:
    servers = props.get("servers")
    if not isinstance(servers, Mapping):
        raise HotcError(f"servers must be a map of names to server ids, not {servers!r}")
    return {str(k): v for k, v in servers.items()}


def group_attributes(members: Mapping[str, Mapping[str, Any]], order: list[str]) -> dict[str, Any]:
    """The group's attributes from each member's (key -> attributes), keys in the ``servers`` map's order."""
    names = {n for attrs in members.values() for n in attrs if not n.startswith("hotc:")}
    names |= set(OUTPUT_ATTRS)
    out: dict[str, Any] = {n: {k: members.get(k, {}).get(n) for k in order} for n in sorted(names)}
    for group_name, member_name in GROUP_ATTRS.items():
        out[group_name] = out[member_name]
    return out


class DeploymentGroupMixin:
    """Create/update/delete of a deployment group; ``member`` is the member type's driver."""

    member: DeploymentMixin

    # ------------------------------------------------------------------------------------------ members

    def _create_member(
        self, ctx: ActionContext, gid: str, key: str, props: Mapping[str, Any]
    ) -> tuple[str, Outcome]:
        mid = member_id(gid, key)
        if not self.member.wants(ctx, props, "CREATE"):
            return mid, Outcome(mid, {a: None for a in OUTPUT_ATTRS})
        return mid, self.member._run(ctx, mid, props, "CREATE", name=key, entry=mid)

    def _update_member(
        self, ctx: ActionContext, mid: str, key: str, props: Mapping[str, Any], previous: Mapping[str, Any]
    ) -> tuple[str, Outcome]:
        if not self.member.wants(ctx, props, "UPDATE"):
            return mid, Outcome(mid, dict(previous))
        return mid, self.member._run(ctx, mid, props, "UPDATE", name=key, entry=mid)

    def _action_member(
        self, ctx: ActionContext, mid: str, key: str, props: Mapping[str, Any], action: str
    ) -> None:
        self.member._run(ctx, mid, props, action, name=key, entry=mid)

    def _delete_member(self, ctx: ActionContext, mid: str, key: str, props: Mapping[str, Any]) -> None:
        self.member.remove(ctx, mid, props, name=key, entry=mid)

    def _batched(
        self, ctx: ActionContext, jobs: list[tuple[str, Callable[[], Any]]], policy: str
    ) -> dict[str, Any]:
        """Run the jobs in the batches of the update_policy's ``policy`` (``batch_create`` on create,
        ``rolling_update`` on update): ``max_batch_size`` members at a time, in the order of ``servers``,
        ``pause_time`` seconds between batches; a batch with a failed member stops the later ones (Heat's
        ResourceGroup batching, which its deployment groups inherit). Without that policy, all at once."""
        settings = ctx.update_policy.get(policy)
        if not settings or not jobs:
            return self._all(jobs)
        size = max(1, int(settings.get("max_batch_size") or 1))
        pause = float(settings.get("pause_time") or 0)
        groups = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        results: dict[str, Any] = {}
        for n, batch in enumerate(groups, 1):
            if n > 1 and pause > 0:
                ctx.log(f"{policy}: batch {n - 1} of {len(groups)} done; pausing {pause:g} s")
                if pause_interrupted(ctx, pause):
                    raise HotcError(
                        f"{policy}: stopped during the pause after batch {n - 1} of {len(groups)}; "
                        f"not run: {', '.join(k for b in groups[n - 1 :] for k, _ in b)}"
                    )
            ctx.log(f"{policy}: batch {n} of {len(groups)}: {', '.join(k for k, _ in batch)}")
            try:
                results.update(self._all(batch))
            except HotcError as exc:
                later = [k for b in groups[n:] for k, _ in b]
                rest = f"; batches {n + 1}-{len(groups)} not run ({', '.join(later)})" if later else ""
                raise HotcError(f"{policy}: batch {n} of {len(groups)} failed: {exc.message}{rest}") from exc
        return results

    def _all(self, jobs: list[tuple[str, Callable[[], Any]]]) -> dict[str, Any]:
        """Run the (key, thunk) jobs at once, as Heat's nested stack does its members; raises one HotcError
        naming every member that failed, after all finished."""
        if not jobs:
            return {}
        results: dict[str, Any] = {}
        failures: list[str] = []
        with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(jobs))) as pool:
            futures = [(key, pool.submit(fn)) for key, fn in jobs]
            for key, fut in futures:
                try:
                    results[key] = fut.result()
                except HotcError as exc:
                    failures.append(f"{key}: {exc.message}")
        if failures:
            raise HotcError("; ".join(failures))
        return results

    def _outcome(self, gid: str, ids: Mapping[str, str], members: Mapping[str, Mapping[str, Any]],
                 order: list[str]) -> Outcome:  # fmt: skip
        return Outcome(gid, {MEMBERS_ATTR: dict(ids), **group_attributes(members, order)})

    # ------------------------------------------------------------------------------------------ driver

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        gid = str(uuid.uuid4())
        ctx.record_physical_id(gid)
        order = list(_servers(props))

        done = self._batched(
            ctx,
            [(k, partial(self._create_member, ctx, gid, k, member_props(props, k))) for k in order],
            "batch_create",
        )
        ids = {k: done[k][0] for k in order}
        return self._outcome(gid, ids, {k: dict(done[k][1].attributes) for k in order}, order)

    def _previous(self, ctx: ActionContext, gid: str) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
        lookup = getattr(ctx, "lookup", None)
        rs = lookup(gid) if lookup is not None else None
        attrs = dict(rs.attributes or {}) if rs is not None else {}
        ids = {str(k): str(v) for k, v in (attrs.get(MEMBERS_ATTR) or {}).items()}
        members: dict[str, dict[str, Any]] = {k: {} for k in ids}
        for name, values in attrs.items():
            if name.startswith("hotc:") or name in GROUP_ATTRS or not isinstance(values, Mapping):
                continue
            for k, v in values.items():
                if k in members:
                    members[k][name] = v
        return ids, members

    def _replaces(self, ctx: ActionContext, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        """Heat's member ``handle_update``: an input declared ``replace_on_change`` (and declared before too)
        whose value changed makes a new member."""
        try:
            before = self.member._source(ctx, old).get("inputs") if old.get("config") else []
            after = self.member._source(ctx, new).get("inputs") if new.get("config") else []
        except HotcError:
            return False
        return bool(deployment_input_replace(before, after, old.get("input_values"), new.get("input_values")))

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        gid = physical_id
        ids, previous = self._previous(ctx, gid)
        old_keys = list(_servers(old)) if isinstance(old.get("servers"), Mapping) else list(ids)
        order = list(_servers(new))
        jobs: list[tuple[str, Callable[[], Any]]] = []
        kept: dict[str, tuple[str, dict[str, Any]]] = {}
        retired: list[tuple[str, str, dict[str, Any]]] = []  # (key, member id, old props) to delete after
        for key in order:
            mp = member_props(new, key)
            if key not in old_keys or key not in ids:
                jobs.append((key, partial(self._create_member, ctx, gid, key, mp)))
                continue
            op = member_props(old, key)
            if op == mp:
                kept[key] = (ids[key], previous.get(key, {}))
            elif self._replaces(ctx, op, mp):
                jobs.append((key, partial(self._create_member, ctx, gid, key, mp)))
                retired.append((key, ids[key], op))
            else:
                jobs.append(
                    (key, partial(self._update_member, ctx, ids[key], key, mp, previous.get(key, {})))
                )
        for key in old_keys:
            if key not in order and key in ids:
                retired.append((key, ids[key], member_props(old, key)))
        done = self._batched(ctx, jobs, "rolling_update")
        # members removed or replaced go after the new ones are in (Heat deletes them last)
        self._all([(k, partial(self._delete_member, ctx, m, k, p)) for k, m, p in retired])
        new_ids = {k: (done[k][0] if k in done else kept[k][0]) for k in order}
        members = {k: (dict(done[k][1].attributes) if k in done else kept[k][1]) for k in order}
        return self._outcome(gid, new_ids, members, order)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        lookup = getattr(ctx, "lookup", None)
        rs = lookup(physical_id) if lookup is not None else None
        return Outcome(physical_id, dict(rs.attributes) if rs is not None else {})

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ids, _ = self._previous(ctx, physical_id)
        keys = list(_servers(props)) if isinstance(props.get("servers"), Mapping) else list(ids)
        jobs: list[tuple[str, Callable[[], Any]]] = []
        for key in keys:
            mid = ids.get(key, f"{physical_id}/{key}")
            jobs.append((key, partial(self._delete_member, ctx, mid, key, member_props(props, key))))
        self._all(jobs)
        store = ctx.signals()
        for k in store.keys_under(store.key(ctx.stack_name, "deployments", physical_id) + "/"):
            store.delete_all(k)

    def suspend(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        self._each(ctx, physical_id, props, "SUSPEND")

    def resume(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        self._each(ctx, physical_id, props, "RESUME")

    def _each(self, ctx: ActionContext, gid: str, props: Mapping[str, Any], action: str) -> None:
        ids, _ = self._previous(ctx, gid)
        jobs: list[tuple[str, Callable[[], Any]]] = []
        for key in _servers(props):
            mp, mid = member_props(props, key), ids.get(key)
            if mid is not None and self.member.wants(ctx, mp, action):
                jobs.append((key, partial(self._action_member, ctx, mid, key, mp, action)))
        self._all(jobs)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None
