"""Saved plans (``hotc plan -o FILE``): self-contained JSON, and the freshness check before applying one.

File layout (``"hotc_saved_plan": 1``)::

    {"hotc_saved_plan": 1,
     "plan": {...every Plan field, Unknowns as {"__unknown__": [{"address", "attribute"}]}...},
     "inputs": {"template": REL, "environments": [REL...], "sources": {REL: text},
                "parameters": {K: V | {"hidden": true, "digest": "sha256:...", "salt": HEX}},
                "parameter_files": {K: REL | {"hidden": true, ...}}, "project_id": ...}}

Paths in ``inputs`` are relative to the common directory of every source, so the template digest does not
depend on where the files sit. Hidden parameter values given with ``--parameter``/``--parameter-file`` are not
stored: only a salted digest (their parameter-file text is dropped from ``sources`` too); they must be given
again when the plan is applied, and must match.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import tempfile
from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from hotc.errors import HotcError
from hotc.parser.api import LoadedStack, TypeChecks, load_stack
from hotc.planner.diff import MASK_KEY, is_masked, masked_digest
from hotc.planner.jsontext import dumps_indented
from hotc.planner.moves import Move
from hotc.planner.plan import (
    PLAN_FORMAT_VERSION,
    Action,
    GroupBatch,
    GroupRollout,
    OutputChange,
    Plan,
    PolicyFinding,
    ResourceChange,
)
from hotc.planner.present import split_path
from hotc.state import hidden_env
from hotc.state.document import StackState
from hotc.values import Unknown, WaitsOn, json_key

SAVED_PLAN_VERSION = 1


# ------------------------------------------------------------------------------------------ digest / inputs


def _common_root(paths: list[str]) -> str:
    if not paths:
        return ""
    absolute = [os.path.abspath(p) for p in paths]
    root = os.path.commonpath(absolute)
    if len(absolute) == 1 or root in absolute:
        root = os.path.dirname(root) if os.path.isfile(root) or root in absolute else root
    return root


def relative_sources(sources: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    root = _common_root(list(sources))
    return root, {
        os.path.relpath(os.path.abspath(p), root).replace(os.sep, "/"): t for p, t in sources.items()
    }


def digest_sources(rel_sources: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for rel in sorted(rel_sources):
        h.update(rel.encode())
        h.update(b"\0")
        h.update(rel_sources[rel].encode())
        h.update(b"\0")
    return "sha256:" + h.hexdigest()


def hidden_names(loaded: LoadedStack) -> frozenset[str]:
    """The hidden parameters of the stack's template and of every nested template (an environment's
    ``parameter_defaults`` reach the nested ones too)."""
    names = set(loaded.hidden_parameters) | {n for n, p in loaded.template.parameters.items() if p.hidden}
    todo = list(loaded.nested.values())
    while todo:
        nt = todo.pop()
        names |= {n for n, p in nt.template.parameters.items() if p.hidden}
        todo.extend(nt.nested.values())
    return frozenset(names)


def environment_paths(loaded: LoadedStack) -> tuple[str, ...]:
    """The absolute paths of the stack's environment files, in the order they were merged."""
    env = loaded.environment
    return tuple(os.path.abspath(p) for p in (getattr(env, "files", None) or ()))


def scrubbed_sources(loaded: LoadedStack) -> dict[str, str]:
    """``loaded.sources`` but the parameter files, with the hidden values in its environment files replaced by the marker of
    :mod:`hotc.state.hidden_env`: what the digest is taken over, so that a copy kept without those values
    (and given them back) has the digest of the original."""
    names = hidden_names(loaded)
    envs = set(environment_paths(loaded))
    # --parameter-file contents are parameter values, not the template: a saved plan keeps a hidden one's
    # digest only, and every parameter value it reloads is its own
    out = {p: t for p, t in loaded.sources.items() if p not in loaded.parameter_file_paths}
    if names:
        for path in envs & set(out):
            out[path] = hidden_env.scrub(out[path], names)[0]
    return out


def template_digest(loaded: LoadedStack) -> str:
    """sha256 over every file read (template, environments, get_file targets, nested templates), by path
    relative to their common directory: the same files moved elsewhere give the same digest. Hidden values
    in the environment files are left out (they are checked apart, by their own digests)."""
    _root, rel = relative_sources(scrubbed_sources(loaded))
    return digest_sources(rel)


