"""OS::Cinder::EncryptedVolumeType (admin-only under Cinder's default policy): the encryption of a volume type.
Its physical id is the volume type's id (as in Heat); its ``volume_type`` replaces it, the rest is updated in
place. A volume type has one encryption at most, so what a killed create made is adopted when the type's
encryption has exactly the wanted settings (an encryption made outside hotc with other settings is not)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.cinder.common import find_volume_type
from hotc.providers.openstack.common import (
    call,
    get_or_none,
    ignore_missing,
    outcome,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps

FIELDS = ("provider", "control_location", "cipher", "key_size")


def _encryption(ctx: ActionContext, conn: Any, type_id: str) -> Any:
    """The type's encryption, or None (Cinder answers an empty one for a type without, or gone)."""
    enc = get_or_none(
        ctx, f"read encryption of volume type {type_id}", conn.block_storage.get_type_encryption, type_id
    )
    if enc is None or not getattr(enc, "encryption_id", None):
        return None
    return enc


class EncryptedVolumeTypeDriver:
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        type_id = str(find_volume_type(ctx, conn, props["volume_type"]).id)
        body = {k: props.get(k) for k in FIELDS}
        ctx.record_physical_id(type_id)
        call(
            ctx,
            f"create encryption of volume type {type_id}",
            lambda: conn.block_storage.create_type_encryption(type_id, **body),
            attempts=1,
        )
        return read_back(
            self,
            ctx,
            type_id,
            props,
            f"the encryption of volume type {type_id} disappeared right after its create",
        )

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        enc = _encryption(ctx, conn, physical_id)
        if enc is None:
            return None
        lp = LiveProps(ctx, conn, props)
        for key in FIELDS:
            lp.text(key, getattr(enc, key))
        lp.ref("volume_type", physical_id, "volume type", find_volume_type)
        return replace(outcome(enc, {}, physical_id=physical_id), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        body = {k: new.get(k) for k in FIELDS if k in changed}
        if body:
            call(
                ctx,
                f"update encryption of volume type {physical_id}",
                lambda: conn.block_storage.update_type_encryption(volume_type=physical_id, **body),
            )
        return read_back(
            self,
            ctx,
            physical_id,
            new,
            f"the encryption of volume type {physical_id} disappeared during its update",
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        if _encryption(ctx, conn, physical_id) is None:
            return
        ignore_missing(
            ctx,
            f"delete encryption of volume type {physical_id}",
            lambda: conn.block_storage.delete_type_encryption(volume_type=physical_id, ignore_missing=False),
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        vtype = get_or_none(ctx, "look up volume type", find_volume_type, ctx, conn, props.get("volume_type"))
        if vtype is None:
            return None
        enc = _encryption(ctx, conn, str(vtype.id))
        if enc is None or any(getattr(enc, k) != props.get(k) for k in FIELDS):
            return None
        return str(vtype.id)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Cinder::EncryptedVolumeType": EncryptedVolumeTypeDriver()})
