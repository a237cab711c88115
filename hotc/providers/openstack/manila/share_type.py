"""OS::Manila::ShareType (admin-only under Manila's default policy). Created as Heat creates it: the name, the
access and the two required extra specs (``driver_handles_share_servers``, ``snapshot_support``) in the create,
then the template's ``extra_specs``. Only ``extra_specs`` is updated in place: Heat unsets the old keys and sets
the new ones. hotc's stamp rides as the scoped extra specs ``hotc:lineage`` / ``hotc:address`` (Manila's
scheduler ignores scoped keys); they, and the two required specs, are left out of the ``extra_specs`` a read
reports, as Heat's ``parse_live_resource_data`` leaves the required ones out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    TAG_LINEAGE,
    call,
    ignore_missing,
    newest,
    read_back,
    show,
    stamp,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, map_as_given
from hotc.providers.openstack.manila.common import ManilaRead, request

SPEC_LINEAGE = "hotc:lineage"
SPEC_ADDRESS = "hotc:address"
REQUIRED_SPECS = ("driver_handles_share_servers", "snapshot_support")
PUBLIC = "share_type_access:is_public"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return value if isinstance(value, str) else str(value)


def _specs(values: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k): _text(v) for k, v in (values or {}).items()}


def _user_specs(specs: Mapping[str, Any]) -> dict[str, Any]:
    hidden = (*REQUIRED_SPECS, SPEC_LINEAGE, SPEC_ADDRESS)
    return {k: v for k, v in specs.items() if k not in hidden}


class ShareTypeDriver(ManilaRead):
    read_what = "share type"
    collection, key = "types", "share_type"
    list_path, list_key = "/types?is_public=all", "share_types"
    list_what = "share types"

    def _stamp_specs(self, ctx: ActionContext) -> dict[str, str]:
        st = stamp(ctx)
        return {SPEC_LINEAGE: st[TAG_LINEAGE], SPEC_ADDRESS: st[TAG_ADDRESS]}

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = str(props["name"])
        body = {
            "name": name,
            PUBLIC: props.get("is_public", True) is not False,
            "extra_specs": {
                "driver_handles_share_servers": bool(props.get("driver_handles_share_servers")),
                "snapshot_support": props.get("snapshot_support", True) is not False,
            },
        }
        made = self._create(ctx, conn, name, body)
        specs = _specs(props.get("extra_specs"))
        specs.update(self._stamp_specs(ctx))
        self._set_keys(ctx, conn, made.id, specs)
        return read_back(
            self, ctx, made.id, props, f"share type {made.id} disappeared right after its create"
        )

    def _set_keys(self, ctx: ActionContext, conn: Any, type_id: str, specs: Mapping[str, str]) -> None:
        call(
            ctx,
            f"set extra specs of share type {type_id}",
            request,
            conn,
            "POST",
            f"/types/{type_id}/extra_specs",
            {"extra_specs": dict(specs)},
        )

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        specs = dict(obj.get("extra_specs") or {})
        lp = LiveProps(ctx, conn, props)
        lp.text("name", obj.name)
        public = obj.get(PUBLIC, obj.get("os-share-type-access:is_public"))
        lp.put("is_public", bool(public))
        for key in REQUIRED_SPECS:
            if key in specs:
                lp.put(key, str(specs[key]).strip().lower() == "true")
        user = _user_specs(specs)
        if "extra_specs" in props:
            given = props.get("extra_specs")
            lp.put("extra_specs", map_as_given(given, user) if user or given else given)
        shown = dict(obj.body)
        shown["extra_specs"] = {k: v for k, v in specs.items() if k not in (SPEC_LINEAGE, SPEC_ADDRESS)}
        return Outcome(obj.id, {"show": show(shown)}, properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        if "extra_specs" in changed:
            # Heat: the old template's keys are unset, then the new ones set
            want = _specs(new.get("extra_specs"))
            for key in _specs(old.get("extra_specs")):
                if key not in want and key not in REQUIRED_SPECS:
                    ignore_missing(
                        ctx,
                        f"unset extra spec {key} of share type {physical_id}",
                        request,
                        conn,
                        "DELETE",
                        f"/types/{physical_id}/extra_specs/{quote(key, safe='')}",
                    )
            want.update(self._stamp_specs(ctx))
            self._set_keys(ctx, conn, physical_id, want)
        return read_back(self, ctx, physical_id, new, f"share type {physical_id} is gone")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(
            ctx, f"delete share type {physical_id}", request, ctx.cloud(), "DELETE", f"/types/{physical_id}"
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """A share type this stack made (stamped) but never recorded (a killed run's create)."""
        conn = ctx.cloud()
        want = self._stamp_specs(ctx)
        found = newest(
            t
            for t in self._all(ctx, conn)
            if all((t.get("extra_specs") or {}).get(k) == v for k, v in want.items())
        )
        return None if found is None else str(found.id)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Manila::ShareType": ShareTypeDriver()})
