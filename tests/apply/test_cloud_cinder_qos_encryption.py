"""OS::Cinder::QoSSpecs, QoSAssociation and EncryptedVolumeType against the real Cinder of the test cloud (admin
credentials: all are admin-only under Cinder's default policy), through the hotc CLI: created; a fresh apply
shows no drift; a spec changed outside hotc shows as drift and is planned back; what Heat updates in place
(specs, the associated volume types, the encryption's settings) keeps the same object; what it does not (the
specs' name, the encryption's volume type) replaces it; QoS specs and an encryption made outside hotc are
imported, then managed and deleted; destroy deletes. Every check asks openstacksdk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  qos_name: {type: string, default: qos}
  iops: {type: string, default: '100'}
  both: {type: boolean, default: false}
  key_size: {type: number, default: 256}
  encrypt_second: {type: boolean, default: false}
conditions:
  both_types: {get_param: both}
  second: {get_param: encrypt_second}
resources:
  gold:
    type: OS::Cinder::VolumeType
    properties: {name: {list_join: ['-', [{get_param: prefix}, gold]]}}
  silver:
    type: OS::Cinder::VolumeType
    properties: {name: {list_join: ['-', [{get_param: prefix}, silver]]}}
  qos:
    type: OS::Cinder::QoSSpecs
    properties:
      name: {list_join: ['-', [{get_param: prefix}, {get_param: qos_name}]]}
      specs: {read_iops_sec: {get_param: iops}, write_iops_sec: '50'}
  assoc:
    type: OS::Cinder::QoSAssociation
    properties:
      qos_specs: {get_resource: qos}
      volume_types:
        if: [both_types, [{get_resource: gold}, {get_resource: silver}], [{get_resource: gold}]]
  enc:
    type: OS::Cinder::EncryptedVolumeType
    properties:
      volume_type: {if: [second, {get_resource: silver}, {get_resource: gold}]}
      provider: luks
      cipher: aes-xts-plain64
      key_size: {get_param: key_size}
"""


def associated(cloud: Any, qos_id: str) -> set[str]:
    return {a.id for a in cloud.block_storage.qos_spec_associations(qos_id)}


def test_qos_specs_association_and_encrypted_volume_type(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("stk")
    qoses: list[str] = []
    vtypes: list[str] = []

    def cleanup() -> None:
        for qid in qoses:
            try:
                cloud.block_storage.disassociate_all_qos_spec(qid)
            except Exception:  # noqa: BLE001 - already gone
                pass
            cloud.block_storage.delete_qos_spec(qid, ignore_missing=True, force=True)
        for tid in vtypes:
            try:
                cloud.block_storage.delete_type_encryption(volume_type=tid)
            except Exception:  # noqa: BLE001 - already gone
                pass
            cloud.block_storage.delete_type(tid, ignore_missing=True)

    cloud_tracker.defer("cinder QoS specs and volume types", cleanup)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    params = ["--parameter", f"prefix={p}"]

    cli = CliStack(tmp_path, hotc_cloud_env, stack, params)
    apply, plan, ids = cli.apply, cli.plan, cli.ids

    apply()
    got = ids()
    qoses.append(got["qos"])
    vtypes += [got["gold"], got["silver"]]
    qos = cloud.block_storage.get_qos_spec(got["qos"])
    assert qos.name == f"{p}-qos" and qos.specs == {"read_iops_sec": "100", "write_iops_sec": "50"}
    assert got["assoc"] == got["qos"] and associated(cloud, got["qos"]) == {got["gold"]}
    enc = cloud.block_storage.get_type_encryption(got["gold"])
    assert got["enc"] == got["gold"] and enc.provider == "luks" and enc.key_size == 256
    assert enc.control_location == "front-end"
    assert plan() == {}

    # drift: a spec changed outside hotc, planned back in place
    cloud.block_storage.put(f"/qos-specs/{got['qos']}", json={"qos_specs": {"read_iops_sec": "7"}})
    planned = plan()
    assert set(planned) == {"qos"} and planned["qos"]["actions"] == ["update"]
    apply("--refresh")
    assert cloud.block_storage.get_qos_spec(got["qos"]).specs["read_iops_sec"] == "100"

    # in place: a spec, one more associated type, the key size
    upd = ["--parameter", "iops=200", "--parameter", "both=true", "--parameter", "key_size=512"]
    planned = plan(*upd)
    assert {a: c["actions"] for a, c in planned.items()} == {
        "qos": ["update"],
        "assoc": ["update"],
        "enc": ["update"],
    }
    apply(*upd)
    assert cloud.block_storage.get_qos_spec(got["qos"]).specs["read_iops_sec"] == "200"
    assert associated(cloud, got["qos"]) == {got["gold"], got["silver"]}
    assert cloud.block_storage.get_type_encryption(got["gold"]).key_size == 512
    assert plan(*upd) == {}

    # replaced: the specs' name (the association follows the new specs), the encryption's volume type
    rep = [*upd, "--parameter", "qos_name=qos2", "--parameter", "encrypt_second=true"]
    planned = plan(*rep)
    assert {"qos", "enc"} <= set(planned)
    for a in ("qos", "enc"):
        assert "create" in planned[a]["actions"] and "delete" in planned[a]["actions"]
    apply(*rep)
    new = ids()
    qoses.append(new["qos"])
    assert new["qos"] != got["qos"] and cloud.block_storage.find_qos_spec(got["qos"]) is None
    assert cloud.block_storage.get_qos_spec(new["qos"]).name == f"{p}-qos2"
    assert associated(cloud, new["qos"]) == {got["gold"], got["silver"]}
    assert (
        new["enc"] == got["silver"] and cloud.block_storage.get_type_encryption(got["silver"]).key_size == 512
    )
    assert not cloud.block_storage.get_type_encryption(got["gold"]).encryption_id
    assert plan(*rep) == {}

    # made outside hotc, imported into another stack, then managed and deleted by it
    r = cloud.block_storage.post(
        "/qos-specs", json={"qos_specs": {"name": f"{p}-iqos", "total_iops_sec": "9"}}
    )
    iqos = r.json()["qos_specs"]["id"]
    qoses.append(iqos)
    itype = cloud.block_storage.create_type(name=f"{p}-itype")
    vtypes.append(itype.id)
    cloud.block_storage.create_type_encryption(itype.id, provider="luks", control_location="front-end")
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  iq: {{type: OS::Cinder::QoSSpecs, properties: {{name: {p}-iqos, specs: {{total_iops_sec: '9'}}}}}}\n"
        f"  ie: {{type: OS::Cinder::EncryptedVolumeType, properties: {{volume_type: {p}-itype, provider: luks}}}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({"iq": iqos, "ie": itype.id}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.block_storage.find_qos_spec(iqos) is None
    assert not cloud.block_storage.get_type_encryption(itype.id).encryption_id

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.block_storage.find_qos_spec(new["qos"]) is None
    assert (
        cloud.block_storage.find_type(got["gold"]) is None
        and cloud.block_storage.find_type(got["silver"]) is None
    )
