"""Heat 27 of the test cloud and hotc treat the Barbican types the same: the same template is created in Heat and
by hotc, and the attributes agree (the decrypted payload, a container's ``secret_refs`` by name, the references
as physical ids); for each change what Heat did (replaced, with a new reference) is what hotc's schema decides
(``decide_update``, the decision ``hotc plan`` shows); a template Heat refuses at create for a Barbican check is
one hotc's ``validate`` warns about with Heat's words."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from hotc.providers.registry import get_schema
from hotc.providers.schemas.decide import REPLACE, decide_update
from hotc.providers.validation import apply_defaults
from tests.apply.cloud_cli import hotc
from tests.fixtures.cloud import require_service

pytestmark = pytest.mark.cloud

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "secret_type": {"type": "string", "default": "opaque"},
        "box_name": {"type": "string", "default": "box-a"},
    },
    "resources": {
        "secret": {
            "type": "OS::Barbican::Secret",
            "properties": {"payload": "agreed-payload", "secret_type": {"get_param": "secret_type"}},
        },
        "box": {
            "type": "OS::Barbican::GenericContainer",
            "properties": {
                "name": {"get_param": "box_name"},
                "secrets": [{"name": "only", "ref": {"get_resource": "secret"}}],
            },
        },
        "order": {
            "type": "OS::Barbican::Order",
            "properties": {"type": "key", "algorithm": "aes", "bit_length": 128},
        },
    },
    "outputs": {
        "decrypted": {"value": {"get_attr": ["secret", "decrypted_payload"]}},
        "refs": {"value": {"get_attr": ["box", "secret_refs"]}},
        "status": {"value": {"get_attr": ["order", "status"]}},
        "secret_ref": {"value": {"get_attr": ["order", "secret_ref"]}},
    },
}


def decision(type_name: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    rtype = get_schema(type_name)
    assert rtype is not None
    return decide_update(rtype, apply_defaults(rtype, old), apply_defaults(rtype, new)).kind


def test_heat_and_hotc_agree_on_barbican(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "key-manager", "80-barbican.sh")
    heat = cloud.orchestration
    made: list[str] = []  # what the orders made (neither Heat nor hotc deletes it with the order)
    cloud_tracker.defer(
        "secrets the orders made",
        lambda: [cloud.key_manager.delete(f"/secrets/{r.rsplit('/', 1)[-1]}") for r in made],
    )
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=TEMPLATE, parameters={})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=600)

    def ids() -> dict[str, str]:
        return {r.name: r.physical_resource_id for r in heat.resources(st.id)}

    def outputs() -> dict[str, Any]:
        return {o["output_key"]: o["output_value"] for o in heat.get_stack(st.id).outputs}

    def update(values: dict[str, Any]) -> str:
        before = heat.get_stack(st.id).updated_at
        heat.update_stack(st.id, template=TEMPLATE, parameters=values)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            now = heat.get_stack(st.id)
            if now.updated_at != before and now.status in ("UPDATE_COMPLETE", "UPDATE_FAILED"):
                return str(now.status)
            time.sleep(2)
        raise AssertionError("Heat's update did not finish")

    # hotc makes the same template: the same attributes, by the same names, in the same forms
    (tmp_path / "t.json").write_text(json.dumps(TEMPLATE))
    stack = cloud_tracker.name("hotc")
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.json", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "--format", "json", "--show-sensitive")
    assert r.returncode == 0, r.stderr
    ours = json.loads(r.stdout)
    ours = {k: (v.get("value") if isinstance(v, dict) and "value" in v else v) for k, v in ours.items()}
    theirs = outputs()
    made += [theirs["secret_ref"], ours["secret_ref"]]
    assert theirs["decrypted"] == ours["decrypted"] == "agreed-payload"
    assert set(theirs["refs"]) == set(ours["refs"]) == {"only"}
    assert theirs["status"] == ours["status"] == "ACTIVE"
    first = ids()
    assert first["secret"].startswith("http") and "/v1/secrets/" in first["secret"]  # a reference, as hotc's
    assert theirs["refs"]["only"] == first["secret"]
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    # a secret's type: Heat replaces the secret (a new reference), and the container naming it; hotc decides so
    assert update({"secret_type": "passphrase"}) == "UPDATE_COMPLETE"
    second = ids()
    assert second["secret"] != first["secret"] and second["box"] != first["box"]
    assert second["order"] == first["order"]
    old = {"payload": "agreed-payload", "secret_type": "opaque"}
    assert decision("OS::Barbican::Secret", old, {**old, "secret_type": "passphrase"}) == REPLACE
    box = {"name": "box-a", "secrets": [{"name": "only", "ref": first["secret"]}]}
    assert (
        decision(
            "OS::Barbican::GenericContainer",
            box,
            {**box, "secrets": [{"name": "only", "ref": second["secret"]}]},
        )
        == REPLACE
    )

    # a container's name: replaced in Heat; hotc decides so
    assert update({"secret_type": "passphrase", "box_name": "box-b"}) == "UPDATE_COMPLETE"
    third = ids()
    assert third["box"] != second["box"] and third["secret"] == second["secret"]
    box2 = {"name": "box-a", "secrets": [{"name": "only", "ref": second["secret"]}]}
    assert decision("OS::Barbican::GenericContainer", box2, {**box2, "name": "box-b"}) == REPLACE


def test_heat_refuses_what_hotc_warns_about(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "key-manager", "80-barbican.sh")
    bad: dict[str, Any] = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "order": {"type": "OS::Barbican::Order", "properties": {"type": "key", "algorithm": "aes"}}
        },
    }
    message = "Properties algorithm and bit_length are required for key type of order."
    heat = cloud.orchestration
    with pytest.raises(Exception, match="bit_length") as caught:
        st = heat.create_stack(name=cloud_tracker.name("bad"), template=bad, parameters={})
        cloud_tracker.track(st)  # not reached: Heat refuses the stack
    assert message in str(caught.value)
    (tmp_path / "t.json").write_text(json.dumps(bad))
    r = hotc(tmp_path, hotc_cloud_env, "validate", "-t", "t.json")
    assert (
        message in r.stdout + r.stderr and "creating or updating the stack will fail" in r.stdout + r.stderr
    )
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "t.json", cloud_tracker.name("bad"))
    assert r.returncode != 0 and message in r.stdout + r.stderr


def test_a_heat_stack_of_barbican_types_is_taken_over(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """``hotc import --from-heat --abandon``: Heat's references are hotc's physical ids, so the secret, the
    container and the order are recorded as they are, a plan finds nothing to do, the decrypted payload is the
    one Heat gave, and hotc's destroy deletes them."""
    require_service(cloud, "key-manager", "80-barbican.sh")
    p = cloud_tracker.prefix
    template: dict[str, Any] = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "s1": {"type": "OS::Barbican::Secret", "properties": {"name": f"{p}-s1", "payload": "heat-made"}},
            "box": {
                "type": "OS::Barbican::GenericContainer",
                "properties": {"name": f"{p}-box", "secrets": [{"name": "a", "ref": {"get_resource": "s1"}}]},
            },
            "ord": {
                "type": "OS::Barbican::Order",
                "properties": {"name": f"{p}-ord", "type": "key", "algorithm": "aes", "bit_length": 256},
            },
        },
        "outputs": {"dec": {"value": {"get_attr": ["s1", "decrypted_payload"]}}},
    }

    # what the order made is named by the prefix: the tracker sweeps it
    heat = cloud.orchestration
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=template, parameters={})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=600)
    theirs = {r.name: r.physical_resource_id for r in heat.resources(st.id)}
    stack = cloud_tracker.name("hotc")
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--from-heat", st.name, "migrated", "--abandon")
    if r.returncode != 0 and "enable_stack_abandon" in r.stderr:
        pytest.fail("the test cloud's Heat runs without enable_stack_abandon: re-run tests/cloud/setup.sh")
    assert r.returncode == 0, r.stdout + r.stderr
    t, e = "migrated/template.yaml", "migrated/environment.yaml"
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", t, "-e", e, stack, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "resource", "list", stack, "--format", "json")
    rows = json.loads(r.stdout)
    rows = rows.get("resources", rows) if isinstance(rows, dict) else rows
    assert {row["address"]: row["physical_id"] for row in rows} == theirs
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "dec", "--show-sensitive")
    assert r.returncode == 0 and r.stdout.strip() == "heat-made", r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for ref in theirs.values():
        kind = ref.split("/v1/", 1)[1].split("/", 1)[0]
        assert cloud.key_manager.get(f"/{kind}/{ref.rsplit('/', 1)[-1]}").status_code == 404, ref


def test_a_certificate_order_fails_at_create_in_both(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """Heat 27's schema still takes ``type: certificate``, but certificate orders are gone: Heat's Barbican client
    knows them no more (``Unknown Order type``) and Barbican 23 refuses them (400). The template validates and
    plans in both, and the create fails in both (hotc's with Barbican's reason)."""
    require_service(cloud, "key-manager", "80-barbican.sh")
    template: dict[str, Any] = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "cert": {
                "type": "OS::Barbican::Order",
                "properties": {"type": "certificate", "request_type": "simple-cmc", "request_data": "csr"},
            }
        },
    }
    reason = "'certificate' is not one of ['key', 'asymmetric']"
    heat = cloud.orchestration
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=template, parameters={})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_FAILED", failures=["CREATE_COMPLETE"], wait=300)
    assert 'Unknown Order type "certificate"' in str(st.status_reason), st.status_reason
    (tmp_path / "t.json").write_text(json.dumps(template))
    stack = cloud_tracker.name("hotc")
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "t.json", stack)
    assert r.returncode == 0 and "1 to create" in r.stdout, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.json", stack, "--auto-approve")
    assert r.returncode != 0 and reason in r.stdout + r.stderr, r.stdout + r.stderr
