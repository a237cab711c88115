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
from hotc.providers.base import ActionContext
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


def driver_reader(state: StackState, cloud: Callable[[], Any], driver_for: Callable[[str], Any]) -> Reader:
    """A reader using each type's driver (``driver_for``: the composition root gives
    ``hotc.providers.drivers.driver_for``); ``cloud``: the connection getter. A type without a driver is kept
    as recorded."""

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
    """Live values for the properties the template set (a driver may report more than was asked for)."""
    out = dict(recorded)
    for k, v in recorded.items():
        if k in live and not (isinstance(v, dict) and "__sensitive__" in v):  # hidden values stay masked
            out[k] = live[k]
    return out
