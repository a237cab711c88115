"""OS::Manila::Share: a shared file system. As Heat: the share network, snapshot and share type are found by name
or id, the share is created and waited for until ``available`` (``error`` fails the create), and only then are
the template's access rules granted (Manila takes none while a share is being created). Name, description,
``is_public``, metadata and access rules are updated in place: metadata is replaced whole, and the live rules that
the new list does not hold are denied, then the missing ones granted (a rule that leaves ``access_level`` out is
Manila's default ``rw``). Unlike Heat, a create or update that grants or denies rules waits until Manila has
applied them (the share's ``access_rules_status`` is ``active``; ``error`` fails it). hotc's stamp rides in the metadata (``hotc-lineage`` / ``hotc-address``) and is left
out of what a read reports. The attributes are Heat's: the API's values as text (``share_server_id`` of a share
without a server is ``"None"``, as Heat's ``str()`` gives), ``export_locations`` the paths."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    NotFound,
    ProviderError,
    call,
    create_once,
    fresh_finder,
    get_or_none,
    has_stamp,
    merge_metadata,
    newest,
    read_back,
    settle,
    show,
    user_metadata,
    wait_for,
    wait_gone,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, map_as_given, match_items, resolve, same_text
from hotc.providers.openstack.manila.common import (
    Live,
    find_share_network,
    find_share_type,
    find_snapshot,
    get_live,
    list_live,
    live,
    request,
)

AVAILABLE = "available"
#: statuses a share passes through on its way somewhere (a read waits them out)
BUSY = frozenset(
    {"creating", "deleting", "extending", "shrinking", "migrating", "reverting", "manage_starting"}
)
STRING_ATTRS = ("availability_zone", "host", "share_server_id", "created_at", "status", "project_id")
DEFAULT_LEVEL = "rw"


def _rule(item: Mapping[str, Any]) -> tuple[str, str, str]:
    return (
        str(item.get("access_to")),
        str(item.get("access_type")),
        str(item.get("access_level") or DEFAULT_LEVEL),
    )


class ShareDriver(ListRead):
    list_what = "shares"

    # ------------------------------------------------------------------ calls
    def _get(self, conn: Any, share_id: str) -> Live:
        return get_live(conn, "shares", "share", share_id)

    def _all(self, ctx: ActionContext, conn: Any) -> list[Live]:
        return list_live(ctx, conn, "/shares/detail", "shares", "shares")

    def _action(self, ctx: ActionContext, conn: Any, share_id: str, what: str, action: str, arg: Any) -> Any:
        return call(ctx, what, request, conn, "POST", f"/shares/{share_id}/action", {action: arg})

    def _access_list(self, ctx: ActionContext, conn: Any, share_id: str) -> list[dict[str, Any]]:
        got = self._action(ctx, conn, share_id, f"list access rules of share {share_id}", "access_list", None)
        return [dict(r) for r in (got or {}).get("access_list") or []]

    def _allow(self, ctx: ActionContext, conn: Any, share_id: str, rule: Mapping[str, Any]) -> None:
        arg = {"access_type": rule.get("access_type"), "access_to": rule.get("access_to")}
        if rule.get("access_level"):
            arg["access_level"] = rule["access_level"]
        self._action(
            ctx,
            conn,
            share_id,
            f"grant {arg['access_type']} access to {arg['access_to']} on share {share_id}",
            "allow_access",
            arg,
        )

    def _deny(self, ctx: ActionContext, conn: Any, share_id: str, rule: Mapping[str, Any]) -> None:
        self._action(
            ctx,
            conn,
            share_id,
            f"deny access rule {rule.get('id')} of share {share_id}",
            "deny_access",
            {"access_id": rule.get("id")},
        )

    # ------------------------------------------------------------------ lifecycle
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        network = props.get("share_network")
        snapshot = props.get("snapshot")
        stype = props.get("share_type")
        body = {
            "share": {
                "share_proto": props.get("share_protocol"),
                "size": props.get("size"),
                "snapshot_id": find_snapshot(ctx, conn, snapshot).id if snapshot else None,
                "name": props.get("name"),
                "description": props.get("description"),
                "metadata": merge_metadata(ctx, props.get("metadata")),
                "share_network_id": find_share_network(ctx, conn, network).id if network else None,
                "share_type": find_share_type(ctx, conn, stype).id if stype else None,
                "is_public": props.get("is_public", False) is True,
            }
        }
        find_new = fresh_finder(ctx, "create share", lambda: self._stamped(ctx, conn))
        made = create_once(
            ctx, "create share", lambda: live(request(conn, "POST", "/shares", body)["share"]), find_new
        )
        ctx.record_physical_id(made.id)
        self._wait_available(ctx, conn, made.id)
        rules = props.get("access_rules") or []
        for rule in rules:
            try:
                self._allow(ctx, conn, made.id, rule)
            except ProviderError as exc:
                raise ProviderError(
                    f'Error during applying access rules to share "{made.id}". The root cause of the problem is '
                    f"the following: {exc}."
                ) from exc
        if rules:
            self._wait_rules(ctx, conn, made.id)
        return read_back(self, ctx, made.id, props, f"share {made.id} disappeared right after its create")

    def _wait_available(self, ctx: ActionContext, conn: Any, share_id: str) -> None:
        def failed(share: Any) -> str | None:
            status = share.get("status")
            if status == "error":
                return f'Error during creation of share "{share_id}"'
            if status not in ("creating", AVAILABLE):
                return f'Unknown share_status during creation of share "{share_id}" (status {status})'
            return None

        wait_for(
            ctx,
            f"create share {share_id}",
            lambda: self._get(conn, share_id),
            lambda s: s is not None and s.get("status") == AVAILABLE,
            failed,
        )

    def _wait_rules(self, ctx: ActionContext, conn: Any, share_id: str) -> None:
        """Wait until Manila has applied the share's access rules (``access_rules_status`` ``active``): a grant or
        a denial is taken at once and applied by the share manager after, and a share whose rules are still
        syncing is not yet reachable as the template says. Heat returns before that; hotc's apply ends when the
        share is usable, and a rule Manila could not apply (``error``) fails the action instead of passing
        unseen."""

        def failed(share: Any) -> str | None:
            if share.get("access_rules_status") == "error":
                return (
                    f'Error during applying access rules to share "{share_id}": Manila reports its access rules '
                    "in error (see `manila access-list` for the rule that failed)"
                )
            return None

        wait_for(
            ctx,
            f"apply the access rules of share {share_id}",
            lambda: self._get(conn, share_id),
            lambda s: s is not None and s.get("access_rules_status", "active") == "active",
            failed,
        )

    def _stamped(self, ctx: ActionContext, conn: Any) -> list[Live]:
        return [s for s in self._all(ctx, conn) if has_stamp(ctx, metadata=s.get("metadata") or {})]

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        got = get_or_none(ctx, f"read share {physical_id}", self._get, conn, physical_id)
        got = settle(
            ctx,
            f"read share {physical_id}",
            got,
            lambda: self._get(conn, physical_id),
            lambda s: s.get("status") in BUSY,
        )
        return None if got is None else self.read_outcome(ctx, conn, got, props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return self._all(ctx, conn)

    def listed_usable(self, obj: Any) -> bool:
        return obj.get("status") not in BUSY

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(obj.get("name"))
        lp.text("description", obj.get("description"))
        lp.text("share_protocol", obj.get("share_proto"))
        lp.text("size", obj.get("size"))
        lp.put("is_public", bool(obj.get("is_public")))
        md = user_metadata(obj.get("metadata"))
        if lp.wants("metadata"):
            given = props.get("metadata")
            lp.put("metadata", map_as_given(given, md) if md or given else given)
        lp.ref("share_network", obj.get("share_network_id"), "share network", find_share_network)
        lp.ref("snapshot", obj.get("snapshot_id"), "share snapshot", find_snapshot)
        if lp.wants("share_type"):
            given, live_id = props.get("share_type"), obj.get("share_type")
            same = (
                given in (None, "")
                or same_text(given, live_id)
                or same_text(given, obj.get("share_type_name"))
            )
            if not same:
                found = resolve(ctx, conn, "share type", given, find_share_type)
                same = found is not None and found.id == live_id
            lp.put("share_type", given if same else live_id)
        if lp.wants("access_rules"):
            rules = self._access_list(ctx, conn, obj.id)
            lp.put(
                "access_rules",
                match_items(
                    props.get("access_rules") or [],
                    rules,
                    lambda g, r: _rule(g) == _rule(r),
                    lambda r: {k: r.get(k) for k in ("access_to", "access_type", "access_level")},
                ),
            )
        attrs: dict[str, Any] = {k: str(obj.get(k)) for k in STRING_ATTRS}
        attrs["export_locations"] = self._export_paths(ctx, conn, obj.id)
        shown = dict(obj.body)
        shown["metadata"] = md
        attrs["show"] = show(shown)
        return Outcome(obj.id, attrs, properties=lp.result())

    def _export_paths(self, ctx: ActionContext, conn: Any, share_id: str) -> list[Any]:
        got = call(
            ctx,
            f"read export locations of share {share_id}",
            request,
            conn,
            "GET",
            f"/shares/{share_id}/export_locations",
        )
        return [e.get("path") for e in (got or {}).get("export_locations") or []]

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        fields: dict[str, Any] = {}
        if "is_public" in changed:
            fields["is_public"] = new.get("is_public") is True
        if "name" in changed:
            fields["display_name"] = new.get("name")
        if "description" in changed:
            fields["display_description"] = new.get("description")
        if fields:
            call(
                ctx,
                f"update share {physical_id}",
                request,
                conn,
                "PUT",
                f"/shares/{physical_id}",
                {"share": fields},
            )
        if "metadata" in changed:
            call(
                ctx,
                f"set metadata of share {physical_id}",
                request,
                conn,
                "PUT",
                f"/shares/{physical_id}/metadata",
                {"metadata": merge_metadata(ctx, new.get("metadata"))},
            )
        if "access_rules" in changed:
            wanted = list(new.get("access_rules") or [])
            kept: list[tuple[str, str, str]] = []
            touched = False
            for rule in self._access_list(ctx, conn, physical_id):
                if _rule(rule) in {_rule(w) for w in wanted} and _rule(rule) not in kept:
                    kept.append(_rule(rule))
                else:
                    self._deny(ctx, conn, physical_id, rule)
                    touched = True
            for rule in wanted:
                if _rule(rule) not in kept:
                    self._allow(ctx, conn, physical_id, rule)
                    kept.append(_rule(rule))
                    touched = True
            if touched:
                self._wait_rules(ctx, conn, physical_id)
        return read_back(self, ctx, physical_id, new, f"share {physical_id} is gone")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        try:
            call(ctx, f"delete share {physical_id}", request, conn, "DELETE", f"/shares/{physical_id}")
        except NotFound:
            return
        wait_gone(
            ctx,
            f"delete share {physical_id}",
            lambda: _StatusView(self._get(conn, physical_id)),
            failures=("error_deleting", "error"),
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """A share this stack made (stamped in its metadata) but never recorded (a killed run's create)."""
        found = newest(self._stamped(ctx, ctx.cloud()))
        return None if found is None else str(found.id)


class _StatusView:
    """A share as ``wait_gone`` reads a status (an attribute)."""

    def __init__(self, share: Live) -> None:
        self.status = share.get("status")


DRIVERS: dict[str, Driver] = with_defaults({"OS::Manila::Share": ShareDriver()})
