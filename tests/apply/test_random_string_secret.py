"""A RandomString's value is a sensitive attribute and its reference id: every resolver gives it to
``get_resource``; the applier keeps it when a driver cannot read it back."""

from __future__ import annotations

from hotc.apply.executor import _kept_secrets
from hotc.apply.resolve import StateResolver as ApplyResolver
from hotc.planner.make import PlanResolver
from hotc.planner.plan import Action
from hotc.planner.resolve import StateResolver as PlannerResolver
from hotc.providers.base import Outcome
from hotc.state.document import ResourceState, StackState
from hotc.values import Unknown

PW = ResourceState(
    "pw",
    "OS::Heat::RandomString",
    "st-pw-abcdefabcdef",
    "CREATE_COMPLETE",
    attributes={"value": "s3cretS3cret"},
    sensitive_attributes=("value",),
    reference_attribute="value",
)
NET = ResourceState("net", "OS::Neutron::Net", "uuid-1", "CREATE_COMPLETE", attributes={"name": "n"})
MASKED = ResourceState(
    "pw",
    "OS::Heat::RandomString",
    "st-pw-abcdefabcdef",
    "CREATE_COMPLETE",
    attributes={"value": {"__sensitive__": "sha256:00"}},
    sensitive_attributes=("value",),
    reference_attribute="value",
)


def test_get_resource_gives_the_value_while_applying() -> None:
    r = ApplyResolver(StackState.new("st").with_resource(PW).with_resource(NET))
    assert r.resource_id("pw") == "s3cretS3cret"
    assert r.resource_attr("pw", "value", ()) == "s3cretS3cret"
    assert r.resource_id("net") == "uuid-1"
    assert isinstance(ApplyResolver(StackState.new("st").with_resource(MASKED)).resource_id("pw"), Unknown)


def test_get_resource_gives_the_value_while_planning() -> None:
    state = {"pw": PW, "net": NET}
    plan_r = PlanResolver(state, {"pw": Action.NOOP, "net": Action.NOOP}, {})
    assert plan_r.resource_id("pw") == "s3cretS3cret" and plan_r.resource_id("net") == "uuid-1"
    assert isinstance(PlanResolver(state, {"pw": Action.REPLACE}, {}).resource_id("pw"), Unknown)
    st_r = PlannerResolver(state)
    assert st_r.resource_id("pw") == "s3cretS3cret" and st_r.resource_id("net") == "uuid-1"
    assert PlannerResolver({"x": {"physical_id": "p"}}).resource_id("x") == "p"  # plain maps still work


def test_a_value_the_driver_cannot_read_back_is_kept() -> None:
    read = Outcome("st-pw-abcdefabcdef", {}, sensitive_attributes=("value",), reference_attribute="value")
    assert _kept_secrets(read, PW) == {"value": "s3cretS3cret"}
    fresh = Outcome("st-pw-abcdefabcdef", {"value": "new"}, sensitive_attributes=("value",))
    assert _kept_secrets(fresh, PW) == {"value": "new"}
    assert _kept_secrets(Outcome("uuid-1", {}), NET) == {}  # ordinary attributes are not carried over


def test_a_masked_secret_is_unknown_never_the_marker() -> None:
    r = ApplyResolver(StackState.new("st").with_resource(MASKED))
    assert isinstance(r.resource_attr("pw", "value", ()), Unknown)
    plan_r = PlanResolver({"pw": MASKED}, {"pw": Action.NOOP}, {})
    assert isinstance(plan_r.resource_attr("pw", "value", ()), Unknown)
    assert plan_r.resource_attr("pw", "value", ()) != MASKED.attributes["value"]


def test_warning_when_secrets_cannot_be_kept() -> None:
    import io

    from hotc.apply.session import warn_unrecoverable_secrets

    st = StackState.new("st").with_resource(PW).with_resource(NET)
    err = io.StringIO()
    warn_unrecoverable_secrets(st, None, err)
    assert "HOTC_STATE_KEY" in err.getvalue() and "of pw " in err.getvalue() and "net" not in err.getvalue()
    err = io.StringIO()
    warn_unrecoverable_secrets(st, b"k", err)
    assert err.getvalue() == ""


def test_the_plan_shows_what_reads_a_random_string_as_sensitive(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.apply.test_cli_apply import QUICKSTART, hotc

    r = hotc(tmp_path, "plan", "-t", str(QUICKSTART))
    assert r.returncode == 0, r.stderr
    block = r.stdout.split("+ app_config (OS::Heat::Value)")[1].split("\n\n")[0]
    # value.name is fed by get_resource: suffix; its siblings in the same map stay in clear
    assert '"name": "(sensitive)"' in block and '"replicas": 1' in block
    web = r.stdout.split("+ web (OS::Heat::TestResource)")[1].split("\n\n")[0]
    assert "+ value: (sensitive)" in web  # readers of the reader are sensitive too (get_attr: app_config)
    placeholder = r.stdout.split("+ placeholder (OS::Heat::None)")[1].split("\n\n")[0]
    assert "(sensitive)" not in placeholder  # what reads no secret stays in clear
