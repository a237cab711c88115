"""Pure parts of the Nova driver (no cloud): block device mappings as Heat builds them, security group rule
keys, generated key pairs."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from hotc.providers.openstack.neutron import rule_key
from hotc.providers.openstack.nova.keypair import _generate_keypair
from hotc.providers.openstack.nova.server import block_device_mapping_v2
from tests.providers.test_openstack_common import make_ctx


def test_block_device_mapping_v2_follows_heat_defaults() -> None:
    ctx = make_ctx(None, "vm")
    out = block_device_mapping_v2(
        ctx,
        None,
        [
            {"volume_id": "v1"},
            {"snapshot_id": "s1", "delete_on_termination": True, "volume_size": 5},
            {"swap_size": 512},
            {"ephemeral_size": 2, "ephemeral_format": "ext4", "device_name": "vdc"},
            {"volume_id": "v2", "boot_index": -1, "disk_bus": "virtio", "device_type": "disk"},
        ],
    )
    assert out[0] == {
        "uuid": "v1",
        "source_type": "volume",
        "destination_type": "volume",
        "boot_index": 0,
        "delete_on_termination": False,
    }
    assert out[1] == {
        "uuid": "s1",
        "source_type": "snapshot",
        "destination_type": "volume",
        "boot_index": 0,
        "delete_on_termination": True,
        "volume_size": 5,
    }
    assert out[2] == {
        "source_type": "blank",
        "destination_type": "local",
        "boot_index": -1,
        "delete_on_termination": True,
        "guest_format": "swap",
        "volume_size": 512,
    }
    assert out[3] == {
        "source_type": "blank",
        "destination_type": "local",
        "boot_index": -1,
        "delete_on_termination": True,
        "volume_size": 2,
        "guest_format": "ext4",
        "device_name": "vdc",
    }
    assert out[4]["boot_index"] == -1 and out[4]["disk_bus"] == "virtio" and out[4]["device_type"] == "disk"
    with pytest.raises(ProviderError, match="needs one of volume_id"):
        block_device_mapping_v2(ctx, None, [{"device_name": "vda"}])


def test_rule_key_normalises_what_neutron_normalises() -> None:
    a: dict[str, Any] = {
        "protocol": "TCP",
        "port_range_min": 22,
        "port_range_max": 22,
        "remote_ip_prefix": "0.0.0.0/0",
    }
    b: dict[str, Any] = {
        "direction": "ingress",
        "ethertype": "IPv4",
        "protocol": "tcp",
        "port_range_min": 22,
        "port_range_max": 22,
        "remote_ip_prefix": None,
    }
    assert rule_key(a) == rule_key(b)
    assert rule_key({"protocol": "any"}) == rule_key({})
    assert rule_key({"direction": "egress"}) != rule_key({})


def test_generated_keypair_is_openssh() -> None:
    public, private = _generate_keypair("ssh")
    assert public.startswith("ssh-ed25519 ") and "BEGIN OPENSSH PRIVATE KEY" in private
    with pytest.raises(ProviderError, match="x509 needs a public_key"):
        _generate_keypair("x509")
