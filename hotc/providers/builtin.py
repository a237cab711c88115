"""hotc's own resource types, offered through the plugin entry point group like any plugin's
(``builtin = "hotc.providers.builtin:resource_types"`` in hotc's pyproject): every schema of
:mod:`hotc.providers.schemas` with its driver (resolved when first used, so listing the types does not
import openstacksdk), or the reason apply refuses it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from hotc.providers.base import ActionContext, Outcome, PluginType
from hotc.providers.drivers import driver_for
from hotc.providers.registry import builtin_schemas


class LazyDriver:
    """A built-in driver looked up on first use (the OpenStack drivers import openstacksdk)."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def _driver(self) -> Any:
        return driver_for(self.type_name)

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        out: Outcome = self._driver().create(ctx, props)
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        out: Outcome | None = self._driver().read(ctx, physical_id, props)
        return out

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        out: Outcome = self._driver().update(ctx, physical_id, old, new, changed)
        return out

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = "Delete"
    ) -> None:
        self._driver().delete(ctx, physical_id, props, policy=policy)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        found: str | None = self._driver().find_adoptable(ctx, props)
        return found

    def __getattr__(self, name: str) -> Any:
        """The driver's optional methods (suspend, resume, prepare_for_replace, ...), where it has them."""
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._driver(), name)


def resource_types() -> Iterator[PluginType]:
    """Every built-in schema with a driver resolved on first use; whether apply supports a type is answered
    by :func:`hotc.providers.drivers.support_problem` (listing types never imports openstacksdk)."""
    for name, schema in builtin_schemas().items():
        yield PluginType(schema, LazyDriver(name))
