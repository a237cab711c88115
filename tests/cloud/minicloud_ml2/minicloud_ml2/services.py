"""Agentless trunk and QoS drivers for the test cloud's ML2 binder (registered by the mechanism driver).

Neutron's trunk service plugin refuses to start without a loaded trunk driver, and its QoS plugin accepts a
policy on a port only when a QoS driver supports the port's VIF type and the policy's rules. The in-tree
drivers (openvswitch, ovn) need their agents, which this cloud does not run; these two accept what the binder
binds (VIF type ovs) and keep everything in the API and database. No packet is shaped or trunked.
"""

from neutron_lib import constants
from neutron_lib.api.definitions import portbindings
from neutron_lib.db import constants as db_consts
from neutron_lib.services.qos import base as qos_base
from neutron_lib.services.qos import constants as qos_consts
from neutron_lib.services.trunk import constants as trunk_consts

NAME = "minicloud_bind"
_VIF_TYPES = (portbindings.VIF_TYPE_OVS,)
_INT = {"type:range": [0, db_consts.DB_INTEGER_MAX_VALUE]}

QOS_RULES = {
    qos_consts.RULE_TYPE_BANDWIDTH_LIMIT: {
        qos_consts.MAX_KBPS: _INT,
        qos_consts.MAX_BURST: _INT,
        qos_consts.DIRECTION: {"type:values": constants.VALID_DIRECTIONS},
    },
    qos_consts.RULE_TYPE_PACKET_RATE_LIMIT: {
        qos_consts.MAX_KPPS: _INT,
        qos_consts.MAX_BURST_KPPS: _INT,
        qos_consts.DIRECTION: {"type:values": constants.VALID_DIRECTIONS},
    },
    qos_consts.RULE_TYPE_DSCP_MARKING: {qos_consts.DSCP_MARK: {"type:values": constants.VALID_DSCP_MARKS}},
    qos_consts.RULE_TYPE_MINIMUM_BANDWIDTH: {
        qos_consts.MIN_KBPS: _INT,
        qos_consts.DIRECTION: {"type:values": constants.VALID_DIRECTIONS},
    },
    qos_consts.RULE_TYPE_MINIMUM_PACKET_RATE: {
        qos_consts.MIN_KPPS: _INT,
        qos_consts.DIRECTION: {"type:values": constants.VALID_DIRECTIONS_AND_ANY},
    },
}

_DRIVERS = []  # one of each per process, kept alive (the callback registry holds weak references)


def register():
    """Create the drivers once: they subscribe to the trunk/QoS plugins' AFTER_INIT and register there."""
    if _DRIVERS:
        return
    from neutron.services.trunk.drivers import base as trunk_base

    class TrunkDriver(trunk_base.DriverBase):
        @property
        def is_loaded(self):
            return True

    class QosDriver(qos_base.DriverBase):
        def validate_rule_for_port(self, context, rule, port):
            return True

        def validate_rule_for_network(self, context, rule, network_id):
            return True

    _DRIVERS.append(
        TrunkDriver(
            NAME,
            _VIF_TYPES,
            (trunk_consts.SEGMENTATION_TYPE_VLAN,),
            agent_type=None,
            can_trunk_bound_port=True,
        )
    )
    _DRIVERS.append(
        QosDriver(
            name=NAME,
            vif_types=list(_VIF_TYPES),
            vnic_types=[portbindings.VNIC_NORMAL],
            supported_rules=QOS_RULES,
            requires_rpc_notifications=False,
        )
    )
