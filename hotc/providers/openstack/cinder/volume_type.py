"""OS::Cinder::VolumeType (admin-only under Cinder's default policy). A volume type carries hotc's stamp as extra
specs ``hotc:lineage`` / ``hotc:address`` (a scoped key the capabilities filter of Cinder's scheduler ignores);
they are left out of the ``metadata`` a read reports. Every property is updated in place, as in Heat."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    TAG_LINEAGE,
    ProviderError,
    call,
    create_once,
    fresh_finder,
    ignore_missing,
    newest,
    outcome,
    read_back,
    stamp,
    with_defaults,
)
from hotc.providers.openstack.get_read import GetRead
from hotc.providers.openstack.keystone.common import find_project
from hotc.providers.openstack.live import LiveProps, match_items, resolve_id

SPEC_LINEAGE = "hotc:lineage"
SPEC_ADDRESS = "hotc:address"


def _specs(values: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k): v if isinstance(v, str) else str(v) for k, v in (values or {}).items()}


class VolumeTypeDriver(GetRead, ListRead):
    read_what = "volume type"

    list_what = "volume types"

    def _stamp_specs(self, ctx: ActionContext) -> dict[str, str]:
        st = stamp(ctx)
        return {SPEC_LINEAGE: st[TAG_LINEAGE], SPEC_ADDRESS: st[TAG_ADDRESS]}

    def _all(self, conn: Any) -> list[Any]:
        # an admin lists public and private types with is_public=None
        return list(conn.block_storage.types(is_public="None"))

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = str(props["name"])
        public = props.get("is_public", True) is not False
        specs = _specs(props.get("metadata"))
        specs.update(self._stamp_specs(ctx))
        body: dict[str, Any] = {"name": name, "is_public": public, "extra_specs": specs}
        if props.get("description") is not None:
            body["description"] = props["description"]
        find_new = fresh_finder(
            ctx, "create volume type", lambda: [t for t in self._all(conn) if t.name == name]
        )
        vtype = create_once(
            ctx, "create volume type", lambda: conn.block_storage.create_type(**body), find_new
        )
        ctx.record_physical_id(str(vtype.id))
        if not public:
            for project in props.get("projects") or []:
                self._add_access(ctx, conn, str(vtype.id), project)
        return read_back(
            self, ctx, str(vtype.id), props, f"volume type {vtype.id} disappeared right after its create"
        )

    def _add_access(self, ctx: ActionContext, conn: Any, type_id: str, project: Any) -> None:
        project_id = str(find_project(ctx, conn, project).id)
        call(
            ctx,
            f"give project {project} access to volume type {type_id}",
            conn.block_storage.add_type_access,
            type_id,
            project_id,
        )

    def get_live(self, conn: Any, physical_id: str) -> Any:
        return conn.block_storage.get_type(physical_id)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return self._all(conn)

    def read_outcome(self, ctx: ActionContext, conn: Any, vtype: Any, props: Mapping[str, Any]) -> Outcome:
        specs = {
            k: v for k, v in dict(vtype.extra_specs or {}).items() if k not in (SPEC_LINEAGE, SPEC_ADDRESS)
        }
        lp = LiveProps(ctx, conn, props)
        lp.text("name", vtype.name)
        lp.text("description", vtype.description)
        lp.put("is_public", bool(vtype.is_public))
        if "metadata" in props:
            lp.mapping("metadata", specs if specs or props.get("metadata") else props.get("metadata"))
        if "projects" in props:
            live: list[str] = []
            if not vtype.is_public:
                access = call(
                    ctx,
                    f"read access list of volume type {vtype.id}",
                    conn.block_storage.get_type_access,
                    vtype.id,
                )
                live = [str(a.get("project_id") if isinstance(a, Mapping) else a) for a in access or []]
            lp.put(
                "projects",
                match_items(
                    props.get("projects") or [],
                    live,
                    lambda g, pid: str(g) == pid or resolve_id(ctx, conn, "project", g, find_project) == pid,
                    lambda pid: pid,
                ),
            )
        return replace(outcome(vtype, {}), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        body: dict[str, Any] = {}
        if "name" in changed:
            body["name"] = new.get("name")
        if "description" in changed:
            body["description"] = new.get("description") or ""
        if "is_public" in changed:
            body["is_public"] = new.get("is_public", True) is not False
        if body:
            # Cinder's update takes ``is_public`` (its create the ``os-volume-type-access:`` name openstacksdk
            # sends for both), so the body is written here
            call(
                ctx,
                f"update volume type {physical_id}",
                lambda: _ok(conn.block_storage.put(f"/types/{physical_id}", json={"volume_type": body})),
            )
        if "metadata" in changed:
            want = _specs(new.get("metadata"))
            want.update(self._stamp_specs(ctx))
            vtype = call(ctx, f"read volume type {physical_id}", conn.block_storage.get_type, physical_id)
            stale = [k for k in dict(vtype.extra_specs or {}) if k not in want]
            if stale:
                call(
                    ctx,
                    f"delete extra specs of volume type {physical_id}",
                    conn.block_storage.delete_type_extra_specs,
                    physical_id,
                    stale,
                )
            call(
                ctx,
                f"set extra specs of volume type {physical_id}",
                lambda: conn.block_storage.update_type_extra_specs(physical_id, **want),
            )
        public = new.get("is_public", True) is not False
        if ("projects" in changed or "is_public" in changed) and not public:
            access = call(
                ctx,
                f"read access list of volume type {physical_id}",
                conn.block_storage.get_type_access,
                physical_id,
            )
            have = {str(a.get("project_id") if isinstance(a, Mapping) else a) for a in access or []}
            wanted = {str(find_project(ctx, conn, p).id) for p in new.get("projects") or []}
            for pid in sorted(have - wanted):
                ignore_missing(
                    ctx,
                    f"remove access of project {pid} to volume type {physical_id}",
                    conn.block_storage.remove_type_access,
                    physical_id,
                    pid,
                )
            for pid in sorted(wanted - have):
                self._add_access(ctx, conn, physical_id, pid)
        return read_back(
            self, ctx, physical_id, new, f"volume type {physical_id} disappeared during its update"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(
            ctx, f"delete volume type {physical_id}", ctx.cloud().block_storage.delete_type, physical_id
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        want = self._stamp_specs(ctx)
        types = call(ctx, "list volume types", lambda: self._all(conn))
        found = newest(
            t for t in types if all(dict(t.extra_specs or {}).get(k) == v for k, v in want.items())
        )
        return None if found is None else str(found.id)


def _ok(resp: Any) -> Any:
    """Raise the cloud's error for a raw request that failed."""
    code = getattr(resp, "status_code", 200)
    if code >= 400:
        raise ProviderError(f"HTTP {code}: {getattr(resp, 'text', '')[:500]}", status_code=code)
    return resp


DRIVERS: dict[str, Driver] = with_defaults({"OS::Cinder::VolumeType": VolumeTypeDriver()})
