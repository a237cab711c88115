"""``hotc import STACK --from-heat HEAT_STACK DIR [--abandon]``: migrate a live Heat stack to hotc (the steps;
:mod:`hotc.ops.from_heat` runs them in order, planning through :func:`hotc.ops.plan.plan`).

Read through Heat's orchestration API (openstacksdk): the stack's template, environment, files and parameters,
and every resource's physical id, walking nested stacks and groups (``app.db``, ``grp[0]``, ``grp[1].port``).

1. The template, the environment and the files are written into DIR (``template.yaml``, ``environment.yaml``,
   files under their own relative paths, the ``file://`` URLs heatclient put in the template and the
   environment rewritten to those paths). Heat masks hidden parameters (``******``): they are left out of the
   environment file, and the note says to give them with ``--parameter`` (with ``--abandon``, Heat's export
   gives them: they are kept, encrypted, in hotc's state only, and ``hotc plan STACK --existing`` uses them).
2. hotc's state is built from those files: an object in the cloud is read through its driver (as ``hotc
   import`` does), a RandomString keeps the value Heat generated, the other in-process types (Value, None,
   software configs) are evaluated as hotc would. Outputs are evaluated. The next ``hotc plan`` on the files
   shows no changes (the command checks this and lists anything it would still change).
3. With ``--abandon`` Heat is asked to abandon the stack: Heat forgets it and leaves every resource in place.
   Without it, both tools claim the resources, and the command says so.

All or nothing: everything is read and checked before DIR and the state are written, and an existing state or
existing files in DIR are never overwritten. An abandon Heat refuses (``enable_stack_abandon`` off) is found
out before anything is written (through the export API, which Heat gates the same way).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from hotc.apply.adopt import adopt_reason, adopted_record, without_unknowns
from hotc.apply.events import resource_event
from hotc.apply.executor import ExecContext, resolved_outputs, with_defaults
from hotc.apply.importer import STACK_ADOPTED, clear_parameter_records, importable, read_one
from hotc.apply.resolve import StateResolver
from hotc.apply.session import template_record
from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.api import Plan, template_digest
from hotc.providers.base import ActionContext, physical_id_from_heat, translates_heat_ids
from hotc.state import StackState
from hotc.state.events import Event, utc_now

MASK = "******"
TEMPLATE_FILE = "template.yaml"
ENV_FILE = "environment.yaml"
AT_REST = ("CREATE_COMPLETE", "UPDATE_COMPLETE", "ADOPT_COMPLETE", "CHECK_COMPLETE", "RESUME_COMPLETE")
NESTED = "nested"  # key of a Heat resource's nested stack in HeatResource


@dataclass
class HeatResource:
    name: str
    type: str
    physical_id: str | None
    nested: dict[str, HeatResource] | None = None  # the resources of its nested stack (groups, templates)
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class HeatStack:
    name: str
    id: str
    status: str
    template: dict[str, Any]
    environment: dict[str, Any]
    files: dict[str, str]
    parameters: dict[str, Any]
    resources: dict[str, HeatResource]
    hidden: dict[str, Any] = field(default_factory=dict)  # hidden parameter values Heat's export gave


# ----------------------------------------------------------------------------------------------- reading


def _get_json(conn: Any, path: str) -> Any:
    resp = conn.orchestration.get(path)
    try:
        resp.raise_for_status()
    except Exception as exc:  # noqa: BLE001 -- the API's words
        raise HotcError(f"Heat API {path}: {resp.text or exc}") from exc
    return resp.json()


def _resources(conn: Any, stack_id: str, depth: int = 0) -> dict[str, HeatResource]:
    out: dict[str, HeatResource] = {}
    for r in conn.orchestration.resources(stack_id):
        hr = HeatResource(r.name, r.resource_type, r.physical_resource_id or None)
        nested_link = any(link.get("rel") == "nested" for link in (getattr(r, "links", None) or []))
        if nested_link and hr.physical_id and depth < 10:
            hr.nested = _resources(conn, hr.physical_id, depth + 1)
        out[hr.name] = hr
    return out


def fetch(conn: Any, name_or_id: str, *, export: bool) -> HeatStack:
    """The Heat stack as the API gives it (``export``: also Heat's export data, for hidden parameter values;
    raises HotcError when Heat refuses it, as it refuses an abandon)."""
    st = conn.orchestration.find_stack(name_or_id, ignore_missing=True)
    if st is None:
        raise HotcError(f"--from-heat {name_or_id}: Heat has no such stack (openstack stack list)")
    st = conn.orchestration.get_stack(st)
    base = f"/stacks/{st.name}/{st.id}"
    template = _get_json(conn, f"{base}/template")
    env = _get_json(conn, f"{base}/environment")
    files = _get_json(conn, f"{base}/files") or {}
    hs = HeatStack(
        name=st.name,
        id=st.id,
        status=str(st.status),
        template=template,
        environment=env,
        files={str(k): str(v) for k, v in files.items()},
        parameters=dict(st.parameters or {}),
        resources=_resources(conn, st.id),
    )
    if export:
        try:
            data = conn.orchestration.export_stack(st)
        except Exception as exc:  # noqa: BLE001
            text = str(exc)
            if "not supported" in text.lower():
                raise HotcError(
                    f"Heat refuses to abandon stack {st.name!r} (its heat.conf has enable_stack_abandon = false, "
                    "the default); nothing was written. Ask the cloud's operator to enable it, or migrate "
                    "without --abandon (both tools then claim the resources)"
                ) from exc
            raise HotcError(
                f"Heat's export of stack {st.name!r} failed: {text}; nothing was written"
            ) from exc
        env_full = (data or {}).get("environment") or {}
        for section in ("parameters", "parameter_defaults"):
            for k, v in (env_full.get(section) or {}).items():
                if v != MASK and (env.get(section) or {}).get(k) == MASK:
                    hs.hidden[k] = v
    return hs


def random_values(conn: Any, hs: HeatStack, paths: list[list[str]]) -> dict[tuple[str, ...], str]:
    """The value Heat generated for each RandomString at ``paths`` (resource show gives its attributes)."""
    out: dict[tuple[str, ...], str] = {}
    for path in paths:
        stack_name, stack_id = hs.name, hs.id
        level = hs.resources
        for i, seg in enumerate(path):
            r = level[seg]
            if i == len(path) - 1:
                doc = _get_json(conn, f"/stacks/{stack_name}/{stack_id}/resources/{seg}")
                value = ((doc.get("resource") or {}).get("attributes") or {}).get("value")
                if not isinstance(value, str):
                    raise HotcError(f"Heat gives no value for the RandomString {'.'.join(path)}")
                out[tuple(path)] = value
            else:
                assert r.nested is not None and r.physical_id is not None
                found = _get_json(conn, f"/stacks/{r.physical_id}")
                stack_name, stack_id = found["stack"]["stack_name"], r.physical_id
                level = r.nested
    return out


# ----------------------------------------------------------------------------------------------- files


def _url_path(url: str) -> str:
    if url.startswith("file://"):
        return url[len("file://") :]
    return re.sub(r"^[a-z]+://[^/]*", "", url) or "file"


def local_layout(files: Mapping[str, str]) -> dict[str, str]:
    """file URL -> path relative to DIR (the URLs' common directory becomes DIR)."""
    paths = {u: _url_path(u) for u in files}
    dirs = [os.path.dirname(p) for p in paths.values()]
    root = os.path.commonpath(dirs) if dirs and all(d.startswith("/") for d in dirs) else ""
    out: dict[str, str] = {}
    for u, p in paths.items():
        rel = os.path.relpath(p, root) if root else p.lstrip("/")
        rel = rel.replace(os.sep, "/")
        if rel in (TEMPLATE_FILE, ENV_FILE) or rel.startswith("../"):
            rel = "files/" + os.path.basename(p)
        out[u] = rel
    return out


def _rewrite(value: Any, mapping: Mapping[str, str], here: str) -> Any:
    """Every string naming a file URL replaced by its path relative to the file at ``here`` (DIR-relative)."""
    if isinstance(value, dict):
        return {_rewrite(k, mapping, here): _rewrite(v, mapping, here) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, mapping, here) for v in value]
    if isinstance(value, str) and value in mapping:
        return os.path.relpath(mapping[value], os.path.dirname(here) or ".").replace(os.sep, "/")
    return value