def _salted(value: str, salt: str) -> str:
    return "sha256:" + hashlib.sha256((salt + "\0" + value).encode()).hexdigest()


def plan_inputs(
    loaded: LoadedStack,
    template_path: Path,
    env_paths: list[Path],
    cli_parameters: Mapping[str, str],
    parameter_files: Mapping[str, Path],
    *,
    project_id: str | None = None,
) -> dict[str, Any]:
    """What a saved plan needs to reload the stack (see the module docstring)."""
    sources = dict(loaded.sources)
    for p in [template_path, *env_paths, *parameter_files.values()]:
        ap = os.path.abspath(p)
        if ap not in sources and str(p) not in sources:
            try:
                sources[ap] = Path(p).read_text(encoding="utf-8")
            except OSError:
                pass
    hidden = hidden_names(loaded)
    root = _common_root(list(sources))

    def rel(p: Path | str) -> str:
        return os.path.relpath(os.path.abspath(p), root).replace(os.sep, "/")

    rel_sources = {rel(p): t for p, t in sources.items()}
    names = hidden_names(loaded)
    hidden_values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for e in env_paths:
        r = rel(e)
        text = rel_sources.get(r)
        if text is None or not names:
            continue
        scrubbed, found = hidden_env.scrub(text, names)
        if not found:
            continue
        rel_sources[r] = scrubbed
        origins[r] = os.path.abspath(e)
        per: dict[str, dict[str, Any]] = {}
        for hv in found:
            salt = secrets.token_hex(8)
            per.setdefault(hv.section, {})[hv.name] = {
                "salt": salt,
                "digest": _salted(hidden_env.canonical(hv.value), salt),
                "text_digest": _salted(hv.text, salt),
            }
        hidden_values[r] = per
    params: dict[str, Any] = {}
    for k, v in cli_parameters.items():
        if k in hidden:
            salt = secrets.token_hex(8)
            params[k] = {"hidden": True, "digest": _salted(v, salt), "salt": salt}
        else:
            params[k] = v
    pfiles: dict[str, Any] = {}
    for k, p in parameter_files.items():
        r = rel(p)
        if k in hidden:
            text = rel_sources.pop(r, None)
            salt = secrets.token_hex(8)
            pfiles[k] = {"hidden": True, "digest": _salted(text or "", salt), "salt": salt}
        else:
            pfiles[k] = r
    return {
        "template": rel(template_path),
        "environments": [rel(e) for e in env_paths],
        "sources": rel_sources,
        "parameters": params,
        "parameter_files": pfiles,
        "project_id": project_id,
        **({hidden_env.RECORD_KEY: hidden_values, "environment_origins": origins} if hidden_values else {}),
    }


# ------------------------------------------------------------------------------------------ (de)serialising


