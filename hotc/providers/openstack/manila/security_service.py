"""OS::Manila::SecurityService: the options of a security domain (LDAP, Kerberos, Active Directory) share servers
join. Created with every property the template gives, as Heat does (no name is made up when the template gives
none); every property but ``type`` is updated in place with just the changed ones. Manila gives the password
back in clear, so the ``show`` attribute is a secret as the ``password`` property is (masked in plans, encrypted
in the state)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    call,
    ignore_missing,
    read_back,
    show,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.manila.common import ManilaRead, request

FIELDS = ("name", "type", "dns_ip", "server", "domain", "user", "password", "description")


class SecurityServiceDriver(ManilaRead):
    read_what = "security service"
    collection, key = "security-services", "security_service"
    list_path, list_key = "/security-services/detail", "security_services"
    list_what = "security services"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body = {k: props[k] for k in FIELDS if props.get(k) is not None}
        made = self._create(ctx, conn, props.get("name"), body)
        return read_back(
            self, ctx, made.id, props, f"security service {made.id} disappeared right after its create"
        )

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(obj.get("name"))
        for key in FIELDS[1:]:
            if key == "password" and "password" not in obj.body:
                continue  # a Manila that hides it: the recorded value stands
            lp.text(key, obj.get(key))
        return Outcome(
            obj.id, {"show": show(dict(obj.body))}, properties=lp.result(), sensitive_attributes=("show",)
        )

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
                f"update security service {physical_id}",
                request,
                conn,
                "PUT",
                f"/security-services/{physical_id}",
                {"security_service": body},
            )
        return read_back(self, ctx, physical_id, new, f"security service {physical_id} is gone")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(
            ctx,
            f"delete security service {physical_id}",
            request,
            ctx.cloud(),
            "DELETE",
            f"/security-services/{physical_id}",
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """None: a security service carries nowhere to put hotc's stamp, and Heat gives an unnamed one no name."""
        return None


DRIVERS: dict[str, Driver] = with_defaults({"OS::Manila::SecurityService": SecurityServiceDriver()})
