"""OS::Heat::SoftwareComponent: one config object holding a config per lifecycle action (``configs``: each
with ``actions``, ``config`` and ``tool``), as Heat stores it: group ``component`` and config
``{"configs": [...]}``. A deployment of it runs the actions its configs name (not the deployment's
``actions``), each time publishing the whole component; the in-instance hook picks the config of
``deploy_action`` (heat-agents' 55-heat-config does: it runs the config with the hook its ``tool`` names).
``get_attr: [component, config]`` is null, as in Heat."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Outcome
from hotc.providers.native.software_config import _ConfigDriver

COMPONENT = "component"


def _null_config(out: Outcome) -> Outcome:
    return dataclasses.replace(out, attributes={**out.attributes, "config": None})


def component_configs(props: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``configs`` with Heat's defaults (``actions`` CREATE and UPDATE)."""
    out = []
    for item in props.get("configs") or []:
        d = dict(item) if isinstance(item, Mapping) else {}
        d.setdefault("actions", ["CREATE", "UPDATE"])
        d.setdefault("config", None)
        out.append(d)
    return out


class SoftwareComponentDriver(_ConfigDriver):
    """Heat's SoftwareComponent answers only ``configs`` (which its attributes schema lacks, so no template can
    ask for it): ``get_attr: [component, config]`` is null in Heat, and so here; deployments read ``show``."""

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        return _null_config(super().create(ctx, props))

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        out = super().read(ctx, physical_id, props)
        return _null_config(out) if out is not None else None

    def group(self, props: Mapping[str, Any]) -> str:
        return COMPONENT

    def content(self, ctx: ActionContext, props: Mapping[str, Any]) -> Any:
        return {"configs": component_configs(props)}
