"""OS::Heat::None: accepts any properties, creates nothing, every attribute is null."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Outcome


class NoneDriver:
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        return Outcome(str(uuid.uuid4()), {})

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        return Outcome(physical_id, {})

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        return Outcome(physical_id, {})

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        return None

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None  # nothing exists outside the state
