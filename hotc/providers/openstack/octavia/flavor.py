"""OS::Octavia::FlavorProfile and OS::Octavia::Flavor (admin-only under Octavia's default policy). Neither has
anywhere to carry hotc's stamp (no tags, no metadata), so each is adopted only by the name hotc generated for its
stack and address. A flavor's profile replaces it (as in Heat); the rest of both is updated in place. A profile's
``flavor_data`` is JSON text: a read reports it as the template wrote it while it holds the same JSON."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
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
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.octavia.base import find_flavor_profile

NAME_LIMIT = 255


def same_json(given: Any, live: Any) -> bool:
    try:
        return bool(json.loads(str(given)) == json.loads(str(live)))
    except ValueError:
        return str(given) == str(live)


class _Named(ListRead):
    """Create/read/update/delete of an Octavia admin object that has a name and nothing else to stamp."""

    kind = ""  # proxy name: flavor, flavor_profile
    what = ""

    def body(
        self, ctx: ActionContext, conn: Any, props: Mapping[str, Any], keys: Iterable[str]
    ) -> dict[str, Any]:
        raise NotImplementedError

    def live(self, lp: LiveProps, obj: Any) -> None:
        raise NotImplementedError

    def attributes(self, obj: Any) -> dict[str, Any]:
        return {}

    def _proxy(self, conn: Any, verb: str) -> Any:
        return getattr(conn.load_balancer, f"{verb}_{self.kind}")

    def _all(self, conn: Any) -> list[Any]:
        return list(getattr(conn.load_balancer, f"{self.kind}s")())

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body = self.body(ctx, conn, props, props.keys())
        body["name"] = physical_name(ctx, props.get("name"), limit=NAME_LIMIT)
        find_new = fresh_finder(
            ctx, f"create {self.what}", lambda: [o for o in self._all(conn) if o.name == body["name"]]
        )
        obj = create_once(ctx, f"create {self.what}", lambda: self._proxy(conn, "create")(**body), find_new)
        ctx.record_physical_id(str(obj.id))
        return read_back(
            self, ctx, str(obj.id), props, f"{self.what} {obj.id} disappeared right after its create"
        )

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        obj = get_or_none(ctx, f"read {self.what} {physical_id}", self._proxy(conn, "get"), physical_id)
        if obj is None:
            return None
        return self.read_outcome(ctx, conn, obj, props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return self._all(conn)

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(obj.name, limit=NAME_LIMIT)
        self.live(lp, obj)
        return replace(outcome(obj, self.attributes(obj)), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        body = self.body(ctx, conn, new, changed)
        if "name" in changed:
            body["name"] = physical_name(ctx, new.get("name"), limit=NAME_LIMIT)
        if body:
            call(ctx, f"update {self.what} {physical_id}", self._proxy(conn, "update"), physical_id, **body)
        return read_back(
            self, ctx, physical_id, new, f"{self.what} {physical_id} disappeared during its update"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        ignore_missing(
            ctx,
            f"delete {self.what} {physical_id}",
            self._proxy(conn, "delete"),
            physical_id,
            ignore_missing=False,
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, f"{self.what}s", lambda: self._all(conn), NAME_LIMIT)


class FlavorProfileDriver(_Named):
    kind, what, list_what = "flavor_profile", "load balancer flavor profile", "load balancer flavor profiles"

    def body(
        self, ctx: ActionContext, conn: Any, props: Mapping[str, Any], keys: Iterable[str]
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in ("flavor_data", "provider_name"):
            if key in keys and props.get(key) is not None:
                out[key] = props[key]
        return out

    def live(self, lp: LiveProps, obj: Any) -> None:
        given = lp.props.get("flavor_data")
        lp.put("flavor_data", given if same_json(given, obj.flavor_data) else obj.flavor_data)
        lp.chosen("provider_name", obj.provider_name)


class FlavorDriver(_Named):
    kind, what, list_what = "flavor", "load balancer flavor", "load balancer flavors"

    def body(
        self, ctx: ActionContext, conn: Any, props: Mapping[str, Any], keys: Iterable[str]
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "description" in keys:
            out["description"] = props.get("description") or ""
        if "enabled" in keys:
            out["is_enabled"] = props.get("enabled", True) is not False
        if "flavor_profile" in keys and props.get("flavor_profile"):
            out["flavor_profile_id"] = str(find_flavor_profile(ctx, conn, props["flavor_profile"]).id)
        return out

    def live(self, lp: LiveProps, obj: Any) -> None:
        lp.text("description", obj.description or "")
        lp.put("enabled", bool(obj.is_enabled))
        lp.ref("flavor_profile", obj.flavor_profile_id, "load balancer flavor profile", find_flavor_profile)

    def attributes(self, obj: Any) -> dict[str, Any]:
        return {"flavor_profile_id": obj.flavor_profile_id}


DRIVERS: dict[str, Driver] = with_defaults(
    {"OS::Octavia::FlavorProfile": FlavorProfileDriver(), "OS::Octavia::Flavor": FlavorDriver()}
)
