"""OS::Neutron::QoSBandwidthLimitRule (see :mod:`hotc.providers.openstack.neutron.qos_rule`)."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.neutron.qos_rule import QoSRuleDriver


class QoSBandwidthLimitRuleDriver(QoSRuleDriver):
    rule, what = "bandwidth_limit", "QoS bandwidth limit rule"
    fields = (
        "max_kbps",
        "max_burst_kbps",
        "direction",
    )


DRIVERS: dict[str, Driver] = with_defaults(
    {"OS::Neutron::QoSBandwidthLimitRule": QoSBandwidthLimitRuleDriver()}
)
