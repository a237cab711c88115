"""OS::Neutron::QoSDscpMarkingRule (see :mod:`hotc.providers.openstack.neutron.qos_rule`)."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.neutron.qos_rule import QoSRuleDriver


class QoSDscpMarkingRuleDriver(QoSRuleDriver):
    rule, what = "dscp_marking", "QoS DSCP marking rule"
    fields = ("dscp_mark",)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::QoSDscpMarkingRule": QoSDscpMarkingRuleDriver()})
