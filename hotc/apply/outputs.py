"""The stack's outputs after an apply: each evaluated against the final state on its own (one that fails never
hides the others, as in Heat), with the template's description, masked when sensitive, and an error for one
whose value is still unknown."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.apply.stepenv import DesiredLike
from hotc.errors import HotcError
from hotc.state.document import OutputState
from hotc.state.secrets import withheld_error
from hotc.values import collect_unknowns


def resolved_outputs(
    desired: DesiredLike, resolver: Any
) -> tuple[dict[str, OutputState] | None, tuple[str, ...]]:
    """The outputs to store after an apply (None when they cannot be evaluated at all) and the errors."""
    errors: list[str] = []
    each = getattr(desired, "resolve_outputs_with_errors", None)
    raw: Mapping[str, Any]
    if each is not None:  # each output on its own: one that fails never hides the others (as in Heat)
        raw = {
            n: v if e is None else OutputState(value=None, error=e) for n, (v, e) in each(resolver).items()
        }
    else:
        try:
            raw = desired.resolve_outputs(resolver)
        except HotcError as exc:
            return None, (exc.message,)
    outs: dict[str, OutputState] = {}
    descriptions = _output_descriptions(desired)
    for name, v in raw.items():
        out = v if isinstance(v, OutputState) else OutputState(value=v)
        if descriptions.get(name) and not out.description:
            out = replace(out, description=descriptions[name])  # the template's, as Heat's output show gives
        if name in getattr(desired, "sensitive_outputs", ()) and not out.sensitive:
            out = replace(out, sensitive=True)  # stored masked, shown as (sensitive), as the plan said
        if collect_unknowns(out.value) is not None:
            out = replace(out, value=None, error="the value is still unknown after the apply")
        if out.error and out.sensitive:
            out = replace(out, error=withheld_error(out.error))  # errors quote the value they failed on
        if out.error:
            errors.append(f"output {name}: {out.error}")
        outs[name] = out
    return outs, tuple(errors)


def _output_descriptions(desired: Any) -> dict[str, str]:
    """The root template's output descriptions (empty for a desired stack that has no template)."""
    scopes = getattr(desired, "scopes", None)
    root = scopes.get("") if isinstance(scopes, Mapping) else None
    outputs = getattr(getattr(root, "template", None), "outputs", None) or {}
    return {n: str(o.description) for n, o in outputs.items() if getattr(o, "description", None)}
