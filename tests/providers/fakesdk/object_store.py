"""The fake object-store proxy (Swift): containers with ACLs and metadata, objects, a non-empty container's
delete refused with 409 (as Swift), account metadata."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from openstack.object_store.v1.container import Container
from openstack.object_store.v1.obj import Object

from tests.providers.fakesdk.core import Cloud, Proxy, conflict, not_found, oid

ENDPOINT = "http://127.0.0.1:8080/v1/AUTH_p-0001"


class ObjectStoreProxy(Proxy):
    service = "object_store"

    def __init__(self, cloud: Cloud) -> None:
        super().__init__(cloud)
        self.account_metadata: dict[str, str] = {}

    def _res(self, obj: dict[str, Any]) -> Any:
        c = Container.existing(
            id=obj["name"],
            name=obj["name"],
            read_ACL=obj.get("read_ACL"),
            write_ACL=obj.get("write_ACL"),
            object_count=len(obj["_objects"]),
            bytes_used=sum(len(b) for b in obj["_objects"].values()),
        )
        c.metadata = dict(obj["metadata"])  # as the SDK sets it from the X-Container-Meta-* headers
        return c

    def _get(self, name: Any) -> dict[str, Any]:
        return self.cloud.get("container", oid(name), "Container")

    def create_container(self, name: str, **attrs: Any) -> Any:
        obj = self.cloud.find("container", name)
        if obj is None:  # a PUT of an existing container only updates it
            obj = self.cloud.put("container", {"id": name, "name": name, "metadata": {}, "_objects": {}})
        obj.update({k: v for k, v in attrs.items() if k in ("read_ACL", "write_ACL")})
        return self._res(obj)

    def get_container_metadata(self, name: Any) -> Any:
        return self._res(self._get(name))

    def set_container_metadata(self, name: Any, refresh: bool = True, **metadata: Any) -> Any:
        obj = self._get(name)
        obj["metadata"].update({str(k).lower(): str(v) for k, v in metadata.items()})
        return self._res(obj)

    def containers(self, prefix: str | None = None, **_: Any) -> Iterator[Any]:
        for obj in list(self.cloud.all("container")):
            if prefix is None or obj["name"].startswith(prefix):
                yield Container.existing(id=obj["name"], name=obj["name"])

    def delete_container(self, name: Any, ignore_missing: bool = True) -> None:
        obj = self.cloud.find("container", oid(name))
        if obj is None:
            if not ignore_missing:
                raise not_found(f"Container {oid(name)}")
            return
        if obj["_objects"]:
            raise conflict("There was a conflict when trying to complete your request.")
        self.cloud.drop("container", obj["name"])

    def objects(self, container: Any, **_: Any) -> Iterator[Any]:
        for key in list(self._get(container)["_objects"]):
            yield Object.existing(id=key, name=key, container=oid(container))

    def upload_object(self, container: Any, name: str, data: bytes = b"") -> None:
        self._get(container)["_objects"][name] = data

    def delete_object(self, obj: Any, container: Any = None, ignore_missing: bool = True) -> None:
        objects = self._get(container)["_objects"]
        if oid(obj) not in objects and not ignore_missing:
            raise not_found(f"Object {oid(obj)}")
        objects.pop(oid(obj), None)

    def set_account_metadata(self, **metadata: Any) -> None:
        self.account_metadata.update({str(k): str(v) for k, v in metadata.items()})

    def get_endpoint(self) -> str:
        return ENDPOINT
