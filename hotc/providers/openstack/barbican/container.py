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

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.openstack.barbican.common import Listed, delete, get_json, list_all, post_json
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    ProviderError,
    adopt_by_generated_name,
    create_once,
    fresh_finder,
    physical_name,
    read_back,
)
from hotc.providers.openstack.live import LiveProps

KIND = "containers"


class ContainerDriver(ListRead):
    """One container type: ``container_type`` is Barbican's (generic, certificate, rsa); subclasses say which
    secrets the properties name (:meth:`secret_refs`) and how the live ones are reported (:meth:`live_props`)."""

    container_type = "generic"
    list_what = "containers"

    def secret_refs(self, props: Mapping[str, Any]) -> list[dict[str, str]]:
        raise NotImplementedError

    def live_props(self, lp: LiveProps, refs: list[tuple[str, str]]) -> None:
        raise NotImplementedError

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"))
        body = {"type": self.container_type, "name": name, "secret_refs": self.secret_refs(props)}
        what = f"create {self.container_type} container"
        find_new = fresh_finder(
            ctx,
            what,
            lambda: [c for c in list_all(ctx, conn, KIND, "container_ref", name=name) if c.name == name],
            unique=not props.get("name"),
        )
        made = create_once(ctx, what, lambda: _Made(post_json(conn, KIND, body)["container_ref"]), find_new)
        ctx.record_physical_id(made.id)
        out = read_back(self, ctx, made.id, props, f"container {made.id} disappeared right after its create")
        if str(out.attributes.get("status") or "").upper() == "ERROR":
            show = out.attributes.get("show") or {}
            raise ProviderError(
                f"Container '{ctx.address}' creation failed: {show.get('error_status_code')} - "
                f"{show.get('error_reason')}"
            )
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        data = get_json(ctx, conn, KIND, physical_id, "container")
        if data is None:
            return None
        return self.read_outcome(ctx, conn, Listed(data, "container_ref"), props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list_all(ctx, conn, KIND, "container_ref", type=self.container_type)

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

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # no property is update_allowed: the planner replaces a container for any change (as Heat does)
        return read_back(
            self, ctx, physical_id, new, f"container {physical_id} disappeared during its update"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        delete(ctx, ctx.cloud(), KIND, physical_id, "container")

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(
            ctx,
            props,
            "containers",
            lambda: list_all(ctx, conn, KIND, "container_ref", type=self.container_type),
        )


class _Made:
    """The reference a create returned (all :func:`create_once` needs)."""

    def __init__(self, ref: str) -> None:
        self.id = str(ref)
