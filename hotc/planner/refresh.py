"""Refreshing recorded resources from the cloud, for ``--refresh-only`` and ``--refresh`` plans.

:func:`refresh_resources` is pure over a ``read`` callable (one recorded resource -> its live form, or None
when the object is gone); :func:`driver_reader` builds that callable from the providers' drivers
(``Driver.read``), so Heat-native types refresh in process and OpenStack types through openstacksdk.
The result is the ``refreshed`` mapping :func:`hotc.planner.make.make_plan` takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from hotc.errors import HotcError
from hotc.state.document import ResourceState, StackState

Reader = Callable[[ResourceState], ResourceState | None]


def refresh_resources(state: StackState, read: Reader) -> dict[str, ResourceState | None]:
    """Live form of every recorded resource that has a physical id (others cannot be read)."""
    out: dict[str, ResourceState | None] = {}
    for addr, rs in state.resources.items():
        if rs.physical_id is None:
            continue
        out[addr] = read(rs)
    return out


def driver_reader(
    state: StackState, cloud: Callable[[], Any], driver_for: Callable[[str], Any] | None = None
) -> Reader:
    """A reader using each type's driver (``hotc.providers.drivers.driver_for``). A type without a driver is
    kept as recorded."""
    if driver_for is None:
        try:
            from hotc.providers.drivers import driver_for as lookup
        except ImportError as exc:
            raise HotcError("refreshing needs the resource drivers, which this build does not have") from exc
        driver_for = lookup
    from hotc.providers.base import ActionContext

    def read(rs: ResourceState) -> ResourceState | None:
        driver = driver_for(rs.type)
        if driver is None or rs.physical_id is None:
            return rs
        ctx = ActionContext(
            address=rs.address,
            type=rs.type,
            stack_name=state.stack_name,
            lineage=state.lineage,
            timeout=60.0,
            cloud=cloud,
            record_physical_id=lambda _pid: None,
        )
        try:
            outcome = driver.read(ctx, rs.physical_id, dict(rs.properties))
        except HotcError:
            raise
        except Exception as exc:  # noqa: BLE001 -- a driver/cloud failure, reported with the address
            raise HotcError(
                f"{rs.address}: cannot read {rs.type} {rs.physical_id} from the cloud: {exc}"
            ) from exc
        if outcome is None:
            return None
        props: Mapping[str, Any] = (
            rs.properties if outcome.properties is None else _merge(rs.properties, outcome.properties)
        )
        return replace(
            rs,
            physical_id=outcome.physical_id or rs.physical_id,
            properties=dict(props),
            attributes=dict(outcome.attributes) or dict(rs.attributes),
        )

    return read


def _merge(recorded: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """The recorded properties with the live value of every property the driver reported (``Driver.read``
    reports what the cloud can tell, normalised as the template writes it; what it cannot report, such as a
    server's ``user_data``, keeps its recorded value). A recorded value holding a secret (masked) stays as
    recorded: a refresh never writes a secret into the state in clear."""
    out = dict(recorded)
    for k, v in live.items():
        if k in recorded and _has_masked(recorded[k]):
            continue
        out[k] = v
    return out


def _has_masked(value: Any) -> bool:
    if isinstance(value, dict):
        return "__sensitive__" in value or any(_has_masked(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_masked(v) for v in value)
    return False


def lazy_cloud(os_cloud: str | None) -> Callable[[], Any]:
    """An openstacksdk connection made on first use and kept (``--os-cloud``, else OS_CLOUD / OS_* /
    clouds.yaml, through :func:`hotc.providers.openstack.auth.connect`, whose errors say what to set)."""
    conn: list[Any] = []

    def get() -> Any:
        if not conn:
            try:
                from hotc.providers.openstack.auth import connect
            except ImportError as exc:
                raise HotcError(f"talking to the cloud needs openstacksdk: {exc}") from exc
            conn.append(connect(os_cloud))
        return conn[0]

    return get
