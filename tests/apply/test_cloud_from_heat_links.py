"""``hotc import --from-heat`` of resources whose Heat physical id names no cloud object: Heat keeps a row id of
its own database for an ``OS::Neutron::FloatingIPAssociation`` (``213``) and Nova's attachment id (the volume's
id) for an ``OS::Cinder::VolumeAttachment``. hotc finds each from the objects it links (the floating IP and the
port; the server and the volume), so a real Heat stack holding both is taken over, plans with no change after a
refresh, and is destroyed by hotc with nothing left."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apply.test_cloud_from_heat import hotc, wait_gone

pytestmark = pytest.mark.cloud

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  net: {type: string}
  public: {type: string}
  image: {type: string}
  flavor: {type: string}
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: {get_param: net}}
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: {get_param: public}}
  assoc:
    type: OS::Neutron::FloatingIPAssociation
    properties: {floatingip_id: {get_resource: fip}, port_id: {get_resource: port}}
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{port: {get_resource: port}}]
  vol:
    type: OS::Cinder::Volume
    properties: {size: 1}
  att:
    type: OS::Cinder::VolumeAttachment
    properties: {instance_uuid: {get_resource: server}, volume_id: {get_resource: vol}}
"""


def test_floating_ip_association_and_volume_attachment_taken_over_from_heat(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    st = cloud.orchestration.create_stack(
        name=cloud_tracker.name("heat"),
        template=TEMPLATE,
        parameters={
            "net": cloud_shared.private_network_id,
            "public": cloud_shared.public_network_id,
            "image": cloud_shared.image_id,
            "flavor": cloud_shared.flavor_name,
        },
    )
    cloud_tracker.track(st)
    st = cloud.orchestration.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=600)
    heat_ids = {r.name: r.physical_resource_id for r in cloud.orchestration.resources(st.id)}
    # what makes this case: Heat's ids for the two links name no object hotc could read by id
    assert heat_ids["assoc"] not in (heat_ids["fip"], heat_ids["port"]), heat_ids
    assert heat_ids["att"] != f"{heat_ids['server']}:{heat_ids['vol']}", heat_ids

    stack = cloud_tracker.name("hotc")
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--from-heat", st.name, "mig", "--abandon")
    if "enable_stack_abandon" in r.stderr:  # taken without abandon: Heat keeps its claim, deleted below
        r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--from-heat", st.name, "mig")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "would still change" not in r.stderr, r.stderr

    state = json.loads(hotc(tmp_path, hotc_cloud_env, "state", "pull", stack).stdout)
    ids = {a: res["physical_id"] for a, res in state["resources"].items()}
    assert ids["assoc"] == f"{heat_ids['fip']}:{heat_ids['port']}"
    assert ids["att"] == f"{heat_ids['server']}:{heat_ids['vol']}"
    assert cloud.network.get_ip(heat_ids["fip"]).port_id == heat_ids["port"]

    r = hotc(tmp_path, hotc_cloud_env, "plan", stack, "--existing", "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    left = wait_gone(
        cloud,
        [
            f"OS::Neutron::Port:{heat_ids['port']}",
            f"OS::Nova::Server:{heat_ids['server']}",
            f"OS::Cinder::Volume:{heat_ids['vol']}",
        ],
    )
    assert not left, left
    assert cloud.network.find_ip(heat_ids["fip"]) is None
    if cloud.orchestration.find_stack(st.id, ignore_missing=True) is not None:
        cloud.orchestration.delete_stack(st)
        cloud.orchestration.wait_for_delete(st, wait=300)
