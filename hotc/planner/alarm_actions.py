"""An alarm action that names a resource of the stack (``alarm_actions: [scale_up]``).

Heat's alarm resources turn such an action into the named resource's ``AlarmUrl`` attribute (the CloudFormation
way of pointing an alarm at a scaling policy). Only ``AWS::AutoScaling::ScalingPolicy`` has that attribute, so for
any other resource (an ``OS::Heat::ScalingPolicy`` above all) Heat's create of the alarm fails. hotc would send
the bare name to Aodh, which refuses it as an action URL: the create fails in both, but only the plan can say why
and what to write instead (``{get_attr: [NAME, alarm_url]}``). ``AWS::AutoScaling::ScalingPolicy`` itself is
refused by the plan (hotc has no driver for it), so it needs no rule here.

A name of a resource whose condition is false fails too, for another reason: Heat's ``act in self.stack`` looks
in the template's resources (the engine has not built the stack's resources yet), where the name is, and
``self.stack[act]`` then looks in the resources the conditions keep, where it is not. Checked on the test
cloud's Heat 27: the alarm is CREATE_FAILED with "KeyError: resources.alarm: 'scale_up'", whatever the type.
Nothing reaches Aodh. The plan says so, and what to write."""

from __future__ import annotations

from collections.abc import Callable

from hotc.errors import Diagnostic, Pos, error
from hotc.parser.api import Literal, Resource, functions
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
            if member is None:
                continue
            where = f"{change.address}: property {key}.{i}: '{act}' names the resource {act} ({member.type})"
            if member.kind == "disabled":
                message = f"{where}, whose condition is false: {_left_out(act, member.resource)}"
            elif member.type == _TAKES_NAMES:
                continue
            else:
                message = (
                    f"{where} of this stack, and Heat turns it into that resource's AlarmUrl attribute, which "
                    f"only {_TAKES_NAMES} has: Heat's create of the alarm fails; give the URL instead, "
                    f"{{get_attr: [{act}, alarm_url]}}"
                )
            out.append(error(message, pos_at(f"{key}.{i}"), code="property"))
    return out


def _left_out(name: str, resource: Resource | None) -> str:
    """What Heat does with an action naming a resource its condition leaves out, and what to write."""
    cond = getattr(resource, "condition", None)
    named: str | None = None
    if isinstance(cond, functions.ConditionName):
        named = cond.condition
    elif isinstance(cond, Literal) and isinstance(cond.value, str):
        named = cond.value
    fix = (
        f"{{if: [{named}, [{{get_attr: [{name}, alarm_url]}}], []]}}"
        if named is not None
        else f"an 'if' on the same condition that gives {{get_attr: [{name}, alarm_url]}} only when it holds"
    )
    return (
        f"Heat finds {name} among the template's resources but not among those its conditions keep, so its "
        f"create of the alarm fails (KeyError: '{name}') before anything reaches Aodh; give the URL only when "
        f"the resource exists, {fix}"
    )
