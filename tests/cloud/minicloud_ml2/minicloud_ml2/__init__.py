"""Agentless ML2 mechanism driver for a fake-driver test cloud.

Binds any port that asks for a host (nova-compute with the fake virt driver,
Octavia noop, ...) to the first segment with vif_type 'ovs' and marks it ACTIVE,
so no L2 agent / OVN is needed. It also registers agentless trunk and QoS drivers
(``services``), so the trunk and qos service plugins load. Not for production.
"""

from neutron_lib import constants
from neutron_lib.api.definitions import portbindings
from neutron_lib.plugins.ml2 import api


class BindAllMechanismDriver(api.MechanismDriver):
    def initialize(self):
        from minicloud_ml2 import services

        services.register()

    @property
    def connectivity(self):
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context):
        for segment in context.segments_to_bind:
            context.set_binding(
                segment[api.ID],
                portbindings.VIF_TYPE_OVS,
                {portbindings.CAP_PORT_FILTER: True, portbindings.OVS_HYBRID_PLUG: False},
                status=constants.PORT_STATUS_ACTIVE,
            )
            return
