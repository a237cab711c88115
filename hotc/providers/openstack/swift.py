"""Swift driver: Container. The hotc stamp goes into the container's metadata
(``X-Container-Meta-Hotc-Lineage`` / ``-Hotc-Address``). Every property is replace-only, as in Heat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    TAG_LINEAGE,
    NotFound,
    ProviderError,
    call,
    get_or_none,
    ignore_missing,
    physical_name,
    plain,
    stamp,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, as_given


def _meta(md: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k).lower(): v for k, v in (md or {}).items()}


class ContainerDriver:
    """Physical id = the container name (as in Heat)."""

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"), limit=255)
        existing = get_or_none(ctx, f"read container {name}", conn.object_store.get_container_metadata, name)
        if existing is not None and not self._ours(ctx, existing):
            raise ProviderError(f"container {name!r} already exists; choose another name or delete it")
        metadata = {str(k): str(v) for k, v in (props.get("X-Container-Meta") or {}).items()}
        metadata.update({TAG_LINEAGE: stamp(ctx)[TAG_LINEAGE], TAG_ADDRESS: stamp(ctx)[TAG_ADDRESS]})
        body: dict[str, Any] = {"name": name}
        if props.get("X-Container-Read"):
            body["read_ACL"] = props["X-Container-Read"]
        if props.get("X-Container-Write"):
            body["write_ACL"] = props["X-Container-Write"]
        ctx.record_physical_id(name)
        call(ctx, f"create container {name}", lambda: conn.object_store.create_container(**body))
        call(
            ctx,
            f"set metadata of container {name}",
            lambda: conn.object_store.set_container_metadata(name, refresh=False, **metadata),
        )
        account_meta = props.get("X-Account-Meta") or {}
        if account_meta:
            call(
                ctx,
                "set account metadata",
                lambda: conn.object_store.set_account_metadata(
                    **{str(k): str(v) for k, v in account_meta.items()}
                ),
            )
        out = self.read(ctx, name, props)
        if out is None:
            raise ProviderError(f"container {name} vanished right after it was made")
        return out

    @staticmethod
    def _ours(ctx: ActionContext, container: Any) -> bool:
        md = _meta(getattr(container, "metadata", None))
        want = stamp(ctx)
        return md.get(TAG_LINEAGE) == want[TAG_LINEAGE] and md.get(TAG_ADDRESS) == want[TAG_ADDRESS]

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        c = get_or_none(
            ctx, f"read container {physical_id}", conn.object_store.get_container_metadata, physical_id
        )
        if c is None:
            return None
        endpoint = str(conn.object_store.get_endpoint() or "").rstrip("/")
        headers = plain(c.to_dict(body=False, headers=True, computed=False)) if hasattr(c, "to_dict") else {}
        attrs = {
            "DomainName": urlparse(endpoint).hostname,
            "WebsiteURL": f"{endpoint}/{physical_id}",
            "RootURL": f"{endpoint}/",
            "ObjectCount": c.object_count,
            "BytesUsed": c.bytes_used,
            "HeadContainer": headers,
            "show": headers,
        }
        lp = LiveProps(ctx, conn, props)
        lp.put("name", props.get("name") if props.get("name") == physical_id else physical_id)
        lp.text("X-Container-Read", getattr(c, "read_ACL", None) or "")
        lp.text("X-Container-Write", getattr(c, "write_ACL", None) or "")
        if lp.wants("X-Container-Meta"):
            live = _meta(getattr(c, "metadata", None))
            live.pop(TAG_LINEAGE, None)
            live.pop(TAG_ADDRESS, None)
            given = {str(k).lower(): (k, v) for k, v in (props.get("X-Container-Meta") or {}).items()}
            out = {
                given[k][0] if k in given else k: as_given(given[k][1], v) if k in given else v
                for k, v in live.items()
            }
            lp.put("X-Container-Meta", out)
        return Outcome(physical_id, attrs, properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        raise ProviderError("a Swift container cannot be updated in place (replace it)")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        if (
            get_or_none(
                ctx, f"read container {physical_id}", conn.object_store.get_container_metadata, physical_id
            )
            is None
        ):
            return
        if props.get("PurgeOnDelete"):
            objects = call(
                ctx,
                f"list objects of container {physical_id}",
                lambda: list(conn.object_store.objects(physical_id)),
            )
            for obj in objects:
                ignore_missing(
                    ctx,
                    f"delete object {obj.name}",
                    conn.object_store.delete_object,
                    obj.name,
                    container=physical_id,
                )
        try:
            call(
                ctx,
                f"delete container {physical_id}",
                conn.object_store.delete_container,
                physical_id,
                ignore_missing=False,
                retry_if=lambda e: False,
            )
        except NotFound:
            return
        except ProviderError as exc:
            if exc.status_code == 409:
                raise ProviderError(
                    f"container {physical_id} is not empty; delete its objects or set PurgeOnDelete "
                    f"({exc.message})",
                    status_code=409,
                ) from exc
            raise

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        if props.get("name"):
            c = get_or_none(ctx, "read container", conn.object_store.get_container_metadata, props["name"])
            return str(props["name"]) if c is not None and self._ours(ctx, c) else None
        prefix = physical_name(ctx, None).rsplit("-", 1)[0] + "-"
        for c in call(ctx, "list containers", lambda: list(conn.object_store.containers(prefix=prefix))):
            full = get_or_none(ctx, "read container", conn.object_store.get_container_metadata, c.name)
            if full is not None and self._ours(ctx, full):
                return str(c.name)
        return None


DRIVERS: dict[str, Driver] = with_defaults({"OS::Swift::Container": ContainerDriver()})
