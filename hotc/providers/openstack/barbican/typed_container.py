"""What the certificate and RSA containers share: one property per secret the container holds by a fixed name
(``certificate_ref`` is the secret named ``certificate``, …), read back as the template gave the reference when it
still names the live secret."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.openstack.barbican.common import same_ref
from hotc.providers.openstack.barbican.container import ContainerDriver
from hotc.providers.openstack.live import LiveProps


class TypedContainerDriver(ContainerDriver):
    #: property -> the name of its secret in the container
    refs: Mapping[str, str] = {}

    def secret_refs(self, props: Mapping[str, Any]) -> list[dict[str, str]]:
        return [
            {"name": name, "secret_ref": str(props[key])}
            for key, name in self.refs.items()
            if props.get(key) not in (None, "")
        ]

    def live_props(self, lp: LiveProps, refs: list[tuple[str, str]]) -> None:
        live = dict(refs)
        for key, name in self.refs.items():
            given, found = lp.props.get(key), live.get(name)
            lp.put(key, given if (given == found or same_ref(given, found)) else found)