def _dump(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, allow_unicode=True, width=100)


def render_files(hs: HeatStack) -> tuple[dict[str, str], list[str]]:
    """DIR-relative path -> text of every file to write, and the hidden parameters Heat masked."""
    layout = local_layout(hs.files)
    out: dict[str, str] = {}
    template = {k: v for k, v in hs.template.items() if v is not None}
    out[TEMPLATE_FILE] = _dump(_rewrite(template, layout, TEMPLATE_FILE))
    for url, text in hs.files.items():
        rel = layout[url]
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            doc = None
        if isinstance(doc, dict) and "heat_template_version" in doc:
            rewritten = _rewrite(doc, layout, rel)
            out[rel] = text if rewritten == doc else _dump(rewritten)
        else:
            out[rel] = text
    env = hs.environment
    masked: list[str] = []
    clean: dict[str, Any] = {}
    for section in ("parameters", "parameter_defaults"):
        values = {}
        for k, v in (env.get(section) or {}).items():
            if v == MASK:
                masked.append(k)
                continue
            values[k] = v
        if values:
            clean[section] = values
    registry = dict(env.get("resource_registry") or {})
    if not registry.get("resources"):
        registry.pop("resources", None)
    registry = {
        k: v for k, v in registry.items() if not (k in layout and v == k)
    }  # heatclient's identity maps
    if registry:
        clean["resource_registry"] = _rewrite(registry, layout, ENV_FILE)
    for key in ("event_sinks", "encrypted_param_names"):
        if env.get(key) and key != "encrypted_param_names":
            clean[key] = env[key]
    head = f"# Environment of Heat stack {hs.name} ({hs.id}), as Heat's API gives it.\n"
    if masked:
        head += (
            "# Heat masks the hidden parameter(s) "
            + ", ".join(sorted(set(masked)))
            + ": they are not written here; give them with --parameter NAME=VALUE.\n"
        )
    out[ENV_FILE] = head + (_dump(clean) if clean else "{}\n")
    return out, sorted(set(masked))


