"""OS::Barbican::RSAContainer: an RSA key pair and the private key's passphrase (mechanics in
:mod:`hotc.providers.openstack.barbican.container`)."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.barbican.typed_container import TypedContainerDriver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.schemas.barbican import RSA_REFS


class RSAContainerDriver(TypedContainerDriver):
    container_type = "rsa"
    refs = RSA_REFS


DRIVERS: dict[str, Driver] = with_defaults({"OS::Barbican::RSAContainer": RSAContainerDriver()})
