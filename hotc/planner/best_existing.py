"""Which instance of a resource an update starts from, when an earlier apply left more than one.

A replacement is made before its original is deleted; meanwhile the original waits as a deposed instance. When
the new instance failed before it was ever made (it has no physical id), the original is the one real object
of the resource. Heat's convergence engine, asked for the resource again, starts from the best existing
instance (``Stack._get_best_existing_rsrc_db``): a replacement that was never made is no candidate, the
original is. So an update back to the original's template (a rollback by hand) keeps the original, and one
that asks for the replacement again replaces it again.

:func:`best_existing` gives the state a plan and its apply start from (both call it on the state they read,
so that they see the same): for each such resource, the newest deposed instance is its current instance again
(``CREATE_COMPLETE``, as it stood before the replacement began), the other deposed instances stay deposed.
"""

from __future__ import annotations

from dataclasses import replace

from hotc.state.document import ResourceState, StackState


def _restored(rs: ResourceState) -> ResourceState | None:
    if rs.physical_id or not rs.failed or not rs.status.startswith("CREATE") or not rs.deposed:
        return None
    original = rs.deposed[-1]
    if not original.physical_id or original.status != "REPLACED":
        return None
    return replace(
        rs,
        type=original.type or rs.type,
        physical_id=original.physical_id,
        status="CREATE_COMPLETE",
        status_reason="",
        properties=original.properties,
        attributes=original.attributes,
        deletion_policy=original.deletion_policy,
        sensitive_paths=original.sensitive_paths,
        sensitive_attributes=original.sensitive_attributes,
        deposed=rs.deposed[:-1],
    )


def best_existing(state: StackState) -> StackState:
    """``state`` with each resource whose replacement failed before it was made back on its original."""
    restored = {addr: new for addr, rs in state.resources.items() if (new := _restored(rs)) is not None}
    if not restored:
        return state
    return replace(state, resources={**state.resources, **restored})