def heat_path(address: str) -> list[str]:
    """The Heat resource names leading to a hotc address: ``grp[1].port`` -> ``grp``, ``1``, ``port``."""
    out: list[str] = []
    for seg in address.split("."):
        m = re.fullmatch(r"(.+?)((?:\[\d+\])*)", seg)
        assert m is not None
        out.append(m.group(1))
        out.extend(re.findall(r"\[(\d+)\]", m.group(2)))
    return out


def find_resource(hs: HeatStack, path: list[str]) -> HeatResource | None:
    level: Mapping[str, HeatResource] | None = hs.resources
    r: HeatResource | None = None
    for seg in path:
        if level is None or seg not in level:
            return None
        r = level[seg]
        level = r.nested
    return r


# ----------------------------------------------------------------------------------------------- the state


@model
class HeatTake:
    """How each resource of the desired stack is taken from the Heat stack: ``requests`` (address, id) are
    read from the cloud as imports (a derived one's id found from its properties, ``derive``: address -> Heat's
    id), ``natives`` (hotc's in-process types) are evaluated again as hotc would."""

    requests: tuple[tuple[str, str], ...]
    natives: Mapping[str, HeatResource]
    derive: Mapping[str, str | None]


def heat_take(hs: HeatStack, desired: Any, drivers: Callable[[str], Any]) -> HeatTake:
    """How the resources of ``desired`` are found in the Heat stack ``hs``; HotcError (before anything is
    written) naming every resource hotc cannot take."""
    requests: list[tuple[str, str]] = []
    natives: dict[str, HeatResource] = {}
    missing: list[str] = []
    derive: dict[str, str | None] = {}
    for addr, dr in desired.resources.items():
        if not dr.condition_enabled:
            continue
        r = find_resource(hs, heat_path(addr))
        derived = importable(dr.type, drivers) is None and translates_heat_ids(drivers(dr.type))
        if r is None or not (r.physical_id or derived):
            missing.append(addr)
        elif derived:
            # Heat keeps no usable id (role assignments, QoSAssociation): found from the properties below,
            # once what they name is in the state
            requests.append((addr, r.physical_id or _DERIVED))
            derive[addr] = r.physical_id
        elif importable(dr.type, drivers) is None:
            assert r.physical_id is not None
            requests.append((addr, r.physical_id))
        elif drivers(dr.type) is not None:
            natives[addr] = r
        else:
            missing.append(f"{addr} ({dr.type}: hotc has no driver for it)")
    if missing:
        raise HotcError(
            f"Heat stack {hs.name!r} has no resource hotc can take for: {', '.join(missing)}; nothing was written"
        )
    return HeatTake(tuple(requests), natives, derive)


