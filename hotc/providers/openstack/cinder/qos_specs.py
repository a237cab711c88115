"""OS::Cinder::QoSSpecs and OS::Cinder::QoSAssociation (admin-only under Cinder's default policy).

QoS specs have nowhere to carry hotc's stamp (every spec key reaches the backend or the hypervisor), so they are
adopted only by the name hotc generated for their stack and address; their ``name`` replaces them, their
``specs`` are set and unset in place, as in Heat. Cinder takes specs as a flat map (``{"qos_specs": {"name": …,
KEY: VALUE}}``, which openstacksdk's create does not write), so create and update send that body themselves;
values go as the template gives them, so a number where Cinder wants a string fails as under Heat.

A QoSAssociation's physical id is its QoS specs' id (Heat keeps a random uuid: ``hotc import --from-heat``
finds the specs from ``qos_specs``); its ``volume_types`` are the
types associated with those specs (a read reports every associated type, so a type associated outside hotc is
drift); a delete disassociates the types of the list. A replacement (other specs) takes the volume types from the
old specs before it associates them (a type has one QoS specs at most), and gives them back if it fails."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.cinder.common import find_qos_specs, find_volume_type
from hotc.providers.openstack.cinder.volume_type import _ok
from hotc.providers.openstack.common import (
    adopt_by_generated_name,
    call,
    create_once,
    fresh_finder,
    get_or_none,
    ignore_missing,
    outcome,
    physical_name,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.get_read import GetRead
from hotc.providers.openstack.live import LiveProps, map_as_given

NAME_LIMIT = 255


def _specs(values: Mapping[str, Any] | None) -> dict[str, Any]:
    """The specs as Heat sends them: values unchanged (Cinder takes only strings: ``read_iops_sec: 100`` fails
    with Cinder's "Value for key "read_iops_sec" is not a string or unicode", as it does under Heat)."""
    return {str(k): v for k, v in (values or {}).items()}


class QoSSpecsDriver(GetRead, ListRead):
    read_what = "QoS specs"

    list_what = "QoS specs"

    def _all(self, conn: Any) -> list[Any]:
        return list(conn.block_storage.qos_specs())

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"), limit=NAME_LIMIT)
        body = {"qos_specs": {**_specs(props.get("specs")), "name": name}}
        find_new = fresh_finder(
            ctx, "create QoS specs", lambda: [q for q in self._all(conn) if q.name == name]
        )
        made = create_once(
            ctx,
            "create QoS specs",
            lambda: _Made(_ok(conn.block_storage.post("/qos-specs", json=body)).json()["qos_specs"]["id"]),
            find_new,
        )
        ctx.record_physical_id(str(made.id))
        return read_back(
            self, ctx, str(made.id), props, f"QoS specs {made.id} disappeared right after their create"
        )

    def get_live(self, conn: Any, physical_id: str) -> Any:
        return conn.block_storage.get_qos_spec(physical_id)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return self._all(conn)

    def read_outcome(self, ctx: ActionContext, conn: Any, qos: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(qos.name, limit=NAME_LIMIT)
        lp.put("specs", map_as_given(props.get("specs"), dict(qos.specs or {})))
        return replace(outcome(qos, {}), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        if "specs" in changed:
            want = _specs(new.get("specs"))
            qos = call(ctx, f"read QoS specs {physical_id}", conn.block_storage.get_qos_spec, physical_id)
            have = dict(qos.specs or {})
            stale = sorted(k for k in have if k not in want)
            if stale:
                call(
                    ctx,
                    f"unset keys of QoS specs {physical_id}",
                    conn.block_storage.delete_qos_spec_metadata,
                    physical_id,
                    stale,
                )
            add = {k: v for k, v in want.items() if have.get(k) != v}
            if add:
                call(
                    ctx,
                    f"set keys of QoS specs {physical_id}",
                    lambda: _ok(conn.block_storage.put(f"/qos-specs/{physical_id}", json={"qos_specs": add})),
                )
        return read_back(
            self, ctx, physical_id, new, f"QoS specs {physical_id} disappeared during their update"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        if (
            get_or_none(ctx, f"read QoS specs {physical_id}", conn.block_storage.get_qos_spec, physical_id)
            is None
        ):
            return
        # as Heat: every association goes first (Cinder refuses to delete specs still in use)
        ignore_missing(
            ctx,
            f"disassociate QoS specs {physical_id} from every volume type",
            conn.block_storage.disassociate_all_qos_spec,
            physical_id,
        )
        ignore_missing(
            ctx, f"delete QoS specs {physical_id}", conn.block_storage.delete_qos_spec, physical_id
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, "QoS specs", lambda: self._all(conn))


class _Made:
    """The id of what a raw create returned (all :func:`create_once` needs)."""

    def __init__(self, oid: str) -> None:
        self.id = oid


class QoSAssociationDriver:
    def _types(self, ctx: ActionContext, conn: Any, qos_id: str) -> list[str]:
        return call(
            ctx,
            f"list the volume types of QoS specs {qos_id}",
            lambda: [str(a.id) for a in conn.block_storage.qos_spec_associations(qos_id)],
        )

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        qos_id = str(find_qos_specs(ctx, conn, props["qos_specs"]).id)
        wanted = [str(find_volume_type(ctx, conn, t).id) for t in props.get("volume_types") or []]
        ctx.record_physical_id(qos_id)
        for tid in wanted:
            call(
                ctx,
                f"associate QoS specs {qos_id} with volume type {tid}",
                conn.block_storage.associate_qos_spec,
                qos_id,
                tid,
            )
        return read_back(
            self, ctx, qos_id, props, f"QoS specs {qos_id} disappeared right after their association"
        )

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        qos = get_or_none(ctx, f"read QoS specs {physical_id}", conn.block_storage.get_qos_spec, physical_id)
        if qos is None:
            return None
        lp = LiveProps(ctx, conn, props)
        lp.ref("qos_specs", physical_id, "QoS specs", find_qos_specs)
        lp.refs("volume_types", self._types(ctx, conn, physical_id), "volume type", find_volume_type)
        return replace(Outcome(physical_id, {"show": {}}), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        want = {str(find_volume_type(ctx, conn, t).id) for t in new.get("volume_types") or []}
        had = set()
        for t in old.get("volume_types") or []:
            found = get_or_none(ctx, f"look up volume type {t}", find_volume_type, ctx, conn, t)
            if found is not None:
                had.add(str(found.id))
        live = set(self._types(ctx, conn, physical_id))
        for tid in sorted(want - live):
            call(
                ctx,
                f"associate QoS specs {physical_id} with volume type {tid}",
                conn.block_storage.associate_qos_spec,
                physical_id,
                tid,
            )
        for tid in sorted((had & live) - want):
            ignore_missing(
                ctx,
                f"disassociate QoS specs {physical_id} from volume type {tid}",
                conn.block_storage.disassociate_qos_spec,
                physical_id,
                tid,
            )
        return read_back(
            self,
            ctx,
            physical_id,
            new,
            f"QoS specs {physical_id} disappeared during the update of their association",
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        if (
            get_or_none(ctx, f"read QoS specs {physical_id}", conn.block_storage.get_qos_spec, physical_id)
            is None
        ):
            return
        live = set(self._types(ctx, conn, physical_id))
        for t in props.get("volume_types") or []:
            found = get_or_none(ctx, f"look up volume type {t}", find_volume_type, ctx, conn, t)
            if found is not None and str(found.id) in live:
                ignore_missing(
                    ctx,
                    f"disassociate QoS specs {physical_id} from volume type {found.id}",
                    conn.block_storage.disassociate_qos_spec,
                    physical_id,
                    str(found.id),
                )

    def prepare_for_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> bool:
        """A volume type has one QoS specs at most: the types the replacement (new specs) associates are taken
        from the old specs first (Heat's create-before-delete fails there with Cinder's "already associated
        with another qos specs")."""
        conn = ctx.cloud()
        if (
            get_or_none(ctx, f"read QoS specs {physical_id}", conn.block_storage.get_qos_spec, physical_id)
            is None
        ):
            return False
        live = set(self._types(ctx, conn, physical_id))
        moved = False
        for t in new.get("volume_types") or []:
            found = get_or_none(ctx, f"look up volume type {t}", find_volume_type, ctx, conn, t)
            if found is not None and str(found.id) in live:
                call(
                    ctx,
                    f"disassociate QoS specs {physical_id} from volume type {found.id} for their replacement",
                    conn.block_storage.disassociate_qos_spec,
                    physical_id,
                    str(found.id),
                )
                moved = True
        return moved

    def restore_after_failed_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        """The replacement failed: the old specs get their volume types back (from the new specs if they hold
        them)."""
        conn = ctx.cloud()
        if (
            get_or_none(ctx, f"read QoS specs {physical_id}", conn.block_storage.get_qos_spec, physical_id)
            is None
        ):
            return
        new_qos = get_or_none(
            ctx, "look up the replacement's QoS specs", find_qos_specs, ctx, conn, new.get("qos_specs")
        )
        for t in old.get("volume_types") or []:
            found = get_or_none(ctx, f"look up volume type {t}", find_volume_type, ctx, conn, t)
            if found is None:
                continue
            if new_qos is not None and str(new_qos.id) != physical_id:
                ignore_missing(
                    ctx,
                    f"disassociate QoS specs {new_qos.id} from volume type {found.id}",
                    conn.block_storage.disassociate_qos_spec,
                    str(new_qos.id),
                    str(found.id),
                )
            call(
                ctx,
                f"associate QoS specs {physical_id} with volume type {found.id} again",
                conn.block_storage.associate_qos_spec,
                physical_id,
                str(found.id),
            )

    def physical_id_from_heat(self, ctx: ActionContext, heat_id: str | None, props: Mapping[str, Any]) -> str:
        """Heat keeps a random uuid of its own: hotc's id is that of the QoS specs ``qos_specs`` names."""
        return str(find_qos_specs(ctx, ctx.cloud(), props["qos_specs"]).id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        # associating is idempotent: a create a killed run left half-way is made again, never duplicated
        return None


DRIVERS: dict[str, Driver] = with_defaults(
    {"OS::Cinder::QoSSpecs": QoSSpecsDriver(), "OS::Cinder::QoSAssociation": QoSAssociationDriver()}
)
