"""OS::Heat::DeployedServer: a server the stack did not make (bare metal, another cloud, a VM made by hand),
given software deployments through the same metadata object a Nova server with ``user_data_format:
SOFTWARE_CONFIG`` gets (Heat's ``POLL_TEMP_URL`` transport, over the signal store).

Create makes the server's private metadata object (``deployments`` and ``os-collect-config`` with the
``request`` collector's presigned ``metadata_url``; collectors ``request`` and ``local``, as Heat gives a
deployed server) and registers the resource's id as a server id, so that deployments naming it
(``server: {get_resource: ...}``) publish there. The ``os_collect_config`` attribute is that configuration:
the server's operator writes it into ``/etc/os-collect-config.conf`` (``[request] metadata_url``), as with Heat.
It holds a presigned URL, so it is a sensitive value (masked in plans and outputs, encrypted in the state).
``deployment_swift_data.object`` names the metadata object (under the store's ``servers/``), its ``container``
is not used (the store's bucket holds it). Delete removes the object; nothing is done to the server itself.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.naming import physical_name
from hotc.providers.native.server_metadata import (
    forget_server,
    new_metadata_object,
    register_server,
    server_metadata_key,
)

COLLECTORS = ["request", "local"]
SECRETS = ("os_collect_config",)
KEY_ATTR = "hotc:metadata_key"  # the metadata object's key in the store (not a credential)


def _object_name(props: Mapping[str, Any]) -> str | None:
    data = props.get("deployment_swift_data")
    name = data.get("object") if isinstance(data, Mapping) else None
    if not isinstance(name, str) or not name:
        return None
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name)


class DeployedServerDriver:
    def _outcome(self, pid: str, attrs: Mapping[str, Any]) -> Outcome:
        return Outcome(pid, attrs, sensitive_attributes=SECRETS)

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        pid = str(uuid.uuid4())
        doc, key = new_metadata_object(ctx, COLLECTORS, _object_name(props))
        register_server(ctx, pid, key)
        ctx.record_physical_id(pid)
        name = props.get("name") or physical_name(ctx.stack_name, ctx.address)
        return self._outcome(
            pid, {"name": name, "os_collect_config": doc["os-collect-config"], KEY_ATTR: key}
        )

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        """Heat's read: ``name`` from the properties (or the physical name), ``os_collect_config`` from the
        server's metadata each time (``CACHE_NONE``), which here is the metadata object in the signal store (a
        deployment's rewrite gives it a fresh URL); the object gone, the server's deployment data is gone (None).
        Read without a signal store (``hotc check``), the state's values are kept."""
        try:
            store = ctx.signals()
        except HotcError:
            return self._outcome(physical_id, {})
        key = server_metadata_key(ctx, physical_id)
        raw = store.get(key) if key is not None else None
        if raw is None:
            return None
        doc = json.loads(raw)
        occ = doc.get("os-collect-config", {}) if isinstance(doc, Mapping) else {}
        name = props.get("name") or physical_name(ctx.stack_name, ctx.address)
        return self._outcome(physical_id, {"name": name, "os_collect_config": occ, KEY_ATTR: key})

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # name: Heat only renames its record; metadata: ignored (deprecated); the transport and object stay
        attrs: dict[str, Any] = {}
        if "name" in changed and new.get("name"):
            attrs["name"] = new["name"]
        return self._outcome(physical_id, attrs)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        forget_server(ctx, physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None