def build_state(
    *,
    hs: HeatStack,
    new: StackState,
    loaded: Any,
    desired: Any,
    plan: Plan,
    take: HeatTake,
    randoms: Mapping[tuple[str, ...], str],
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
    inputs: Mapping[str, Any],
) -> tuple[StackState, list[Event], list[str]]:
    """hotc's state for the Heat stack (the cloud is only read), its events and notes: ``new`` (an empty state
    with the stack's lineage) with every change of ``plan`` (the import of ``take.requests`` into ``desired``)
    taken from Heat."""
    stack = new.stack_name
    natives, derive = take.natives, take.derive
    events: list[Event] = []
    notes: list[str] = []
    for c in plan.changes:
        if c.address in derive:
            c = replace(c, import_id=_heat_id(desired, new, c, derive[c.address], drivers, cloud))
        if c.import_id is not None:
            new, event, done = read_one(desired, new, c, drivers, cloud, names_generated=True)
            events.append(event)
            if done.note:
                notes.append(f"{c.address}: {done.note}")
            continue
        r = natives[c.address]
        assert r.physical_id is not None
        props = dict(without_unknowns(dict(desired.resolve_properties(c.address, StateResolver(new)))))
        driver = drivers(c.type)
        current = new

        def lookup(pid: str, st: StackState = current) -> Any:
            return next((x for x in st.resources.values() if x.physical_id == pid), None)

        ctx = ExecContext(
            address=c.address,
            type=c.type,
            stack_name=stack,
            lineage=new.lineage,
            timeout=60.0,
            cloud=cloud,
            record_physical_id=lambda _pid: None,
            lookup=lookup,
        )
        outcome = driver.create(ctx, with_defaults(c.type, props))
        if c.type == "OS::Heat::RandomString":
            value = randoms[tuple(heat_path(c.address))]
            outcome = replace(outcome, attributes={**dict(outcome.attributes), "value": value})
        reason = f"migrated from Heat stack {hs.name}: " + adopt_reason(r.physical_id, external=False)
        new = new.with_resource(
            adopted_record(
                address=c.address,
                type_name=c.type,
                outcome=outcome,
                physical_id=r.physical_id,
                properties=props,
                dependencies=tuple(c.depends_on),
                deletion_policy=c.deletion_policy,
                external=False,
                reason=reason,
                now=utc_now(),
                sensitive_paths=c.sensitive_paths,
            )
        )
        events.append(resource_event(c.address, c.type, STACK_ADOPTED, reason, r.physical_id))
    outs, errors = resolved_outputs(desired, StateResolver(new))
    notes.extend(errors)
    record_plan = Plan(stack_name=stack, mode="normal", changes=(), inputs=inputs)
    new = replace(
        new,
        outputs=outs or {},
        status=STACK_ADOPTED,
        status_reason=f"migrated from Heat stack {hs.name} ({hs.id})",
        template=template_record(loaded, record_plan),
        template_digest=template_digest(loaded),
        parameters=clear_parameter_records(loaded),
    )
    return new, events, notes


_DERIVED = "(from the properties)"


def _heat_id(
    desired: Any,
    state: StackState,
    c: Any,
    heat_id: str | None,
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
) -> str:
    """hotc's physical id of a resource whose Heat id is not one (see ``HeatIdTranslator``), from its properties
    resolved against what is migrated so far."""
    props = dict(without_unknowns(dict(desired.resolve_properties(c.address, StateResolver(state)))))
    ctx = ActionContext(
        address=c.address,
        type=c.type,
        stack_name=state.stack_name,
        lineage=state.lineage,
        timeout=120.0,
        cloud=cloud,
        record_physical_id=lambda _pid: None,
    )
    try:
        pid = physical_id_from_heat(drivers(c.type), ctx, heat_id, with_defaults(c.type, props))
    except HotcError as exc:
        raise HotcError(
            f"{c.address}: finding the {c.type} Heat made: {exc.message}; nothing was written"
        ) from exc
    except Exception as exc:  # noqa: BLE001 -- a cloud error, reported with the address
        raise HotcError(
            f"{c.address}: finding the {c.type} Heat made failed: {exc}; nothing was written"
        ) from exc
    if not pid:
        raise HotcError(
            f"{c.address}: the {c.type} Heat made names no object hotc can read; nothing was written"
        )
    return pid
