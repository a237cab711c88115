"""Heat 27 of the test cloud and hotc decide the same for the new Neutron types: the same template is created
and updated in Heat, and for each change what Heat did (updated in place, keeping the physical id; replaced,
with a new one; refused, the update failing) is what hotc's schema decides for the same old and new
properties (``decide_update``, the decision ``hotc plan`` shows)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from hotc.providers.registry import get_schema
from hotc.providers.schemas.decide import ERROR, REPLACE, UPDATE, decide_update
from hotc.providers.validation import apply_defaults

pytestmark = pytest.mark.cloud

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "kbps": {"type": "number"},
        "rule_policy": {"type": "string"},
        "prefixes": {"type": "comma_delimited_list"},
        "parent_port": {"type": "string"},
    },
    "conditions": {
        "second": {"equals": [{"get_param": "rule_policy"}, "qos2"]},
        "parent_b": {"equals": [{"get_param": "parent_port"}, "parent_b"]},
    },
    "resources": {
        "scope": {"type": "OS::Neutron::AddressScope"},
        "pool": {
            "type": "OS::Neutron::SubnetPool",
            "properties": {"address_scope": {"get_resource": "scope"}, "prefixes": {"get_param": "prefixes"}},
        },
        "qos": {"type": "OS::Neutron::QoSPolicy"},
        "qos2": {"type": "OS::Neutron::QoSPolicy"},
        "bw": {
            "type": "OS::Neutron::QoSBandwidthLimitRule",
            "properties": {
                "policy": {"if": ["second", {"get_resource": "qos2"}, {"get_resource": "qos"}]},
                "max_kbps": {"get_param": "kbps"},
            },
        },
        "parent": {"type": "OS::Neutron::Port", "properties": {"network": "hotc-private"}},
        "parent_b": {"type": "OS::Neutron::Port", "properties": {"network": "hotc-private"}},
        "trunk": {
            "type": "OS::Neutron::Trunk",
            "properties": {
                "port": {"if": ["parent_b", {"get_resource": "parent_b"}, {"get_resource": "parent"}]}
            },
        },
        "router": {"type": "OS::Neutron::Router"},
        "gw": {
            "type": "OS::Neutron::RouterGateway",
            "properties": {"router_id": {"get_resource": "router"}, "network": "public"},
        },
    },
}


def decision(type_name: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    rtype = get_schema(type_name)
    assert rtype is not None
    return decide_update(rtype, apply_defaults(rtype, old), apply_defaults(rtype, new)).kind


def test_heat_updates_replaces_and_refuses_as_hotc_decides(
    cloud: Any, cloud_tracker: Any, cloud_shared: Any
) -> None:
    heat = cloud.orchestration
    params = {"kbps": 1000, "rule_policy": "qos", "prefixes": "10.205.0.0/24", "parent_port": "parent"}
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=TEMPLATE, parameters=params)
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=900)

    def ids() -> dict[str, str]:
        return {r.name: r.physical_resource_id for r in heat.resources(st.id)}

    def update(values: dict[str, Any]) -> tuple[str, str]:
        before = heat.get_stack(st.id).updated_at
        heat.update_stack(st.id, template=TEMPLATE, parameters=values)
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            now = heat.get_stack(st.id)
            if now.updated_at != before and now.status in ("UPDATE_COMPLETE", "UPDATE_FAILED"):
                return now.status, str(now.status_reason)
            time.sleep(2)
        raise AssertionError("Heat's update did not finish")

    first = ids()
    net = cloud.network
    gw_router = net.get_router(first["router"])
    assert gw_router.external_gateway_info["network_id"]  # Heat 27 still runs the hidden RouterGateway
    assert (
        first["gw"] == f"{first['router']}:{gw_router.external_gateway_info['network_id']}"
    )  # hotc's id form

    # a rule's limit: Heat updates in place (same id); hotc decides an update
    values = {**params, "kbps": 2000}
    assert update(values)[0] == "UPDATE_COMPLETE"
    assert ids()["bw"] == first["bw"]
    old_bw = {"policy": first["qos"], "max_kbps": 1000}
    assert decision("OS::Neutron::QoSBandwidthLimitRule", old_bw, {**old_bw, "max_kbps": 2000}) == UPDATE

    # a rule's policy: Heat replaces it (new id); hotc decides a replacement
    values = {**values, "rule_policy": "qos2"}
    assert update(values)[0] == "UPDATE_COMPLETE"
    assert ids()["bw"] != first["bw"]
    new_bw = {"policy": first["qos2"], "max_kbps": 2000}
    assert decision("OS::Neutron::QoSBandwidthLimitRule", {**old_bw, "max_kbps": 2000}, new_bw) == REPLACE

    # a pool's prefixes extended: in place, in both
    values = {**values, "prefixes": "10.205.0.0/24,10.206.0.0/24"}
    assert update(values)[0] == "UPDATE_COMPLETE"
    assert ids()["pool"] == first["pool"]
    old_pool = {"address_scope": first["scope"], "prefixes": ["10.205.0.0/24"]}
    grown = {**old_pool, "prefixes": ["10.205.0.0/24", "10.206.0.0/24"]}
    assert decision("OS::Neutron::SubnetPool", old_pool, grown) == UPDATE

    # shrunk: Heat's update fails; hotc refuses at plan time
    status, reason = update({**values, "prefixes": "10.205.0.0/24"})
    assert status == "UPDATE_FAILED" and "superset" in reason, reason
    assert decision("OS::Neutron::SubnetPool", grown, old_pool) == ERROR

    # a trunk's parent port: Heat's update fails (immutable: NotSupported, nothing replaced); hotc refuses at plan time
    status, reason = update({**values, "parent_port": "parent_b"})
    assert status == "UPDATE_FAILED" and "port" in reason and "not supported" in reason, reason
    assert ids()["trunk"] == first["trunk"]
    assert decision("OS::Neutron::Trunk", {"port": first["parent"]}, {"port": first["parent_b"]}) == ERROR
