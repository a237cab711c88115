"""The mechanics the three Barbican container types share (one type per module: ``generic_container``,
``certificate_container``, ``rsa_container``): create, read, delete and adoption of a container named by its
reference (the physical id, as in Heat).

A container holds references to secrets under names (``certificate``, ``private_key``, … for the typed ones).
Heat declares no property ``update_allowed``, so any change replaces the container; a secret added to or removed
from a generic container outside hotc is drift (the plan replaces the container, as Heat would for that change).
Attributes as Heat reads them: ``status``, ``container_ref``, ``secret_refs`` (name -> reference) and
``consumers``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import ActionContext, Outcome
from hotc.providers.openstack.barbican.object_driver import BarbicanDriver
from hotc.providers.openstack.common import (
    ProviderError,
)
from hotc.providers.openstack.live import LiveProps

KIND = "containers"


class ContainerDriver(BarbicanDriver):
    """One container type: ``container_type`` is Barbican's (generic, certificate, rsa); subclasses say which
    secrets the properties name (:meth:`secret_refs`) and how the live ones are reported (:meth:`live_props`)."""

    container_type = "generic"
    list_what = kind = KIND
    noun, ref_field = "container", "container_ref"

    def secret_refs(self, props: Mapping[str, Any]) -> list[dict[str, str]]:
        raise NotImplementedError

    def live_props(self, lp: LiveProps, refs: list[tuple[str, str]]) -> None:
        raise NotImplementedError

    def list_filters(self) -> dict[str, Any]:
        return {"type": self.container_type}

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        ref = self.post_once(
            ctx,
            props,
            lambda name: {"type": self.container_type, "name": name, "secret_refs": self.secret_refs(props)},
            f"create {self.container_type} container",
        )
        out = self.read_created(ctx, ref, props)
        if str(out.attributes.get("status") or "").upper() == "ERROR":
            show = out.attributes.get("show") or {}
            raise ProviderError(
                f"Container '{ctx.address}' creation failed: {show.get('error_status_code')} - "
                f"{show.get('error_reason')}"
            )
        return out

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        data: dict[str, Any] = obj.data
        refs = [
            (str(r.get("name")), str(r.get("secret_ref")))
            for r in data.get("secret_refs") or []
            if isinstance(r, Mapping)
        ]
        lp = LiveProps(ctx, conn, props)
        lp.name(data.get("name"))
        self.live_props(lp, refs)
        attrs = {
            "status": data.get("status"),
            "container_ref": data.get("container_ref"),
            "secret_refs": dict(refs),
            "consumers": list(data.get("consumers") or []),
            "show": data,
        }
        return replace(Outcome(str(data.get("container_ref") or obj.id), attrs), properties=lp.result())
