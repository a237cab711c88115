"""OS::Nova::KeyPair. Physical id = the key pair's name (as in Heat); a key pair has nowhere to carry hotc's
stamp, so it is adopted only when its public key is the template's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    create_once,
    get_or_none,
    ignore_missing,
    outcome,
    with_defaults,
)
from hotc.providers.openstack.get_read import GetRead
from hotc.providers.openstack.live import LiveProps


def _generate_keypair(key_type: str) -> tuple[str, str]:
    """A new ssh key pair (public, private in OpenSSH format), made locally: Nova >= 2.92 no longer generates."""
    # heavy: cryptography's key generation only when hotc makes the key pair
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    if key_type == "x509":
        raise ProviderError("key pair: type x509 needs a public_key (hotc generates only ssh keys)")
    key = ed25519.Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )
    return public, private


class KeyPairDriver(GetRead, ListRead):
    """Physical id = the key pair's name (as in Heat). Without public_key, hotc generates an ed25519 key pair
    locally and uploads its public half; the private key is an attribute only with save_private_key."""

    read_what = "key pair"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = str(props["name"])
        body: dict[str, Any] = {"name": name}
        private = ""
        public = props.get("public_key")
        if not public:
            public, private = _generate_keypair(props.get("type") or "ssh")
        body["public_key"] = public
        if props.get("type"):
            body["type"] = props["type"]
        if props.get("user"):
            body["user_id"] = props["user"]
        existing = get_or_none(ctx, f"read key pair {name}", conn.compute.get_keypair, name)
        if existing is not None:
            raise ProviderError(f"key pair {name!r} already exists; choose another name or delete it")
        kp = create_once(
            ctx,
            f"create key pair {name}",
            lambda: conn.compute.create_keypair(**body),
            lambda: _same_key(conn, name, public),
        )
        ctx.record_physical_id(name)
        attrs = {
            "public_key": kp.public_key or public,
            "private_key": private if props.get("save_private_key") else "",
        }
        return outcome(kp, attrs, physical_id=name)

    def get_live(self, conn: Any, physical_id: str) -> Any:
        return conn.compute.get_keypair(physical_id)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.compute.keypairs())

    def read_outcome(self, ctx: ActionContext, conn: Any, kp: Any, props: Mapping[str, Any]) -> Outcome:
        physical_id = str(kp.name)
        # the private key is known only at creation: read leaves it out (the applier keeps the stored value)
        lp = LiveProps(ctx, conn, props)
        lp.put("name", props.get("name") if str(props.get("name")) == physical_id else physical_id)
        if lp.wants("public_key"):
            given = str(props.get("public_key") or "")
            live = str(kp.public_key or "")
            lp.put("public_key", props["public_key"] if given.split()[:2] == live.split()[:2] else live)
        if getattr(kp, "type", None):
            lp.put("type", kp.type)
        out = outcome(kp, {"public_key": kp.public_key}, physical_id=physical_id)
        return replace(out, properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        raise ProviderError("a key pair cannot be updated in place (replace it)")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(ctx, f"delete key pair {physical_id}", ctx.cloud().compute.delete_keypair, physical_id)

    # Heat's KeyPair.prepare_for_replace: a key pair's name is its id, so a replacement under the same name
    # (a new public_key, type or user) can only be created once the old one is gone.
    def prepare_for_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> bool:
        if str(new.get("name")) != physical_id:
            return False  # a new name: both can exist side by side
        conn = ctx.cloud()
        if get_or_none(ctx, f"read key pair {physical_id}", conn.compute.get_keypair, physical_id) is None:
            return False
        ctx.log(
            f"key pair: deleting the old key pair {physical_id} so that its replacement can take the name"
        )
        ignore_missing(ctx, f"delete key pair {physical_id}", conn.compute.delete_keypair, physical_id)
        return True

    def restore_after_failed_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        """Re-import the old key pair when its public key is known (given in the template); a key pair hotc
        generated cannot be brought back (its private half was never stored in the cloud)."""
        conn = ctx.cloud()
        if (
            get_or_none(ctx, f"read key pair {physical_id}", conn.compute.get_keypair, physical_id)
            is not None
        ):
            return  # the name is taken (by the old key pair, or the failed replacement): nothing to restore
        if not old.get("public_key"):
            raise ProviderError(
                f"the old key pair {physical_id} was deleted for its replacement and hotc generated "
                "it, so it cannot be re-imported: the next apply creates a new one"
            )
        body: dict[str, Any] = {"name": physical_id, "public_key": old["public_key"]}
        if old.get("type"):
            body["type"] = old["type"]
        if old.get("user"):
            body["user_id"] = old["user"]
        ctx.log(f"key pair: re-importing the old key pair {physical_id}")
        call(ctx, f"re-import key pair {physical_id}", lambda: conn.compute.create_keypair(**body))

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        # A key pair has no metadata: adopt only one whose public key is the one the template gives.
        if not props.get("public_key") or not props.get("name"):
            return None
        kp = _same_key(ctx.cloud(), str(props["name"]), str(props["public_key"]))
        return None if kp is None else str(props["name"])


def _same_key(conn: Any, name: str, public: str) -> Any:
    try:
        kp = conn.compute.get_keypair(name)
    except Exception:
        return None
    return kp if kp is not None and (kp.public_key or "").split()[:2] == public.split()[:2] else None


DRIVERS: dict[str, Driver] = with_defaults({"OS::Nova::KeyPair": KeyPairDriver()})
