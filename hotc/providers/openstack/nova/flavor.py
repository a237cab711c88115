"""OS::Nova::Flavor. Flavors carry the stamp as extra specs in the ``hotc:`` namespace."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    TAG_LINEAGE,
    call,
    create_once,
    fresh_finder,
    get_or_none,
    ignore_missing,
    newest,
    outcome,
    physical_name,
    plain,
    read_back,
    stamp,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, match_items

SPEC_LINEAGE = "hotc:lineage"
SPEC_ADDRESS = "hotc:address"


class FlavorDriver(ListRead):
    list_what = "flavors"

    """Flavors carry the stamp as extra specs ``hotc:lineage`` / ``hotc:address`` (an unregistered namespace
    that Nova's scheduler filters ignore)."""

    def _stamp_specs(self, ctx: ActionContext) -> dict[str, str]:
        st = stamp(ctx)
        return {SPEC_LINEAGE: st[TAG_LINEAGE], SPEC_ADDRESS: st[TAG_ADDRESS]}

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body: dict[str, Any] = {
            "name": physical_name(ctx, props.get("name")),
            "ram": props["ram"],
            "vcpus": props["vcpus"],
            "disk": props.get("disk") or 0,
            "swap": props.get("swap") or 0,
            "ephemeral": props.get("ephemeral") or 0,
            "rxtx_factor": props.get("rxtx_factor") if props.get("rxtx_factor") is not None else 1.0,
            "is_public": props.get("is_public", True) if props.get("is_public") is not None else True,
        }
        if props.get("flavorid"):
            body["id"] = str(props["flavorid"])
        find_new = fresh_finder(
            ctx,
            "create flavor",
            lambda: [f for f in conn.compute.flavors(is_public=None) if f.name == body["name"]],
        )
        flavor = create_once(ctx, "create flavor", lambda: conn.compute.create_flavor(**body), find_new)
        ctx.record_physical_id(flavor.id)
        specs = {str(k): str(v) for k, v in (props.get("extra_specs") or {}).items()}
        specs.update(self._stamp_specs(ctx))
        call(
            ctx,
            f"set extra specs of flavor {flavor.id}",
            conn.compute.create_flavor_extra_specs,
            flavor.id,
            specs,
        )
        if not body["is_public"]:
            for tenant in props.get("tenants") or []:
                call(
                    ctx,
                    f"give project {tenant} access to flavor {flavor.id}",
                    conn.compute.flavor_add_tenant_access,
                    flavor.id,
                    tenant,
                )
        out = self.read(ctx, flavor.id, props)
        assert out is not None
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        flavor = get_or_none(ctx, f"read flavor {physical_id}", conn.compute.get_flavor, physical_id)
        if flavor is None:
            return None
        return self.read_outcome(ctx, conn, flavor, props, listed=False)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.compute.flavors(is_public=None))

    def read_outcome(
        self, ctx: ActionContext, conn: Any, flavor: Any, props: Mapping[str, Any], listed: bool = True
    ) -> Outcome:
        """Attributes and live properties of ``flavor``; a listed flavor carries its extra specs (Nova >= 2.61)
        and a fetched one gets them with one more call."""
        specs = flavor.extra_specs if listed and flavor.extra_specs is not None else None
        if specs is None:
            fetched = get_or_none(
                ctx,
                f"read extra specs of flavor {flavor.id}",
                conn.compute.fetch_flavor_extra_specs,
                flavor.id,
            )
            specs = getattr(fetched, "extra_specs", None) or flavor.extra_specs
        extra = dict(specs or {})
        user_specs = {k: v for k, v in extra.items() if k not in (SPEC_LINEAGE, SPEC_ADDRESS)}
        out = outcome(flavor, {"is_public": flavor.is_public, "extra_specs": user_specs})
        return replace(out, properties=self._live_properties(ctx, conn, flavor, user_specs, props))

    @staticmethod
    def _live_properties(
        ctx: ActionContext, conn: Any, flavor: Any, specs: Mapping[str, Any], props: Mapping[str, Any]
    ) -> dict[str, Any]:
        lp = LiveProps(ctx, conn, props)
        lp.name(flavor.name)
        lp.text("flavorid", flavor.id)
        for key in ("ram", "vcpus", "disk"):
            lp.put(key, getattr(flavor, key, None))
        lp.put("swap", int(flavor.swap or 0))  # Nova shows no swap as ""
        lp.put("ephemeral", int(flavor.ephemeral or 0))
        lp.put("rxtx_factor", float(flavor.rxtx_factor) if flavor.rxtx_factor is not None else 1.0)
        lp.put("is_public", flavor.is_public)
        lp.mapping("extra_specs", specs)
        if props.get("tenants") and not flavor.is_public:
            access = get_or_none(
                ctx, f"read access list of flavor {flavor.id}", conn.compute.get_flavor_access, flavor.id
            )
            live = [str(a.get("tenant_id") if isinstance(a, Mapping) else a) for a in access or []]
            lp.put("tenants", match_items(props["tenants"], live, lambda g, t: str(g) == t, lambda t: t))
        return lp.result()

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
            want = {str(k): str(v) for k, v in (new.get("extra_specs") or {}).items()}
            want.update(self._stamp_specs(ctx))
            specs = call(
                ctx,
                f"read extra specs of flavor {physical_id}",
                conn.compute.fetch_flavor_extra_specs,
                physical_id,
            )
            for key in dict(specs.extra_specs or {}):
                if key not in want:
                    call(
                        ctx,
                        f"delete extra spec {key} of flavor {physical_id}",
                        conn.compute.delete_flavor_extra_specs_property,
                        physical_id,
                        key,
                    )
            call(
                ctx,
                f"set extra specs of flavor {physical_id}",
                conn.compute.create_flavor_extra_specs,
                physical_id,
                want,
            )
        if "tenants" in changed:
            old_t, new_t = set(old.get("tenants") or []), set(new.get("tenants") or [])
            for t in sorted(new_t - old_t):
                call(
                    ctx,
                    f"give project {t} access to flavor {physical_id}",
                    conn.compute.flavor_add_tenant_access,
                    physical_id,
                    t,
                )
            for t in sorted(old_t - new_t):
                ignore_missing(
                    ctx,
                    f"remove access of project {t} to flavor {physical_id}",
                    conn.compute.flavor_remove_tenant_access,
                    physical_id,
                    t,
                )
        return read_back(self, ctx, physical_id, new, f"flavor {physical_id} disappeared during its update")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(ctx, f"delete flavor {physical_id}", ctx.cloud().compute.delete_flavor, physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        found = self._find(ctx, ctx.cloud())
        return None if found is None else str(found.id)

    def _find(self, ctx: ActionContext, conn: Any) -> Any:
        want = self._stamp_specs(ctx)
        flavors = call(ctx, "list flavors", lambda: list(conn.compute.flavors(is_public=None)))
        return newest(
            f for f in flavors if all(plain(f.extra_specs or {}).get(k) == v for k, v in want.items())
        )


DRIVERS: dict[str, Driver] = with_defaults({"OS::Nova::Flavor": FlavorDriver()})
