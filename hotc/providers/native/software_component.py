"""OS::Heat::SoftwareComponent: one config object holding a config per lifecycle action (``configs``: each
with ``actions``, ``config`` and ``tool``), as Heat stores it: group ``component`` and config
``{"configs": [...]}``. A deployment of it runs the actions its configs name (not the deployment's
``actions``), each time publishing the whole component; the in-instance hook picks the config of
``deploy_action``. ``get_attr: [component, config]`` gives ``{"configs": [...]}``, as in Heat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.native.software_config import _ConfigDriver

COMPONENT = "component"


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
    def group(self, props: Mapping[str, Any]) -> str:
        return COMPONENT

    def content(self, ctx: ActionContext, props: Mapping[str, Any]) -> Any:
        return {"configs": component_configs(props)}
