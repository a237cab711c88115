"""OS::Barbican::CertificateContainer: a certificate with its private key, the key's passphrase and the
intermediates (mechanics in :mod:`hotc.providers.openstack.barbican.container`)."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.barbican.typed_container import TypedContainerDriver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.schemas.barbican import CERTIFICATE_REFS


class CertificateContainerDriver(TypedContainerDriver):
    container_type = "certificate"
    refs = CERTIFICATE_REFS


DRIVERS: dict[str, Driver] = with_defaults(
    {"OS::Barbican::CertificateContainer": CertificateContainerDriver()}
)
