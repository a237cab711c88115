"""The replace hooks without a cloud: the executor calls a driver's ``prepare_for_replace`` on the old
instance right before creating its replacement and ``restore_after_failed_replace`` when that create fails
(only for instances prepare changed); drivers without the hooks are untouched. The cloud behaviour of the
Server / KeyPair hooks is tested in tests/apply/test_cloud_replace_ports.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.apply.executor import ExecOptions, execute
from hotc.planner.plan import Action
from hotc.providers.base import ActionContext, prepare_for_replace, restore_after_failed_replace
from hotc.state.document import ResourceState, StackState
from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, change, plan_of

OPTS = ExecOptions(parallelism=4, delete_attempts=1, retry_backoff=0.0)


class HookedDriver(FakeDriver):
    """Records the hook calls in the cloud's call list; the old instance 'lends' something when asked."""

    def __init__(self, cloud: FakeCloud, lends: bool = True) -> None:
        super().__init__(cloud)
        self.lends = lends
        self.log: list[tuple[str, str]] = []

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Any:
        self.log.append(("create", str(props.get("name"))))
        return super().create(ctx, props)

    def prepare_for_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> bool:
        self.log.append(("prepare", f"{physical_id}:{old.get('name')}->{new.get('name')}"))
        return self.lends

    def restore_after_failed_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        self.log.append(("restore", physical_id))


def _run(driver: FakeDriver, cloud: FakeCloud, fail_create: bool = False) -> tuple[Any, MemorySink]:
    desired = FakeDesired([FakeResource("a", props=lambda r: {"name": "new"})])
    st = StackState.new("teststack")
    cloud.objects["a-old"] = {"props": {"name": "old"}, "address": "a", "tags": {}}
    state = st.with_resource(
        ResourceState("a", "Fake::Thing", "a-old", "CREATE_COMPLETE", {"name": "old"}, created_at="t0")
    )
    if fail_create:
        cloud.fail[("create", "a")] = "no valid host"
    sink = MemorySink()
    rep = execute(
        plan_of([change("a", Action.REPLACE, after={"name": "new"}, before={"name": "old"})]),
        state,
        desired,
        lambda _t: driver,
        sink,
        OPTS,
        desired_info=desired.resources,
    )
    return rep, sink


def test_prepare_runs_on_the_old_instance_before_the_replacement_is_created() -> None:
    cloud = FakeCloud()
    driver = HookedDriver(cloud)
    rep, sink = _run(driver, cloud)
    assert rep.ok, rep
    assert driver.log == [("prepare", "a-old:old->new"), ("create", "new")]
    a = sink.last.resources["a"]
    assert a.physical_id != "a-old" and a.deposed == () and "a-old" not in cloud.objects


def test_failed_replacement_restores_the_old_instance_and_keeps_it() -> None:
    cloud = FakeCloud()
    driver = HookedDriver(cloud)
    rep, sink = _run(driver, cloud, fail_create=True)
    assert not rep.ok
    assert driver.log == [("prepare", "a-old:old->new"), ("create", "new"), ("restore", "a-old")]
    a = sink.last.resources["a"]
    assert a.status == "CREATE_FAILED" and [d.physical_id for d in a.deposed] == ["a-old"]
    assert "a-old" in cloud.objects


def test_no_restore_when_prepare_changed_nothing() -> None:
    cloud = FakeCloud()
    driver = HookedDriver(cloud, lends=False)
    rep, _ = _run(driver, cloud, fail_create=True)
    assert not rep.ok
    assert [op for op, _ in driver.log] == ["prepare", "create"]


def test_restore_failure_is_reported_with_the_create_failure() -> None:
    cloud = FakeCloud()

    class Broken(HookedDriver):
        def restore_after_failed_replace(
            self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
        ) -> None:
            raise RuntimeError("port 123 is used by someone else")

    rep, sink = _run(Broken(cloud), cloud, fail_create=True)
    assert not rep.ok
    reason = sink.last.resources["a"].status_reason
    assert "no valid host" in reason and "restoring the old instance a-old failed too" in reason
    assert "port 123 is used by someone else" in reason


def test_drivers_without_hooks_are_fine() -> None:
    cloud = FakeCloud()
    plain = FakeDriver(cloud)
    assert prepare_for_replace(plain, None, "x", {}, {}) is False  # type: ignore[arg-type]
    restore_after_failed_replace(plain, None, "x", {}, {})  # type: ignore[arg-type]
    rep, sink = _run(plain, cloud)
    assert rep.ok and sink.last.resources["a"].deposed == ()


def test_openstack_drivers_expose_the_hooks_through_their_defaults_wrapper() -> None:
    from hotc.providers.openstack.nova import DRIVERS

    server = DRIVERS["OS::Nova::Server"]
    flavor = DRIVERS["OS::Nova::Flavor"]
    assert callable(getattr(server, "prepare_for_replace", None))
    # a wrapped driver without the hooks: no cloud call, nothing to restore
    assert prepare_for_replace(flavor, None, "x", {"name": "a"}, {"name": "a"}) is False  # type: ignore[arg-type]