def encode_value(v: Any) -> Any:
    if isinstance(v, Unknown):
        return {
            "__unknown__": [
                {"address": w.address, "attribute": None if w.attribute is None else list(w.attribute)}
                for w in sorted(v.waits_on, key=str)
            ]
        }
    if isinstance(v, Mapping):
        return {json_key(k): encode_value(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [encode_value(x) for x in v]
    return v


def decode_value(v: Any) -> Any:
    if isinstance(v, dict):
        if set(v) == {"__unknown__"} and isinstance(v["__unknown__"], list):
            return Unknown(
                frozenset(
                    WaitsOn(w["address"], None if w.get("attribute") is None else tuple(w["attribute"]))
                    for w in v["__unknown__"]
                )
            )
        return {k: decode_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [decode_value(x) for x in v]
    return v


def _masked(v: Any) -> Any:
    if v is None or isinstance(v, Unknown) or is_masked(v):
        return v
    return {MASK_KEY: masked_digest(v)}


def _mask_props(props: Any, paths: tuple[str, ...]) -> Any:
    if not isinstance(props, Mapping) or not paths:
        return props
    if "*" in paths:
        return {k: _masked(v) for k, v in props.items()}

    return _mask_tree(props, [split_path(p) for p in paths])


def _mask_tree(v: Any, paths: list[list[str | int]]) -> Any:
    """``v`` with the value at each path (``value.password``, ``rules[1].port``) masked, siblings kept."""
    if not paths:
        return v
    if any(not p for p in paths):
        return _masked(v)
    if isinstance(v, dict):
        return {k: _mask_tree(x, [p[1:] for p in paths if p[0] == k]) for k, x in v.items()}
    if isinstance(v, list):
        return [_mask_tree(x, [p[1:] for p in paths if p[0] == i]) for i, x in enumerate(v)]
    return v


def _change_to_data(c: Any) -> dict[str, Any]:
    """One change as data; hidden values (sensitive paths, sensitive outputs) are stored as digests only."""
    out: dict[str, Any] = {}
    sensitive_paths = tuple(getattr(c, "sensitive_paths", ()) or ())
    sensitive_output = bool(getattr(c, "sensitive", False)) and isinstance(c, OutputChange)
    for f in fields(c):
        v = getattr(c, f.name)
        if isinstance(v, Action):
            v = v.value
        elif f.name in ("before", "after"):
            v = _masked(v) if sensitive_output else _mask_props(v, sensitive_paths)
        out[f.name] = encode_value(v)
    return out


def plan_to_data(plan: Plan) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(plan):
        v = getattr(plan, f.name)
        if f.name in ("changes", "resource_drift"):
            v = [_change_to_data(c) for c in v]
        elif f.name == "output_changes":
            v = [_change_to_data(o) for o in v]
        elif f.name == "groups":
            v = [
                {
                    **{g.name: encode_value(getattr(r, g.name)) for g in fields(r) if g.name != "batches"},
                    "batches": [
                        {g.name: encode_value(getattr(b, g.name)) for g in fields(b)} for b in r.batches
                    ],
                }
                for r in v
            ]
        elif f.name == "policy_findings":
            v = [{g.name: getattr(p, g.name) for g in fields(p)} for p in v]
        elif f.name == "moves":
            v = [{g.name: encode_value(getattr(m, g.name)) for g in fields(m)} for m in v]
        else:
            v = encode_value(v)
        out[f.name] = v
    return out


_TUPLE_FIELDS = {
    "replace_paths",
    "changed_paths",
    "depends_on",
    "sensitive_paths",
    "targets",
    "excludes",
    "replace_requests",
    "hooks",
}


def _build(cls: Any, data: Mapping[str, Any]) -> Any:
    kwargs: dict[str, Any] = {}
    names = {f.name for f in fields(cls)}
    for k, v in data.items():
        if k not in names:
            continue  # a newer minor version's field
        if k == "action":
            v = Action(v)
        elif k in _TUPLE_FIELDS:
            v = tuple(v or ())
        else:
            v = decode_value(v)
        kwargs[k] = v
    return cls(**kwargs)


def _rollout_from_data(data: Mapping[str, Any]) -> GroupRollout:
    """A saved group rollout (its batches are what ``hotc apply PLANFILE`` runs, in order)."""

    def build(cls: Any, d: Mapping[str, Any]) -> Any:
        names = {f.name for f in fields(cls)}
        kw = {
            k: tuple(v) if isinstance(v, list) else decode_value(v)
            for k, v in d.items()
            if k in names and k != "batches"
        }
        return cls(**kw)

    rollout: GroupRollout = build(GroupRollout, data)
    batches = tuple(build(GroupBatch, b) for b in data.get("batches") or [])
    return replace(rollout, batches=batches)


def plan_from_data(data: Mapping[str, Any]) -> Plan:
    names = {f.name for f in fields(Plan)}
    kw: dict[str, Any] = {}
    for k, v in data.items():
        if k not in names:
            continue
        if k in ("changes", "resource_drift"):
            kw[k] = tuple(_build(ResourceChange, c) for c in v or [])
        elif k == "output_changes":
            kw[k] = tuple(_build(OutputChange, o) for o in v or [])
        elif k == "groups":
            kw[k] = tuple(_rollout_from_data(r) for r in v or [])
        elif k in ("targets", "excludes", "replace_requests", "warnings"):
            kw[k] = tuple(v or ())
        elif k == "policy_findings":
            kw[k] = tuple(PolicyFinding(**p) for p in v or [])
        elif k == "moves":
            kw[k] = tuple(
                Move(m["from_address"], m["to_address"], m["source"], tuple(tuple(p) for p in m["leaves"]))
                for m in v or []
            )
        else:
            kw[k] = decode_value(v)
    return Plan(**kw)


def save_plan(plan: Plan, path: Path | str) -> None:
    """Write the plan atomically (a temp file renamed over ``path``)."""
    path = Path(path)
    doc = {"hotc_saved_plan": SAVED_PLAN_VERSION, "plan": plan_to_data(plan)}
    text = dumps_indented(doc, 1, sort_keys=True, ensure_ascii=False)  # json.dumps's text, written faster
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".hotc-plan-", dir=str(path.parent))
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise HotcError(f"cannot write the plan to {path}: {exc.strerror or exc}") from exc


def load_plan(path: Path | str) -> Plan:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HotcError(f"cannot read the plan file {path}: {exc.strerror or exc}") from exc
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise HotcError(f"{path}: not a hotc plan file (invalid JSON: {exc})") from exc
    if not isinstance(doc, dict) or "hotc_saved_plan" not in doc or not isinstance(doc.get("plan"), dict):
        raise HotcError(f"{path}: not a hotc plan file (make one with 'hotc plan -o FILE')")
    if doc["hotc_saved_plan"] != SAVED_PLAN_VERSION:
        raise HotcError(
            f"{path}: saved plan version {doc['hotc_saved_plan']} is not supported (this hotc reads {SAVED_PLAN_VERSION})"
        )
    fv = str(doc["plan"].get("format_version", ""))
    if fv.split(".")[0] != PLAN_FORMAT_VERSION.split(".")[0]:
        raise HotcError(f"{path}: plan format {fv} is not supported (this hotc reads {PLAN_FORMAT_VERSION})")
    try:
        return plan_from_data(doc["plan"])
    except (TypeError, ValueError, KeyError) as exc:
        raise HotcError(f"{path}: the plan file is damaged: {exc}") from exc


# ------------------------------------------------------------------------------------------ reloading


def _given_matches(given: str, sealed: Mapping[str, Any]) -> bool:
    salt = str(sealed.get("salt", ""))
    forms = {given}
    try:
        forms.add(hidden_env.canonical(json.loads(given)))
    except ValueError:
        pass
    return any(_salted(f, salt) == sealed.get("digest") for f in forms)


def _restore_hidden_values(inputs: Mapping[str, Any], given: Mapping[str, str]) -> dict[str, str]:
    """The plan's sources with the hidden values taken out of its environment files put back: each from
    ``--parameter NAME=VALUE`` given now, or else from the environment file the plan was made from, where it
    still holds the same value. Either must match the salted digest the plan keeps."""
    sources = dict(inputs["sources"])
    origins: Mapping[str, str] = inputs.get("environment_origins") or {}
    missing: list[str] = []
    for rel, per in (inputs.get(hidden_env.RECORD_KEY) or {}).items():
        if rel not in sources or not isinstance(per, Mapping):
            continue
        try:
            origin_text = Path(origins[rel]).read_text(encoding="utf-8") if rel in origins else ""
        except OSError:
            origin_text = ""
        wanted = [n for _s, n in hidden_env.markers(sources[rel])]
        origin_values = {(hv.section, hv.name): hv.text for hv in hidden_env.scrub(origin_text, wanted)[1]}

        def put_back(
            section: str,
            name: str,
            rel: str = rel,
            per: Mapping[str, Any] = per,
            origin_values: Mapping[Any, str] = origin_values,
        ) -> str | None:
            sealed = (per.get(section) or {}).get(name)
            if not isinstance(sealed, Mapping):
                return None
            if name in given:
                if not _given_matches(given[name], sealed):
                    raise HotcError(
                        f"hidden parameter {name!r}: the value given differs from the one the plan was made "
                        f"with (in {rel}'s {section})"
                    )
                return hidden_env.value_text(given[name])
            original = origin_values.get((section, name))
            if original is not None and _salted(original, str(sealed.get("salt", ""))) == sealed.get(
                "text_digest"
            ):
                return original
            missing.append(f"{name} ({rel}, {section})")
            return None

        sources[rel] = hidden_env.refill(sources[rel], put_back)
    if missing:
        raise HotcError(
            "the saved plan does not store the hidden value(s) given in environment files: "
            + ", ".join(missing)
            + "; the files it was made from are gone or changed. Give each again with --parameter NAME=VALUE"
        )
    return sources


def loaded_stack_from_plan(
    plan: Plan, parameters: Mapping[str, str] | None = None, *, checks: TypeChecks
) -> LoadedStack:
    """Materialise the plan's sources in a temporary directory and load the stack from them.
    ``parameters``: values of hidden parameters (checked against the stored digests); ``checks``: the type
    checks ``load_stack`` makes (as when the plan was made)."""

    inputs = plan.inputs or {}
    if not inputs.get("sources") or not inputs.get("template"):
        raise HotcError("this plan holds no template (it was not saved with 'hotc plan -o FILE')")
    given = dict(parameters or {})
    cli: dict[str, str] = {}
    for k, v in (inputs.get("parameters") or {}).items():
        if isinstance(v, dict) and v.get("hidden"):
            if k not in given:
                raise HotcError(
                    f"the saved plan does not store the hidden parameter {k!r}: give it again with --parameter {k}=VALUE"
                )
            if _salted(given[k], v["salt"]) != v["digest"]:
                raise HotcError(
                    f"hidden parameter {k!r}: the value given differs from the one the plan was made with"
                )
            cli[k] = given[k]
        else:
            cli[k] = str(v)
    with tempfile.TemporaryDirectory(prefix="hotc-plan-") as tmp:
        root = Path(tmp) / "src"
        sources = _restore_hidden_values(inputs, given)
        for rel, text in sources.items():
            target = (root / rel).resolve()
            if not str(target).startswith(str(root.resolve())):
                raise HotcError(f"the plan file is damaged: source path {rel!r} leaves its directory")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        pfiles: dict[str, Path] = {}
        for k, v in (inputs.get("parameter_files") or {}).items():
            if isinstance(v, dict) and v.get("hidden"):
                if k not in given:
                    raise HotcError(
                        f"the saved plan does not store the hidden parameter {k!r}: give it again with --parameter {k}=VALUE"
                    )
                if _salted(given[k], v["salt"]) != v["digest"]:
                    raise HotcError(
                        f"hidden parameter {k!r}: the value given differs from the one the plan was made with"
                    )
                cli[k] = given[k]
            else:
                pfiles[k] = root / v
        loaded, diags = load_stack(
            root / inputs["template"],
            [root / e for e in inputs.get("environments", [])],
            cli,
            pfiles,
            require_values=True,
            checks=checks,
        )
        errors = [d for d in diags if d.severity.value == "error"]
        if loaded is None or errors:
            raise HotcError("the plan's template no longer loads", diagnostics=tuple(errors))
        return loaded


def check_plan_fresh(plan: Plan, state: StackState | None, current_template_digest: str | None) -> None:
    """Refuse a stale plan, naming what moved: the state's lineage or serial, or the template digest."""
    moved: list[str] = []
    if plan.state_lineage is None:
        if state is not None and (state.serial > 0 or state.resources):
            moved.append(
                f"the stack's state was created after the plan was made (now lineage {state.lineage}, serial {state.serial})"
            )
    elif state is None:
        moved.append(f"the state the plan was made against (lineage {plan.state_lineage}) no longer exists")
    else:
        if state.lineage != plan.state_lineage:
            moved.append(
                f"state lineage changed: plan {plan.state_lineage}, now {state.lineage} (a different stack's state)"
            )
        elif state.serial != plan.state_serial:
            moved.append(
                f"state serial moved: plan made at serial {plan.state_serial}, state is now at {state.serial}"
            )
    if (
        plan.template_digest is not None
        and current_template_digest is not None
        and plan.template_digest != current_template_digest
    ):
        moved.append(
            f"template digest changed: plan {plan.template_digest[:19]}…, now {current_template_digest[:19]}…"
        )
    if moved:
        raise HotcError(
            "the saved plan is stale: " + "; ".join(moved) + ". Make a new plan with 'hotc plan'."
        )
