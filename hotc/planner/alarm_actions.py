"""An alarm action that names a resource of the stack (``alarm_actions: [scale_up]``).

Heat's alarm resources turn such an action into the named resource's ``AlarmUrl`` attribute (the CloudFormation
way of pointing an alarm at a scaling policy). Only ``AWS::AutoScaling::ScalingPolicy`` has that attribute, so for
any other resource (an ``OS::Heat::ScalingPolicy`` above all) Heat's create of the alarm fails. hotc would send
the bare name to Aodh, which refuses it as an action URL: the create fails in both, but only the plan can say why
and what to write instead (``{get_attr: [NAME, alarm_url]}``). ``AWS::AutoScaling::ScalingPolicy`` itself is
refused by the plan (hotc has no driver for it), so it needs no rule here."""

from __future__ import annotations

from collections.abc import Callable

from hotc.errors import Diagnostic, Pos, error
from hotc.planner.desired import DesiredStack
from hotc.planner.plan import ResourceChange

ACTION_KEYS = ("alarm_actions", "ok_actions", "insufficient_data_actions")
_TAKES_NAMES = "AWS::AutoScaling::ScalingPolicy"  # the one type with an AlarmUrl attribute


def named_actions(
    desired: DesiredStack, change: ResourceChange, pos_at: Callable[[str], Pos | None]
) -> list[Diagnostic]:
    """The errors of CHANGE's alarm actions that name a resource of its stack (see the module)."""
    if not change.type.startswith("OS::Aodh::") or not change.after:
        return []
    res = desired.resources.get(change.address)
    scope = desired.scopes.get(res.scope) if res is not None else None
    if scope is None:
        return []
    out: list[Diagnostic] = []
    for key in ACTION_KEYS:
        actions = change.after.get(key)
        if not isinstance(actions, list | tuple):
            continue
        for i, act in enumerate(actions):
            member = scope.members.get(act) if isinstance(act, str) else None
            if member is None or member.type == _TAKES_NAMES:
                continue
            out.append(
                error(
                    f"{change.address}: property {key}.{i}: '{act}' names the resource {act} ({member.type}) of "
                    "this stack, and Heat turns it into that resource's AlarmUrl attribute, which only "
                    f"{_TAKES_NAMES} has: Heat's create of the alarm fails; give the URL instead, "
                    f"{{get_attr: [{act}, alarm_url]}}",
                    pos_at(f"{key}.{i}"),
                    code="property",
                )
            )
    return out
