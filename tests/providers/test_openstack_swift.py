"""Swift Container driver. The test cloud has no Swift (no object-store in its catalog), so these run against
an in-memory fake of openstacksdk's object-store proxy: they pin the driver's calls and semantics
(stamp, ACLs, PurgeOnDelete, non-empty refusal, adoption), not Swift itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from hotc.providers.openstack.swift import DRIVERS
from tests.providers.test_openstack_common import make_ctx

CONTAINER = DRIVERS["OS::Swift::Container"]


class HttpError(Exception):
    def __init__(self, code: int, details: str) -> None:
        super().__init__(details)
        self.status_code = code
        self.details = details


@dataclass
class Container:
    name: str
    metadata: dict[str, str] = field(default_factory=dict)
    read_ACL: str | None = None  # noqa: N815
    write_ACL: str | None = None  # noqa: N815
    objects: dict[str, bytes] = field(default_factory=dict)

    @property
    def object_count(self) -> int:
        return len(self.objects)

    @property
    def bytes_used(self) -> int:
        return sum(len(v) for v in self.objects.values())

    def to_dict(self, **_kw: Any) -> dict[str, Any]:
        return {
            "x-container-read": self.read_ACL,
            "x-container-object-count": self.object_count,
            **{f"x-container-meta-{k}": v for k, v in self.metadata.items()},
        }


@dataclass
class Obj:
    name: str


class FakeObjectStore:
    def __init__(self) -> None:
        self.containers_: dict[str, Container] = {}
        self.account: dict[str, str] = {}

    def get_endpoint(self) -> str:
        return "http://swift.example:8080/v1/AUTH_p"

    def get_container_metadata(self, name: str) -> Container:
        if name not in self.containers_:
            raise HttpError(404, f"container {name} not found")
        return self.containers_[name]

    def create_container(self, name: str, **kw: Any) -> Container:
        c = self.containers_.setdefault(name, Container(name))
        c.read_ACL = kw.get("read_ACL", c.read_ACL)
        c.write_ACL = kw.get("write_ACL", c.write_ACL)
        return c

    def set_container_metadata(self, name: str, refresh: bool = True, **md: str) -> Container:
        c = self.get_container_metadata(name)
        c.metadata.update({k.lower(): v for k, v in md.items()})
        return c

    def set_account_metadata(self, **md: str) -> None:
        self.account.update(md)

    def objects(self, name: str) -> list[Obj]:
        return [Obj(n) for n in self.get_container_metadata(name).objects]

    def delete_object(self, obj: str, container: str) -> None:
        self.get_container_metadata(container).objects.pop(obj, None)

    def delete_container(self, name: str, ignore_missing: bool = True) -> None:
        c = self.get_container_metadata(name)
        if c.objects:
            raise HttpError(409, "There was a conflict when trying to complete your request.")
        del self.containers_[name]

    def containers(self, prefix: str = "") -> list[Container]:
        return [c for n, c in self.containers_.items() if n.startswith(prefix)]


class FakeConn:
    def __init__(self) -> None:
        self.object_store = FakeObjectStore()


def test_container_create_read_delete() -> None:
    conn = FakeConn()
    ctx = make_ctx(conn, "bucket", lineage="L", stack="prod")
    props = {
        "name": None,
        "X-Container-Read": ".r:*",
        "X-Container-Meta": {"Owner": "web"},
        "X-Account-Meta": {"Quota": "1"},
        "PurgeOnDelete": False,
    }
    out = CONTAINER.create(ctx, props)
    name = out.physical_id
    assert name is not None and name.startswith("prod-bucket-")
    c = conn.object_store.containers_[name]
    assert c.read_ACL == ".r:*" and c.metadata == {
        "owner": "web",
        "hotc-lineage": "L",
        "hotc-address": "bucket",
    }
    assert conn.object_store.account == {"Quota": "1"}
    assert out.attributes["WebsiteURL"] == f"http://swift.example:8080/v1/AUTH_p/{name}"
    assert out.attributes["DomainName"] == "swift.example" and out.attributes["ObjectCount"] == 0
    assert CONTAINER.find_adoptable(ctx, props) == name
    assert CONTAINER.find_adoptable(make_ctx(conn, "bucket", lineage="other", stack="prod"), props) is None

    c.objects["a"] = b"12345"
    read = CONTAINER.read(ctx, name, props)
    assert read is not None and read.attributes["ObjectCount"] == 1 and read.attributes["BytesUsed"] == 5
    with pytest.raises(ProviderError, match="is not empty.*PurgeOnDelete"):
        CONTAINER.delete(ctx, name, props)
    CONTAINER.delete(ctx, name, {**props, "PurgeOnDelete": True})
    assert CONTAINER.read(ctx, name, props) is None
    CONTAINER.delete(ctx, name, props)  # gone: nothing to do


def test_container_name_taken_by_someone_else() -> None:
    conn = FakeConn()
    conn.object_store.create_container("shared")
    with pytest.raises(ProviderError, match="already exists"):
        CONTAINER.create(make_ctx(conn, "b"), {"name": "shared"})
    with pytest.raises(ProviderError, match="cannot be updated in place"):
        CONTAINER.update(make_ctx(conn, "b"), "shared", {}, {}, frozenset({"name"}))
