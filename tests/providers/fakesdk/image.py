"""The fake image proxy (Glance v2): images with queued -> importing -> active (``web-download`` import through
the raw ``/images`` API the WebImage driver posts to), JSON-patch updates, deactivate/reactivate, members, and
tag/name filters. Gates: ``image.import``. Knob: ``refuse_uri`` (a URI prefix the import filter refuses)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from openstack.image.v2.image import Image
from openstack.image.v2.member import Member

from tests.providers.fakesdk.core import Cloud, Proxy, Response, conflict, not_found, oid

FIELDS = (
    "id",
    "name",
    "status",
    "tags",
    "min_disk",
    "min_ram",
    "protected",
    "disk_format",
    "container_format",
    "visibility",
    "owner",
    "created_at",
)


class ImageProxy(Proxy):
    service = "image"

    def __init__(self, cloud: Cloud) -> None:
        super().__init__(cloud)
        self.refuse_uri: str | None = None
        self.import_fails = False

    def _make(self, body: Mapping[str, Any]) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "id": self.cloud.new_id("image"),
            "status": "queued",
            "tags": [],
            "min_disk": 0,
            "min_ram": 0,
            "protected": False,
            "visibility": "shared",
            "owner": self.cloud.project_id,
            "created_at": f"2026-01-01T00:02:{len(self.cloud.table('image')):02d}Z",
            "_members": [],
        }
        obj.update({k: v for k, v in body.items() if v is not None})
        if self.cloud.find("image", obj["id"]) is not None:
            raise conflict(f"Image with identifier {obj['id']} already exists")
        return self.cloud.put("image", obj)

    def _res(self, obj: Mapping[str, Any]) -> Any:
        return Image.existing(**{k: v for k, v in obj.items() if not k.startswith("_")})

    def _get(self, value: Any) -> dict[str, Any]:
        return self.cloud.get("image", oid(value), "Image")

    def get_image(self, value: Any) -> Any:
        return self._res(self._get(value))

    def images(self, **query: Any) -> Iterator[Any]:
        tags = query.pop("tag", None)
        want_tags = [tags] if isinstance(tags, str) else list(tags or [])
        for obj in list(self.cloud.all("image")):
            if query.get("name") is not None and obj.get("name") != query["name"]:
                continue
            if not set(want_tags) <= set(obj.get("tags") or []):
                continue
            yield self._res(obj)

    def delete_image(self, value: Any, ignore_missing: bool = True) -> None:
        obj = self.cloud.find("image", oid(value))
        if obj is None:
            if not ignore_missing:
                raise not_found(f"Image {oid(value)}")
            return
        if obj.get("protected"):
            raise conflict(f"Image {obj['id']} is protected and cannot be deleted.")
        self.cloud.drop("image", obj["id"])

    def deactivate_image(self, value: Any) -> None:
        obj = self._get(value)
        if obj["status"] not in ("active", "deactivated"):
            raise conflict(f"Not allowed to deactivate image in status '{obj['status']}'")
        obj["status"] = "deactivated"

    def reactivate_image(self, value: Any) -> None:
        obj = self._get(value)
        if obj["status"] not in ("active", "deactivated"):
            raise conflict(f"Not allowed to reactivate image in status '{obj['status']}'")
        obj["status"] = "active"

    def add_member(self, image: Any, **attrs: Any) -> Any:
        member_id = str(attrs["member_id"])
        obj = self._get(image)
        if obj.get("visibility") != "shared":
            raise conflict(f"Only shared images have members (image {obj['id']} is {obj.get('visibility')})")
        if member_id in obj["_members"]:
            raise conflict(f"Member {member_id} already exists")
        obj["_members"].append(member_id)
        return Member.existing(id=member_id, member_id=member_id, image_id=obj["id"], status="pending")

    def remove_member(self, member: Any, image: Any) -> None:
        obj = self._get(image)
        if oid(member) not in obj["_members"]:
            raise not_found(f"Member {oid(member)}")
        obj["_members"].remove(oid(member))

    def members(self, image: Any) -> Iterator[Any]:
        obj = self._get(image)
        for m in obj["_members"]:
            yield Member.existing(id=m, member_id=m, image_id=obj["id"], status="pending")

    # -- the raw API (``proxy.post/get/patch(url, raise_exc=False)``)
    def post(self, url: str, json: Any = None, **_kw: Any) -> Response:
        if url == "/images":
            try:
                obj = self._make(dict(json or {}))
            except Exception as exc:  # noqa: BLE001
                return Response(409, {"message": str(exc)})
            return Response(201, self._public(obj))
        match = re.match(r"/images/([^/]+)/import$", url)
        if match:
            obj = self.cloud.find("image", match.group(1))
            if obj is None:
                return Response(404, {"message": "Image not found"})
            uri = ((json or {}).get("method") or {}).get("uri", "")
            if self.refuse_uri and uri.startswith(self.refuse_uri):
                return Response(400, {"message": f"URI {uri} is not allowed by the import filter"})
            obj["status"] = "importing"

            def imported() -> None:
                if self.import_fails:
                    obj["status"] = "queued"
                    obj["os_glance_failed_import"] = "file"
                else:
                    obj["status"] = "active"

            self.cloud.later("image.import", imported)
            return Response(202, None)
        return Response(404, {"message": url})

    def get(self, url: str, **_kw: Any) -> Response:
        match = re.match(r"/images/([^/]+)$", url)
        obj = self.cloud.find("image", match.group(1)) if match else None
        return Response(200, self._public(obj)) if obj else Response(404, {"message": "Image not found"})

    def patch(self, url: str, json: Any = None, **_kw: Any) -> Response:
        match = re.match(r"/images/([^/]+)$", url)
        obj = self.cloud.find("image", match.group(1)) if match else None
        if obj is None:
            return Response(404, {"message": "Image not found"})
        for op in json or []:
            key = op["path"].lstrip("/")
            if op["op"] == "remove":
                if key not in obj:
                    return Response(409, {"message": f"Property {key} does not exist."})
                obj.pop(key)
            elif op["op"] == "add" and key in obj and key in FIELDS:
                return Response(409, {"message": f"Property {key} already present."})
            else:
                obj[key] = op["value"]
        return Response(200, self._public(obj))

    @staticmethod
    def _public(obj: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in obj.items() if not k.startswith("_")}
