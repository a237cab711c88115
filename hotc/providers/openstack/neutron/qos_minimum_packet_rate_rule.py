"""OS::Neutron::QoSMinimumPacketRateRule (see :mod:`hotc.providers.openstack.neutron.qos_rule`)."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.neutron.qos_rule import QoSRuleDriver


class QoSMinimumPacketRateRuleDriver(QoSRuleDriver):
    rule, what = "minimum_packet_rate", "QoS minimum packet rate rule"
    fields = (
        "min_kpps",
        "direction",
    )


DRIVERS: dict[str, Driver] = with_defaults(
    {"OS::Neutron::QoSMinimumPacketRateRule": QoSMinimumPacketRateRuleDriver()}
)
