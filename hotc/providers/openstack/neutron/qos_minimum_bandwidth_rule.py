"""OS::Neutron::QoSMinimumBandwidthRule (see :mod:`hotc.providers.openstack.neutron.qos_rule`)."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.neutron.qos_rule import QoSRuleDriver


class QoSMinimumBandwidthRuleDriver(QoSRuleDriver):
    rule, what = "minimum_bandwidth", "QoS minimum bandwidth rule"
    fields = (
        "min_kbps",
        "direction",
    )


DRIVERS: dict[str, Driver] = with_defaults(
    {"OS::Neutron::QoSMinimumBandwidthRule": QoSMinimumBandwidthRuleDriver()}
)
