"""What the tagged Neutron types share: create (then tag with the stamp), read with live properties, update,
delete, adoption by the stamp or by a generated name (:class:`NeutronDriver`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.openstack.batch import ListRead, lineage_tag
from hotc.providers.openstack.common import (
    NotFound,
    beside,
    call,
    create_once,
    get_or_none,
    ignore_missing,
    is_generated_name,
    merge_tags,
    newest,
    outcome,
    physical_name,
    remember_made,
    stamp_tags,
    user_tags,
)
from hotc.providers.openstack.live import LiveProps


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        body[key] = value


class NeutronDriver(ListRead):
    """Create/read/update/delete of one tagged Neutron resource kind through the network proxy.

    Subclasses give ``kind`` (the proxy's singular name: ``network``, ``ip``, …), ``plural`` (its list
    method), ``what`` (for messages), and build request bodies from Heat's properties.
    """

    kind = ""
    plural = ""
    what = ""
    attribute_names: tuple[str, ...] = ()
    # property -> API field copied as-is on create and update
    simple: Mapping[str, str] = {}
    tagged = True
    # whether ``attributes`` reads other objects (a port's subnets and network): a create then reads them while
    # its tags are being put (the attributes do not depend on the tags), not after
    attributes_read = False
    # whether the object the POST answers is usable as it is (what needs only its id may start then): False
    # when ``after_create`` must finish it first (a trunk's sub-ports). A security group's rules, made by
    # after_create, are not waited for: Neutron applies a group's rules to its ports as they are added
    usable_when_made = True

    # -- subclass hooks
    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for prop, field in self.simple.items():
            _put(body, field, props.get(prop))
        body.update(props.get("value_specs") or {})
        if "name" in self.simple:
            body["name"] = physical_name(ctx, props.get("name"))
        return body

    def update_body(
        self,
        ctx: ActionContext,
        conn: Any,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for prop, field in self.simple.items():
            if prop in changed and new.get(prop) is not None:
                body[field] = new.get(prop)
        if "name" in changed and "name" in self.simple:
            body["name"] = physical_name(ctx, new.get("name"))
        if "value_specs" in changed:
            body.update(new.get("value_specs") or {})
        return body

    def attributes(self, ctx: ActionContext, conn: Any, res: Any) -> dict[str, Any]:
        raw = res.to_dict(original_names=True)
        return {k: raw.get(k) for k in self.attribute_names}

    def after_create(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> None:
        return None

    # -- proxy plumbing
    def _proxy(self, conn: Any, verb: str) -> Callable[..., Any]:
        name = self.plural if verb == "list" else f"{verb}_{self.kind}"
        proxy: Callable[..., Any] = getattr(conn.network, name)
        return proxy

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        """hotc's objects of this kind: one list call filtered by the lineage tag (all of them when untagged)."""
        if self.tagged:
            return list(self._proxy(conn, "list")(tags=[lineage_tag(ctx)]))
        return list(self._proxy(conn, "list")())

    def _get(self, ctx: ActionContext, conn: Any, pid: str) -> Any:
        return get_or_none(ctx, f"read {self.what} {pid}", self._proxy(conn, "get"), pid)

    # -- Driver protocol
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body = self.create_body(ctx, conn, props)
        res = create_once(
            ctx,
            f"create {self.what}",
            lambda: self._proxy(conn, "create")(**body),
            lambda: self._find_just_made(ctx, conn, body.get("name")),
        )
        ctx.record_physical_id(res.id)
        remember_made(ctx, self.kind, res.id)  # what refers to it in this run needs no look-up of it
        plain = type(self).after_create is NeutronDriver.after_create
        if self.usable_when_made:  # the POST's answer is the object as made: what needs only its id may start
            ctx.ready_for_dependents()
        early: list[dict[str, Any]] = []  # the attributes, read while the tags are put
        if self.tagged:  # Neutron takes no tags in a POST: stamp right after, once the id is recorded
            made = res

            def tag() -> Any:
                return call(
                    ctx,
                    f"tag {self.what} {made.id}",
                    conn.network.set_tags,
                    made,
                    merge_tags(ctx, props.get("tags")),
                )

            if plain and self.attributes_read:
                early, tagged = beside(lambda: self.attributes(ctx, conn, made), tag, "hotc-attributes")
            else:
                tagged = tag()
            res = tagged if tagged is not None else res  # openstacksdk: the same object, with its new tags
        if plain:
            # the POST's answer is the object as made (set_tags has put the tags in it): no read back
            if early:  # (a failed early read is made again here, and reports its error)
                return outcome(res, early[0])
            return self._outcome(ctx, conn, res)
        self.after_create(ctx, conn, res, props)  # it changes the object (rules, a trunk's build): read it
        if not self.usable_when_made:
            ctx.ready_for_dependents()
        return self._outcome(ctx, conn, self._get(ctx, conn, res.id) or res)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        res = self._get(ctx, conn, physical_id)
        return None if res is None else self.read_outcome(ctx, conn, res, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> Outcome:
        """The outcome of a read of ``res`` (also from a list call): attributes and live properties."""
        lp = LiveProps(ctx, conn, props)
        raw = res.to_dict(original_names=True)
        if "name" in self.simple:
            lp.name(raw.get("name"))
        if self.tagged:
            lp.put("tags", user_tags(raw.get("tags")))
        self.live_properties(lp, raw)
        return replace(self._outcome(ctx, conn, res), properties=lp.result())

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        """Subclasses report their properties from the API representation ``raw``."""
        return None

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        body = self.update_body(ctx, conn, old, new, changed)
        if body:
            call(ctx, f"update {self.what} {physical_id}", self._proxy(conn, "update"), physical_id, **body)
        if self.tagged and "tags" in changed:
            res = self._proxy(conn, "get")(physical_id)
            call(
                ctx,
                f"tag {self.what} {physical_id}",
                conn.network.set_tags,
                res,
                merge_tags(ctx, new.get("tags")),
            )
        self.update_extra(ctx, conn, physical_id, old, new, changed)
        res = self._get(ctx, conn, physical_id)
        if res is None:
            raise NotFound(f"{self.what} {physical_id} disappeared during its update")
        return self._outcome(ctx, conn, res)

    def update_extra(
        self,
        ctx: ActionContext,
        conn: Any,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> None:
        return None

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        """The DELETE (a 404 is done). Neutron deletes synchronously: its answer to the DELETE means the object
        is gone (an object in use is refused with a 409, which raises), so no read follows it; on a chain of
        deletes (floating IP, router interface, router, subnet, network) each read was a round trip more."""
        conn = ctx.cloud()
        ignore_missing(ctx, f"delete {self.what} {physical_id}", self._proxy(conn, "delete"), physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        res = self._find(ctx, conn)
        if res is None and self.tagged and "name" in self.simple and not props.get("name"):
            res = self._find_untagged(ctx, conn)
        return None if res is None else str(res.id)

    def _find(self, ctx: ActionContext, conn: Any) -> Any:
        """Ours by the stamp (the newest, when a replacement left two)."""
        if not self.tagged:
            return None
        found = call(
            ctx, f"search {self.what}", lambda: list(self._proxy(conn, "list")(tags=stamp_tags(ctx)))
        )
        return newest(found)

    def _find_just_made(self, ctx: ActionContext, conn: Any, name: str | None) -> Any:
        """What a create whose answer was lost made: not yet tagged (tags come after the create), with the name
        sent. Never a tagged resource: that would be an older instance of this address (a replacement)."""
        if not name:
            return None
        found = call(ctx, f"search {self.what}", lambda: list(self._proxy(conn, "list")(name=name)))
        return newest(r for r in found if not r.tags)

    def _find_untagged(self, ctx: ActionContext, conn: Any) -> Any:
        """A resource created but never stamped (the run died between the create and the tagging): untagged and
        named as hotc names this stack's resource at this address. (A name the template gives is not enough
        evidence: something else may carry it.)"""
        items = call(ctx, f"search {self.what}", lambda: list(self._proxy(conn, "list")()))
        for r in items:
            if not r.tags and is_generated_name(ctx, r.name):
                return r
        return None

    def _outcome(self, ctx: ActionContext, conn: Any, res: Any) -> Outcome:
        return outcome(res, self.attributes(ctx, conn, res))
