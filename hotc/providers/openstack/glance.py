"""Glance driver: WebImage (an image record whose data Glance downloads itself with the ``web-download`` import
method, as Heat does). The hotc stamp goes into the image's tags beside the template's ``tags``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead, lineage_tag
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    create_once,
    fresh_finder,
    get_or_none,
    ignore_missing,
    merge_tags,
    newest,
    outcome,
    physical_name,
    settle,
    stamp_tags,
    user_tags,
    wait_for,
    wait_gone,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, as_given, match_items

PATCH_TYPE = "application/openstack-images-v2.1-json-patch"
# properties of the template that are image fields (the rest are extra_properties)
FIELDS = (
    "min_disk",
    "min_ram",
    "protected",
    "disk_format",
    "container_format",
    "architecture",
    "kernel_id",
    "os_distro",
    "os_version",
    "owner",
    "visibility",
    "ramdisk_id",
)
UPDATABLE = (
    "protected",
    "architecture",
    "kernel_id",
    "os_distro",
    "os_version",
    "owner",
    "visibility",
    "ramdisk_id",
)


def _raw(conn: Any, method: str, url: str, **kwargs: Any) -> Any:
    # heavy: openstacksdk only when a cloud is used
    from openstack import exceptions

    resp = getattr(conn.image, method)(url, raise_exc=False, **kwargs)
    exceptions.raise_from_response(resp)
    return resp


class WebImageDriver(ListRead):
    list_what = "images"

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.image.images(tag=[lineage_tag(ctx)]))

    def listed_usable(self, obj: Any) -> bool:
        return obj.status not in ("importing", "saving", "uploading", "deleted")

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body: dict[str, Any] = {"name": physical_name(ctx, props.get("name"))}
        for key in FIELDS:
            if props.get(key) is not None:
                body[key] = props[key]
        if props.get("id"):
            body["id"] = props["id"]
        body["tags"] = merge_tags(ctx, props.get("tags"))
        for k, v in (props.get("extra_properties") or {}).items():
            body[str(k)] = v if isinstance(v, str) else str(v)
        find_new = fresh_finder(ctx, "create image", lambda: conn.image.images(tag=stamp_tags(ctx)))
        image = create_once(
            ctx, "create image", lambda: _raw(conn, "post", "/images", json=body).json(), find_new
        )
        image_id = str(image["id"] if isinstance(image, Mapping) else image.id)
        ctx.record_physical_id(image_id)
        # openstacksdk's import_image ignores an error answer (e.g. a URI Glance's import filter refuses): post
        # the import ourselves so a refusal is an error with Glance's message.
        call(
            ctx,
            f"import image {image_id} from {props['location']}",
            _raw,
            conn,
            "post",
            f"/images/{image_id}/import",
            json={"method": {"name": "web-download", "uri": props["location"]}},
        )
        wait_for(
            ctx,
            f"import image {image_id}",
            lambda: conn.image.get_image(image_id),
            lambda i: i is not None and i.status == "active",
            lambda i: self._import_failed(conn, i),
        )
        for member in props.get("members") or []:
            call(
                ctx,
                f"share image {image_id} with {member}",
                conn.image.add_member,
                image_id,
                member_id=member,
            )
        if props.get("active") is False:
            call(ctx, f"deactivate image {image_id}", conn.image.deactivate_image, image_id)
        out = self.read(ctx, image_id, props)
        assert out is not None
        return out

    @staticmethod
    def _import_failed(conn: Any, image: Any) -> str | None:
        if image.status in ("killed", "deleted"):
            return f"went to {image.status}"
        failed = (image.properties or {}).get("os_glance_failed_import") or getattr(
            image, "os_glance_failed_import", None
        )
        if failed:
            return (
                f"the web-download import failed (store {failed}); check that Glance can reach the location"
            )
        return None

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        image = get_or_none(ctx, f"read image {physical_id}", conn.image.get_image, physical_id)
        image = settle(
            ctx,
            f"read image {physical_id}",
            image,
            lambda: conn.image.get_image(physical_id),
            lambda i: i.status in ("importing", "saving", "uploading"),
        )
        if image is None or image.status == "deleted":
            return None
        return self.read_outcome(ctx, conn, image, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, image: Any, props: Mapping[str, Any]) -> Outcome:
        """Attributes and live properties of ``image`` (also one from a list call)."""
        raw = image.to_dict(original_names=True)
        extra = dict(image.properties or {})
        lp = LiveProps(ctx, conn, props)
        lp.name(image.name)
        lp.put("id", str(image.id))
        for key in FIELDS:
            value = raw.get(key)
            if value is None:
                value = extra.get(key)
            if key == "owner":
                value = raw.get("owner") or getattr(image, "owner_id", None)
            elif key == "protected":
                value = image.is_protected
            lp.text(key, value)
        lp.put("tags", user_tags(image.tags))
        if lp.wants("extra_properties"):
            # Glance keeps its own properties beside the template's: only the template's keys are compared
            given = dict(props.get("extra_properties") or {})
            live = {**extra, **{k: v for k, v in raw.items() if k in given}}
            lp.put("extra_properties", {k: as_given(v, live.get(k)) for k, v in given.items() if k in live})
        if lp.wants("active"):
            lp.put("active", image.status != "deactivated")
        if props.get("members"):
            members = get_or_none(
                ctx, f"list members of image {image.id}", lambda: list(conn.image.members(image.id))
            )
            live_m = [str(m.member_id) for m in members or []]
            lp.put("members", match_items(props["members"], live_m, lambda g, m: str(g) == m, lambda m: m))
        return replace(outcome(image, {}), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        raw = _raw(conn, "get", f"/images/{physical_id}").json()
        ops: list[dict[str, Any]] = []

        def put(key: str, value: Any) -> None:
            if value is None:
                if key in raw:
                    ops.append({"op": "remove", "path": f"/{key}"})
            else:
                ops.append({"op": "replace" if key in raw else "add", "path": f"/{key}", "value": value})

        for key in UPDATABLE:
            if key in changed:
                put(key, new.get(key))
        if "tags" in changed:
            put("tags", merge_tags(ctx, new.get("tags")))
        if "extra_properties" in changed:
            old_x = {str(k) for k in (old.get("extra_properties") or {})}
            new_x = {
                str(k): (v if isinstance(v, str) else str(v))
                for k, v in (new.get("extra_properties") or {}).items()
            }
            for k in sorted(old_x - set(new_x)):
                put(k, None)
            for k, v in new_x.items():
                put(k, v)
        if ops:
            call(
                ctx,
                f"update image {physical_id}",
                _raw,
                conn,
                "patch",
                f"/images/{physical_id}",
                json=ops,
                headers={"Content-Type": PATCH_TYPE},
            )
        if "members" in changed:
            old_m, new_m = set(old.get("members") or []), set(new.get("members") or [])
            for m in sorted(new_m - old_m):
                call(
                    ctx,
                    f"share image {physical_id} with {m}",
                    conn.image.add_member,
                    physical_id,
                    member_id=m,
                )
            for m in sorted(old_m - new_m):
                ignore_missing(
                    ctx, f"unshare image {physical_id} with {m}", conn.image.remove_member, m, physical_id
                )
        if "active" in changed:
            image = call(ctx, f"read image {physical_id}", conn.image.get_image, physical_id)
            if new.get("active") is False and image.status == "active":
                call(ctx, f"deactivate image {physical_id}", conn.image.deactivate_image, physical_id)
            elif new.get("active") is not False and image.status == "deactivated":
                call(ctx, f"reactivate image {physical_id}", conn.image.reactivate_image, physical_id)
        out = self.read(ctx, physical_id, new)
        if out is None:
            raise ProviderError(f"image {physical_id} disappeared during its update")
        return out

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        ignore_missing(
            ctx, f"delete image {physical_id}", conn.image.delete_image, physical_id, ignore_missing=False
        )
        wait_gone(ctx, f"delete image {physical_id}", lambda: self._live(conn, physical_id))

    @staticmethod
    def _live(conn: Any, image_id: str) -> Any:
        image = conn.image.get_image(image_id)
        return None if image is None or image.status == "deleted" else image

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        found = self._find(ctx, ctx.cloud())
        return None if found is None else str(found.id)

    def _find(self, ctx: ActionContext, conn: Any) -> Any:
        found = call(ctx, "search images", lambda: list(conn.image.images(tag=stamp_tags(ctx))))
        return newest(found)


__all__ = ["DRIVERS", "user_tags"]

DRIVERS: dict[str, Driver] = with_defaults({"OS::Glance::WebImage": WebImageDriver()})
