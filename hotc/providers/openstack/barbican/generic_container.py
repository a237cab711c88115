"""OS::Barbican::GenericContainer: any secrets under names of the template's choosing (mechanics in
:mod:`hotc.providers.openstack.barbican.container`). ``secrets`` is read back item for item as the template gave
each one that is still in the container, then the secrets the container holds besides (added outside hotc)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import Driver
from hotc.providers.openstack.barbican.common import same_ref
from hotc.providers.openstack.barbican.container import ContainerDriver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.live import LiveProps, match_items


class GenericContainerDriver(ContainerDriver):
    container_type = "generic"

    def secret_refs(self, props: Mapping[str, Any]) -> list[dict[str, str]]:
        return [
            {"name": str(s.get("name")), "secret_ref": str(s.get("ref"))}
            for s in props.get("secrets") or []
            if isinstance(s, Mapping)
        ]

    def live_props(self, lp: LiveProps, refs: list[tuple[str, str]]) -> None:
        if not lp.wants("secrets"):
            return
        given = lp.props.get("secrets")
        lp.put(
            "secrets",
            match_items(
                given or [],
                refs,
                lambda g, live: (
                    isinstance(g, Mapping) and g.get("name") == live[0] and same_ref(g.get("ref"), live[1])
                ),
                lambda live: {"name": live[0], "ref": live[1]},
            )
            if given is not None or refs
            else given,
        )


DRIVERS: dict[str, Driver] = with_defaults({"OS::Barbican::GenericContainer": GenericContainerDriver()})
