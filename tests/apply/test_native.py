"""Heat-native in-process drivers."""

from __future__ import annotations

import email
import string
import types
import uuid

import pytest

from hotc.apply.executor import ExecContext
from hotc.errors import HotcError
from hotc.providers.drivers import driver_for
from hotc.providers.native import test_resource
from hotc.providers.native.random_string import generate
from hotc.providers.native.value import convert
from hotc.state.document import ResourceState


def ctx(address="r", timeout=5.0, lookup=None, recorded=None):
    rec = recorded if recorded is not None else []
    return ExecContext(
        address=address,
        type="X",
        stack_name="st",
        lineage="L",
        timeout=timeout,
        cloud=lambda: None,
        record_physical_id=rec.append,
        lookup=lookup or (lambda _p: None),
    )


def test_driver_for_native_types_and_unknown():
    for t in (
        "OS::Heat::RandomString",
        "OS::Heat::Value",
        "OS::Heat::None",
        "OS::Heat::TestResource",
        "OS::Heat::SoftwareConfig",
        "OS::Heat::StructuredConfig",
        "OS::Heat::CloudConfig",
        "OS::Heat::MultipartMime",
    ):
        assert driver_for(t) is not None, t
    assert driver_for("Made::Up::Type") is None


def test_random_string_default_and_classes():
    d = driver_for("OS::Heat::RandomString")
    out = d.create(ctx(), {})
    value = out.attributes["value"]
    assert len(value) == 32 and set(value) <= set(string.ascii_letters + string.digits)
    # Heat's split: the id is a physical name, the string a sensitive attribute get_resource gives
    assert value not in out.physical_id and out.physical_id.startswith("st-r-")
    assert out.sensitive_attributes == ("value",) and out.reference_attribute == "value"
    # nothing to read back: the value is kept from the state by the applier
    assert d.read(ctx(), out.physical_id, {}).attributes == {}
    s = generate(
        {
            "length": 10,
            "character_classes": [{"class": "digits", "min": 3}],
            "character_sequences": [{"sequence": "!@", "min": 2}],
        }
    )
    assert len(s) == 10 and set(s) <= set(string.digits + "!@")
    assert sum(c in "!@" for c in s) >= 2 and sum(c.isdigit() for c in s) >= 3
    assert set(generate({"length": 50, "sequence": "octdigits", "character_classes": []})) <= set("01234567")
    assert d.create(ctx(), {}).attributes["value"] != d.create(ctx(), {}).attributes["value"]


@pytest.mark.parametrize(
    "props,msg",
    [
        ({"length": 2, "character_classes": [{"class": "digits", "min": 3}]}, "cannot be smaller"),
        ({"length": 0}, "between 1 and 512"),
        ({"character_classes": [{"class": "emoji"}]}, "is not one of"),
        ({"character_classes": [], "character_sequences": []}, "no characters"),
    ],
)
def test_random_string_errors(props, msg):
    with pytest.raises(HotcError, match=msg):
        generate(props)


def test_value_types():
    # as Heat 27 reads them (the differential oracle's answers): the type checks the value as a property type
    # (not a parameter type), and the attribute is the value as written (oracle case 1789: '5', number -> '5')
    assert convert("5", "number") == "5" and convert("2.5", "number") == "2.5"
    assert convert(["a", "b"], "comma_delimited_list") == ["a", "b"]
    assert convert({"k": [1]}, "json") == {"k": [1]}
    assert convert("TRUE", "boolean") == "TRUE" and convert(False, "boolean") is False
    assert convert(5, "string") == 5 and convert(None, "number") is None
    assert convert({"a": 1}, None) == {"a": 1}
    for value, type_, msg in (
        ("x", "number", "not a number"),
        ("true", "comma_delimited_list", "is not a list"),
        (2.5, "string", "Value must be a string"),
        ('{"k": 1}', "json", "is not a map"),
        ("yes", "boolean", "not a valid boolean"),
    ):
        with pytest.raises(HotcError, match=msg):
            convert(value, type_)
    d = driver_for("OS::Heat::Value")
    out = d.create(ctx("v"), {"value": "3", "type": "number"})
    assert out.attributes == {"value": "3"} and out.physical_id.startswith("st-v-")
    assert d.update(
        ctx("v"), out.physical_id, {"value": "3"}, {"value": [1]}, frozenset({"value"})
    ).attributes == {"value": [1]}


def test_test_resource_create_wait_fail_and_update(monkeypatch: pytest.MonkeyPatch) -> None:
    d = driver_for("OS::Heat::TestResource")
    rec: list[str] = []
    slept: list[float] = []  # the waits the driver asks for, instead of measuring the clock
    monkeypatch.setattr(test_resource, "time", types.SimpleNamespace(sleep=slept.append))
    out = d.create(
        ctx("t", recorded=rec), {"value": "hello", "action_wait_secs": {"create": 0.2}, "wait_secs": 5}
    )
    assert slept == [0.2]  # action_wait_secs.create wins over wait_secs
    assert (
        out.attributes == {"output": "hello"}
        and rec == [out.physical_id]
        and out.physical_id.startswith("st-t-")
    )
    with pytest.raises(HotcError, match="Test Resource failed t"):
        d.create(ctx("t"), {"fail": True})
    up = d.update(ctx("t"), out.physical_id, {"value": "hello"}, {"value": "bye"}, frozenset({"value"}))
    assert up.attributes == {"output": "bye"} and up.physical_id == out.physical_id
    with pytest.raises(HotcError, match="failed"):
        d.update(ctx("t"), out.physical_id, {"value": "a"}, {"value": "a", "fail": True}, frozenset({"fail"}))
    d.delete(ctx("t"), out.physical_id, {"fail": True})  # delete never fails
    slept.clear()
    with pytest.raises(HotcError, match="timed out"):
        d.create(ctx("t", timeout=0.1), {"wait_secs": -1})
    assert slept == [0.1]  # -1 waits for the whole action timeout, then fails


def test_config_family():
    sc = driver_for("OS::Heat::SoftwareConfig").create(
        ctx("sc"), {"config": "#!/bin/sh\necho hi\n", "group": "script"}
    )
    uuid.UUID(sc.physical_id)
    assert sc.attributes["config"] == "#!/bin/sh\necho hi\n" and sc.attributes["show"]["group"] == "script"
    cc = driver_for("OS::Heat::CloudConfig").create(ctx("cc"), {"cloud_config": {"packages": ["nginx"]}})
    assert cc.attributes["config"] == "#cloud-config\npackages:\n- nginx\n"
    stc = driver_for("OS::Heat::StructuredConfig").create(ctx("x"), {"config": {"a": 1}})
    assert stc.attributes["config"] == {"a": 1}

    def lookup(pid):
        if pid == sc.physical_id:
            return ResourceState(
                "sc", "OS::Heat::SoftwareConfig", pid, "CREATE_COMPLETE", attributes=sc.attributes
            )
        return None

    mm = driver_for("OS::Heat::MultipartMime").create(
        ctx("mm", lookup=lookup),
        {
            "parts": [
                {"config": sc.physical_id},
                {"config": "raw text", "filename": "x.cfg", "subtype": "cloud-config"},
            ]
        },
    )
    msg = email.message_from_string(mm.attributes["config"])
    parts = msg.get_payload()
    assert msg.is_multipart() and len(parts) == 2
    assert parts[0].get_payload() == "#!/bin/sh\necho hi\n"
    assert parts[1].get_content_subtype() == "cloud-config" and parts[1].get_filename() == "x.cfg"
