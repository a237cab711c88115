"""The ``apply`` step of a resource: what it does with the resource the plan creates, updates or replaces.

In order: an adopting change reads and records the existing object (:mod:`.adopt`); a change the plan made
only because an input was known after apply is skipped when the values turn out to be the recorded ones; the
checks the plan could not make (its values were unknown) run on the resolved properties; then the update, or
for a replace of a failed resource the check whether it can be kept (:func:`hotc.apply.recovery.recover`),
else the create of the (new instance of the) resource.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.apply.graph import Step
from hotc.apply.recovery import RECOVERABLE, recover
from hotc.apply.stepenv import StepEnv, StepFailed, patch
from hotc.apply.steps.adopt import adopt
from hotc.apply.steps.create import create
from hotc.apply.steps.update import update
from hotc.planner.plan import Action
from hotc.values import contains_unknown

#: plan reasons that come from the resource's properties alone (see unchanged_after_all)
PROPERTY_REASONS = frozenset({"update", "replace_because_cannot_update", "replace_because_update_policy"})


def apply(env: StepEnv, step: Step) -> bool:
    """Create, replace or update the resource of ``step``; True when nothing had to be done after all."""
    change = step.change
    assert change is not None
    if change.import_id is not None:  # adopt an existing object: nothing is created or changed
        adopt(env, step, change.import_id)
        return False
    props = env.desired_props(step)
    if unchanged_after_all(env, step, props):
        deps, _policy = env.record(step)
        env.keeper.commit(lambda s: patch(s, step.address, dependencies=deps))
        env.logger(step.address)(
            "no change: the values the plan knew only after apply are the recorded ones, so the "
            f"planned {change.action.value} is not needed"
        )
        return True
    # lazy: hotc check loads this module; validate_resolved imports the schema registry (test_startup_imports)
    from hotc.planner.validate_resolved import apply_problems  # what the plan could not check (Unknowns)

    problem = apply_problems(
        change.type, props, tuple(props) if change.after_sensitive else change.sensitive_paths
    )
    if problem is not None:
        raise StepFailed(problem)
    if change.action is Action.UPDATE:
        update(env, step, props)
    elif (
        change.action is Action.REPLACE and change.action_reason in RECOVERABLE and recover(env, step, props)
    ):
        return False
    else:
        create(env, step, props)
    return False


def unchanged_after_all(env: StepEnv, step: Step, props: Mapping[str, Any]) -> bool:
    """Heat decides an update with the values it has when it gets to the resource. A change the plan made
    only because an input was known after apply (an attribute of a resource updated just before) is not
    needed when the resolved properties decide a no-op against the recorded ones (type rules such as
    ``replacement_policy: REPLACE_ALWAYS`` still replace)."""
    change = step.change
    assert change is not None
    if change.action not in (Action.UPDATE, Action.REPLACE) or change.rebuild:
        return False
    if change.action_reason not in PROPERTY_REASONS or not contains_unknown(change.after):
        return False
    if change.action is Action.UPDATE and not change.reason_detail.startswith("update in place"):
        return False  # metadata, deletion policy or a status to mark: not only properties
    cur = env.keeper.state.resources.get(step.address)
    if (
        cur is None
        or cur.physical_id is None
        or cur.type != change.type
        or cur.failed
        or cur.in_progress
        or cur.deletion_policy != change.deletion_policy
    ):
        return False
    try:
        # lazy: hotc check loads this module, not the schema registry nor the parser (planner.diff imports providers.validation, which imports hotc.parser.api)
        from hotc.planner.diff import apply_defaults, unmask
        from hotc.providers.registry import get_schema
        from hotc.providers.schemas.decide import decide_update
    except ImportError:
        return False
    rtype = get_schema(change.type)
    if rtype is None:
        return False
    old, new = apply_defaults(rtype, cur.properties), apply_defaults(rtype, props)
    return decide_update(rtype, unmask(old, new), new, defaults_applied=True).kind == "no-op"
