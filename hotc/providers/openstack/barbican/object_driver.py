"""The mechanics every Barbican driver shares (secrets, orders and the three container types): an object of one
``kind`` (``secrets``, ``orders``, ``containers``) named by its reference (``ref_field`` in Barbican's answers),
created once under the name hotc gives it, read one by one or from one listing, and deleted.

Heat declares no Barbican property ``update_allowed``, so the planner replaces these objects for any change and
:meth:`BarbicanDriver.update` only reads the object back. Barbican objects carry no tags, so a killed run's
object is found again by its generated name (``adopt_by_generated_name``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.openstack.barbican.common import Listed, delete, get_json, list_all, post_json
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    adopt_by_generated_name,
    create_once,
    fresh_finder,
    physical_name,
    read_back,
)


class BarbicanDriver(ListRead):
    """A driver of one Barbican object kind; subclasses give the create body and :meth:`read_outcome`."""

    kind = ""  # Barbican's collection: secrets, orders, containers
    noun = ""  # how messages name one object: secret, order, container
    ref_field = ""  # the field of Barbican's answers that holds the reference: secret_ref, ...
    name_filter = True  # whether Barbican's listing of the kind filters by ``name`` (orders' does not)

    def list_filters(self) -> dict[str, Any]:
        """What every listing of this driver's objects is filtered by (a container's ``type``)."""
        return {}

    def listing(self, ctx: ActionContext | None, conn: Any, name: str | None = None) -> list[Listed]:
        query = self.list_filters()
        if name is not None and self.name_filter:
            query["name"] = name
        found = list_all(ctx, conn, self.kind, self.ref_field, **query)
        return found if name is None else [o for o in found if o.name == name]

    def post_once(
        self,
        ctx: ActionContext,
        props: Mapping[str, Any],
        body: Callable[[str], Mapping[str, Any]],
        what: str,
    ) -> str:
        """Create the object once (a lost answer is found again by its name), record its reference, return it."""
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"))
        sent = body(name)
        find_new = fresh_finder(
            ctx, what, lambda: self.listing(ctx, conn, name), unique=not props.get("name")
        )
        made = create_once(
            ctx, what, lambda: _Made(post_json(conn, self.kind, sent)[self.ref_field]), find_new
        )
        ctx.record_physical_id(made.id)
        return str(made.id)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        data = get_json(ctx, conn, self.kind, physical_id, self.noun)
        if data is None:
            return None
        return self.read_outcome(ctx, conn, Listed(data, self.ref_field), props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return self.listing(ctx, conn)

    def read_created(self, ctx: ActionContext, ref: str, props: Mapping[str, Any]) -> Outcome:
        return read_back(self, ctx, ref, props, f"{self.noun} {ref} disappeared right after its create")

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # no property is update_allowed: the planner replaces the object for any change (as Heat does)
        return read_back(
            self, ctx, physical_id, new, f"{self.noun} {physical_id} disappeared during its update"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        delete(ctx, ctx.cloud(), self.kind, physical_id, self.noun)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, self.list_what, lambda: self.listing(ctx, conn))


class _Made:
    """The reference a create returned (all :func:`create_once` needs)."""

    def __init__(self, ref: Any) -> None:
        self.id = str(ref)
