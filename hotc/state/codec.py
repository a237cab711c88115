"""JSON (de)serialisation of :class:`StackState` (schema: ``hotc/state/state.schema.json``).

The writer never puts a hidden value in clear: hidden parameters become a digest (plus ciphertext with a
key), resource properties at ``sensitive_paths`` and sensitive outputs become masked markers
(:mod:`hotc.state.secrets`). The reader refuses a newer ``format_version`` and turns malformed or truncated
input into a :class:`HotcError` naming the source.

A long text (:data:`SHARED_MIN` characters or more) in a resource's record is stored once per document, in
the top-level ``shared`` table under its sha256 digest, and referenced as ``{"__shared__": DIGEST}``: a group
whose members all read the same large file (``get_file``) holds it once, not once per member, in every state
write. Such a document is format 4 (an older hotc refuses it rather than read the references as values); a
document without shared texts stays format 3, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import hotc.state.hidden_env as hidden_env
import hotc.state.secrets as secrets
from hotc.errors import HotcError
from hotc.state.document import (
    FORMAT_VERSION,
    AcceptedDrift,
    DeposedInstance,
    GroupState,
    OutputState,
    ParameterRecord,
    ProtectMark,
    ResourceState,
    ScalingDecision,
    StackState,
)
from hotc.values import json_key

SCHEMA_FILE = "state.schema.json"
SHARED_MIN = 16 * 1024  # texts at least this long are stored once per document (see the module docstring)
SHARED_KEY = "__shared__"
SHARED_FORMAT_VERSION = 4  # the format of a document with a ``shared`` table


class StateFormatError(HotcError):
    """A state document that cannot be read (corrupt, truncated, wrong shape, newer format)."""


# ---------------------------------------------------------------------------------------------- writing


def plain(value: Any, where: str = "") -> Any:
    """``value`` as plain JSON data (Mappings to dicts, tuples to lists); refuses anything else."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {json_key(k): plain(v, f"{where}.{k}" if where else str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise HotcError(
        f"cannot store a value of type {type(value).__name__} in the state at {where or '(top)'}: "
        "only JSON data (and no unknown-until-apply values) can be stored"
    )


_PATH_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def parse_path(path: str) -> tuple[str | int, ...]:
    """A property path as segments: ``a.b[0].c`` and ``a.b.0.c`` both give ``("a", "b", 0, "c")``."""
    out: list[str | int] = []
    for m in _PATH_TOKEN.finditer(path):
        if m.group(1) is not None:
            out.append(int(m.group(1)))
        else:
            seg = m.group(2)
            out.append(int(seg) if seg.isdigit() else seg)
    return tuple(out)


def _map_at(value: Any, path: tuple[str | int, ...], fn: Any) -> Any:
    """``value`` with ``fn`` applied to the sub-value at ``path`` (unchanged when the path is absent)."""
    if not path:
        return fn(value)
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        key = str(head)
        if key in value:
            new = dict(value)
            new[key] = _map_at(value[key], rest, fn)
            return new
        return value
    if isinstance(value, list) and isinstance(head, int) and 0 <= head < len(value):
        new_list = list(value)
        new_list[head] = _map_at(value[head], rest, fn)
        return new_list
    return value


def _expand_all(props: Mapping[str, Any], paths: tuple[str, ...]) -> tuple[str, ...]:
    """``*`` (every property: a group member whose resource_def reads a secret) as the top-level keys."""
    if "*" not in paths:
        return paths
    return tuple(dict.fromkeys([*(p for p in paths if p != "*"), *(str(k) for k in props)]))


def _mask_paths(props: dict[str, Any], paths: tuple[str, ...], key: bytes | None) -> dict[str, Any]:
    out: Any = props
    for p in _expand_all(props, paths):
        out = _map_at(out, parse_path(p), lambda v: v if secrets.is_masked(v) else secrets.mask(v, key))
    return dict(out)


def _unmask_paths(props: dict[str, Any], paths: tuple[str, ...], key: bytes | None) -> dict[str, Any]:
    if key is None:
        return props
    out: Any = props
    for p in _expand_all(props, paths):
        out = _map_at(out, parse_path(p), lambda v: secrets.unmask(v, key))
    return dict(out)


def parameter_to_dict(name: str, rec: ParameterRecord, key: bytes | None) -> dict[str, Any]:
    if not rec.hidden:
        return {"hidden": False, "value": plain(rec.value, f"parameters.{name}")}
    out: dict[str, Any] = {"hidden": True}
    if rec.value is not None:
        out["digest"] = secrets.digest(plain(rec.value, f"parameters.{name}"))
        if key is not None:
            out["encrypted"] = secrets.encrypt(rec.value, key)
    else:
        if rec.digest is not None:
            out["digest"] = rec.digest
        if rec.encrypted is not None:
            out["encrypted"] = rec.encrypted
    return out


def hide_parameter(value: Any, hidden: bool, key: bytes | None = None) -> ParameterRecord:
    """The record to keep for a parameter: the value itself, or for a hidden one its digest (+ ciphertext)."""
    if not hidden:
        return ParameterRecord(value=value)
    return ParameterRecord(
        value=None,
        hidden=True,
        digest=secrets.digest(plain(value)),
        encrypted=secrets.encrypt(value, key) if key is not None else None,
    )


def resource_to_dict(rs: ResourceState, key: bytes | None) -> dict[str, Any]:
    where = f"resources.{rs.address}"
    props = plain(rs.properties, where + ".properties")
    if rs.sensitive_paths:
        props = _mask_paths(props, rs.sensitive_paths, key)
    out: dict[str, Any] = {
        "address": rs.address,
        "type": rs.type,
        "physical_id": rs.physical_id,
        "status": rs.status,
        "status_reason": rs.status_reason,
        "properties": props,
        "attributes": _attributes(
            rs.attributes, _secret_attrs(rs, rs.attributes), key, where + ".attributes"
        ),
        "dependencies": list(rs.dependencies),
        "deletion_policy": rs.deletion_policy,
        "created_at": rs.created_at,
        "updated_at": rs.updated_at,
        "sensitive_paths": list(rs.sensitive_paths),
        "deposed": [
            {
                "physical_id": d.physical_id,
                "properties": _mask_paths(plain(d.properties, where + ".deposed"), _deposed_paths(rs, d), key)
                if rs.sensitive_paths or d.sensitive_paths
                else plain(d.properties, where + ".deposed"),
                "attributes": _attributes(
                    d.attributes, _deposed_secret_attrs(rs, d), key, where + ".deposed"
                ),
                "status": d.status,
                "type": d.type or rs.type,
                "deletion_policy": d.deletion_policy,
                **({"sensitive_paths": list(d.sensitive_paths)} if d.sensitive_paths else {}),
                **({"sensitive_attributes": list(d.sensitive_attributes)} if d.sensitive_attributes else {}),
            }
            for d in rs.deposed
        ],
        "metadata": plain(rs.metadata, where + ".metadata"),
    }
    # written only when set, so documents without them keep their exact form
    if rs.sensitive_attributes:
        out["sensitive_attributes"] = list(rs.sensitive_attributes)
    if rs.reference_attribute is not None:
        out["reference_attribute"] = rs.reference_attribute
    if rs.external_id is not None:
        out["external_id"] = rs.external_id
    if rs.generated_name is not None:
        out["generated_name"] = rs.generated_name
    if rs.declared_type is not None:
        out["declared_type"] = rs.declared_type
    return out


def _secret_attrs(rs: ResourceState, attrs: Mapping[str, Any]) -> tuple[str, ...]:
    """Top-level attribute names stored masked (:func:`hotc.state.secrets.secret_attributes`)."""
    return secrets.secret_attributes(rs.sensitive_attributes, rs.sensitive_paths, attrs)


def _deposed_paths(rs: ResourceState, d: DeposedInstance) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*rs.sensitive_paths, *d.sensitive_paths)))


def _deposed_secret_attrs(rs: ResourceState, d: DeposedInstance) -> tuple[str, ...]:
    """An old instance's secret attributes: its own (as recorded when it was deposed) and the resource's."""
    return secrets.secret_attributes(
        (*rs.sensitive_attributes, *d.sensitive_attributes), _deposed_paths(rs, d), d.attributes
    )


def _attributes(
    attrs: Mapping[str, Any], names: tuple[str, ...], key: bytes | None, where: str
) -> dict[str, Any]:
    out: dict[str, Any] = plain(attrs, where)
    if not names:
        return out
    wanted = set(names)
    return {
        k: (v if secrets.is_masked(v) or k not in wanted else secrets.mask(v, key)) for k, v in out.items()
    }


def _unmask_attributes(attrs: dict[str, Any], names: tuple[str, ...], key: bytes | None) -> dict[str, Any]:
    if key is None or not names:
        return attrs
    wanted = set(names)
    return {k: (secrets.unmask(v, key) if k in wanted else v) for k, v in attrs.items()}


def output_to_dict(name: str, out: OutputState, key: bytes | None) -> dict[str, Any]:
    value = plain(out.value, f"outputs.{name}")
    if out.sensitive and value is not None and not secrets.is_masked(value):
        value = secrets.mask(value, key)
    return {"value": value, "description": out.description, "sensitive": out.sensitive, "error": out.error}


def group_to_dict(g: GroupState) -> dict[str, Any]:
    return {
        "size": g.size,
        "properties_digest": g.properties_digest,
        "cooldown_end": g.cooldown_end,
        "decisions": [
            {
                "time": d.time,
                "policy": d.policy,
                "signal": d.signal,
                "accepted": d.accepted,
                "before": d.before,
                "after": d.after,
                "reason": d.reason,
            }
            for d in g.decisions
        ],
    }


def stored_template(state: StackState, key: bytes | None) -> dict[str, Any]:
    """The template record as stored: the hidden values its environment files hold (the template's own
    hidden parameters, and any the record lists under ``hidden_parameters``: a nested template's) taken out
    of their text (:mod:`hotc.state.hidden_env`), each kept as a digest and, with a key, its ciphertext."""
    record = state.template
    if not record or hidden_env.RECORD_KEY in record:
        return dict(record)
    names = {n for n, p in state.parameters.items() if p.hidden} | set(record.get("hidden_parameters") or ())

    def seal(hv: hidden_env.HiddenValue) -> dict[str, Any]:
        out: dict[str, Any] = {"digest": secrets.digest(hv.value)}
        if key is not None:
            out["encrypted"] = secrets.encrypt(hv.text, key)
        return out

    return hidden_env.scrub_record(record, names, seal)


def _top_to_dict(state: StackState, key: bytes | None) -> dict[str, Any]:
    """Everything of ``state``'s JSON form but its resources."""
    top = _top_fields(state, key)
    if state.protected:  # absent when empty: a document without marks is written as before they existed
        top["protected"] = {
            a: {"by": m.by, "at": m.at, "reason": m.reason} for a, m in sorted(state.protected.items())
        }
    order = list(state.outputs)
    if order != sorted(order):  # the template's order, which the key-sorted "outputs" object loses
        top["output_order"] = order  # absent when it is the sorted order (older documents, one output)
    if state.accepted_drift:  # absent when empty, as the protection marks
        top["accepted_drift"] = {
            k: {"reason": e.reason, "until": e.until, "by": e.by, "at": e.at}
            for k, e in sorted(state.accepted_drift.items())
        }
    if state.disable_rollback is not None:  # absent unless an apply set it
        top["disable_rollback"] = state.disable_rollback
    return top


def _top_fields(state: StackState, key: bytes | None) -> dict[str, Any]:
    return {
        "groups": {a: group_to_dict(g) for a, g in sorted(state.groups.items())},
        "format_version": FORMAT_VERSION,
        "lineage": state.lineage,
        "serial": state.serial,
        "stack_name": state.stack_name,
        "status": state.status,
        "status_reason": state.status_reason,
        "template_digest": state.template_digest,
        "template": plain(stored_template(state, key), "template"),
        "parameters": {n: parameter_to_dict(n, p, key) for n, p in sorted(state.parameters.items())},
        "outputs": {n: output_to_dict(n, o, key) for n, o in sorted(state.outputs.items())},
        "created_at": state.created_at,
        "updated_at": state.updated_at,
    }


def _share(value: Any, shared: dict[str, str]) -> Any:
    """``value`` with each long text replaced by a reference to its entry in ``shared`` (added there); masked
    markers are left whole."""
    t = type(value)
    if t is str:
        if len(value) < SHARED_MIN:
            return value
        digest = "sha256:" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        shared[digest] = value
        return {SHARED_KEY: digest}
    if t is dict:
        if secrets.MASK_KEY in value:
            return value
        return {k: _share(x, shared) for k, x in value.items()}
    if t is list:
        return [_share(x, shared) for x in value]
    return value


def _inline(value: Any, shared: Mapping[str, str]) -> Any:
    """``value`` with every reference to a shared text replaced by the text."""
    t = type(value)
    if t is dict:
        if len(value) == 1 and SHARED_KEY in value and isinstance(value[SHARED_KEY], str):
            text = shared.get(value[SHARED_KEY])
            if text is not None:
                return text
        return {k: _inline(x, shared) for k, x in value.items()}
    if t is list:
        return [_inline(x, shared) for x in value]
    return value


def state_to_dict(state: StackState, key: bytes | None = None) -> dict[str, Any]:
    """The JSON form of ``state`` (hidden values masked; long texts shared, as :func:`dumps` writes them)."""
    d = _top_to_dict(state, key)
    shared: dict[str, str] = {}
    d["resources"] = {a: _share(resource_to_dict(r, key), shared) for a, r in sorted(state.resources.items())}
    if shared:
        d["shared"] = dict(sorted(shared.items()))
        d["format_version"] = SHARED_FORMAT_VERSION
    out: dict[str, Any] = _fields_sorted(d)
    return out


# Encoded forms of one ResourceState, kept on the (frozen, never mutated) instance itself: a state write
# re-encodes only the resources that changed since the last write, not the whole document. A changed
# resource is a new instance (``dataclasses.replace``), which starts without a cache.
_CACHE_ATTR = "_hotc_codec_cache"
# not key-sorted: a value keeps the order of its maps (templates observe it: a map's JSON text, yaql's items());
# hotc's own fields are put in key order by _fields_sorted before encoding
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
#: fields whose content is a template's value (kept in its own order)
_VALUE_FIELDS = frozenset({"value"})
#: fields that map names to template values (the names in key order, each value in its own order)
_VALUE_MAPS = frozenset({"properties", "attributes", "metadata"})


def _fields_sorted(value: Any, keep: bool = False) -> Any:
    """``value`` with hotc's own fields in key order (as the document has always been written) and the
    template's values in their own order (``keep``)."""
    t = type(value)
    if t is dict:
        if keep and secrets.MASK_KEY not in value:
            return {k: _fields_sorted(x, True) for k, x in value.items()}
        return {k: _field(k, value[k]) for k in sorted(value)}
    if t is list:
        return [_fields_sorted(x, keep) for x in value]
    return value


def _field(name: str, value: Any) -> Any:
    if name in _VALUE_FIELDS:
        return _fields_sorted(value, True)
    if name in _VALUE_MAPS:
        return _value_map_sorted(value)
    return _fields_sorted(value)


def _value_map_sorted(value: Any) -> Any:
    if type(value) is dict and secrets.MASK_KEY not in value:
        return {k: _fields_sorted(value[k], True) for k in sorted(value)}
    return _fields_sorted(value)


class _Encoded:
    __slots__ = ("key", "doc", "shared", "text", "_cmp", "_member")

    def __init__(self, key: bytes | None, doc: dict[str, Any]) -> None:
        self.key = key
        self.shared: dict[str, str] = {}
        doc = _fields_sorted(_share(doc, self.shared))
        self.doc = doc
        self.text = _ENCODER.encode(doc)
        self._cmp: Any = None
        self._member: tuple[str, str] | None = None

    def member(self, addr: str) -> str:
        """``"ADDR":{...}``, the resource as a member of the document's ``resources`` object."""
        m = self._member
        if m is None or m[0] != addr:
            m = self._member = (addr, _ENCODER.encode(addr) + ":" + self.text)
        return m[1]

    @property
    def cmp(self) -> Any:
        """The form compared by :func:`content_changed` (ciphertext stripped)."""
        if self._cmp is None:
            self._cmp = _strip_ciphertext(self.doc)
        return self._cmp


def _cached(rs: ResourceState, key: bytes | None) -> _Encoded:
    enc: _Encoded | None = getattr(rs, _CACHE_ATTR, None)
    if enc is None or enc.key != key:
        enc = _Encoded(key, resource_to_dict(rs, key))
        object.__setattr__(rs, _CACHE_ATTR, enc)  # frozen dataclass: a cache, not a field (eq/repr ignore it)
    return enc


def _compare_form(rs: ResourceState) -> Any:
    """The comparable form of one resource, reusing the cache of whatever key it was last encoded with
    (masked markers compare by digest, so the key does not change the comparable form)."""
    enc: _Encoded | None = getattr(rs, _CACHE_ATTR, None)
    if enc is None:
        enc = _cached(rs, None)
    return enc.cmp


def dumps(state: StackState, key: bytes | None = None) -> bytes:
    """The bytes stored for ``state``: compact, key-sorted, newline-terminated UTF-8 JSON.

    Each resource's encoded text is cached on its instance, so a write after one resource changed encodes
    that resource and the document's top level only."""
    top = _top_to_dict(state, key)
    members: list[str] = []
    shared: dict[str, str] = {}
    for addr, rs in sorted(state.resources.items()):
        enc = _cached(rs, key)
        members.append(enc.member(addr))
        shared.update(enc.shared)
    if shared:  # each long text once, for every resource that holds it
        top["shared"] = shared
        top["format_version"] = SHARED_FORMAT_VERSION
    resources = ",".join(members)
    parts = []
    for name in sorted([*top, "resources"]):
        value = "{" + resources + "}" if name == "resources" else _ENCODER.encode(_field(name, top[name]))
        parts.append(_ENCODER.encode(name) + ":" + value)
    return ("{" + ",".join(parts) + "}\n").encode()


# ---------------------------------------------------------------------------------------------- reading


def _bad(source: str, what: str) -> StateFormatError:
    return StateFormatError(
        f"{source}: error: not a valid hotc state document: {what}. It was left untouched; fix it or restore "
        "a previous version (`hotc state history`, or the .backup file of a local state) before going on."
    )


def _get(d: Mapping[str, Any], name: str, kinds: Any, source: str, where: str, default: Any = ...) -> Any:
    if name not in d:
        if default is ...:
            raise _bad(source, f"{where}: missing field '{name}'")
        return default
    v = d[name]
    if not isinstance(v, kinds) or (isinstance(v, bool) and bool not in _as_tuple(kinds)):
        raise _bad(source, f"{where}.{name}: expected {_kind_name(kinds)}, found {type(v).__name__}")
    return v


def _as_tuple(kinds: Any) -> tuple[Any, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _kind_name(kinds: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "an integer", bool: "a boolean"}
    return " or ".join(names.get(k, "null" if k is type(None) else k.__name__) for k in _as_tuple(kinds))


_NULL = type(None)


DELETION_POLICIES = ("Delete", "Retain", "Snapshot")

# Format 1 kept a deposed instance's type and policy as keys inside its attributes.
_V1_TYPE, _V1_POLICY, _V1_RETAIN = "hotc:type", "hotc:deletion_policy", "hotc:retain"


def _deposed_from_v1(dd: dict[str, Any], source: str, where: str) -> dict[str, Any]:
    """A format-1 deposed entry in the format-2 form: ``hotc:type`` becomes ``type``, ``hotc:retain`` /
    ``hotc:deletion_policy`` become ``deletion_policy``; the keys leave the attributes."""
    attrs = _get(dd, "attributes", dict, source, where, {})
    if not any(k in attrs for k in (_V1_TYPE, _V1_POLICY, _V1_RETAIN)):
        return dd
    out = dict(dd)
    rest = {k: v for k, v in attrs.items() if k not in (_V1_TYPE, _V1_POLICY, _V1_RETAIN)}
    out["attributes"] = rest
    if isinstance(attrs.get(_V1_TYPE), str):
        out["type"] = attrs[_V1_TYPE]
    policy = attrs.get(_V1_POLICY)
    if attrs.get(_V1_RETAIN):
        policy = "Retain"
    if isinstance(policy, str):
        out["deletion_policy"] = policy.capitalize()
    return out


def resource_from_dict(
    addr: str, d: Any, source: str, key: bytes | None, version: int = FORMAT_VERSION
) -> ResourceState:
    where = f"resources.{addr}"
    if not isinstance(d, dict):
        raise _bad(source, f"{where}: expected an object")
    paths = tuple(_get(d, "sensitive_paths", list, source, where, []))
    stored_attrs = _get(d, "attributes", dict, source, where, {})
    attr_paths = tuple(_get(d, "sensitive_attributes", list, source, where, []))
    # a resource with a sensitive property has secret attributes (also in documents written before that rule)
    secret_attrs = secrets.secret_attributes(attr_paths, paths, stored_attrs)
    rtype = _get(d, "type", str, source, where)
    deposed = []
    for i, dd in enumerate(_get(d, "deposed", list, source, where, [])):
        w = f"{where}.deposed[{i}]"
        if not isinstance(dd, dict):
            raise _bad(source, f"{w}: expected an object")
        if version < 2:
            dd = _deposed_from_v1(dd, source, w)
        dpol = _get(dd, "deletion_policy", str, source, w, "Delete")
        if dpol not in DELETION_POLICIES:
            raise _bad(source, f"{w}.deletion_policy: {dpol!r} is not one of {', '.join(DELETION_POLICIES)}")
        d_paths = tuple(_get(dd, "sensitive_paths", list, source, w, []))
        d_attrs = tuple(_get(dd, "sensitive_attributes", list, source, w, []))
        all_paths = tuple(dict.fromkeys((*paths, *d_paths)))
        dd_attrs = _get(dd, "attributes", dict, source, w, {})
        deposed.append(
            DeposedInstance(
                physical_id=_get(dd, "physical_id", str, source, w),
                properties=_unmask_paths(_get(dd, "properties", dict, source, w, {}), all_paths, key),
                attributes=_unmask_attributes(
                    dd_attrs, secrets.secret_attributes((*attr_paths, *d_attrs), all_paths, dd_attrs), key
                ),
                status=_get(dd, "status", str, source, w, "REPLACED"),
                type=_get(dd, "type", str, source, w, rtype),
                deletion_policy=dpol,
                sensitive_paths=d_paths,
                sensitive_attributes=d_attrs,
            )
        )
    return ResourceState(
        address=addr,
        type=rtype,
        physical_id=_get(d, "physical_id", (str, _NULL), source, where, None),
        status=_get(d, "status", str, source, where),
        properties=_unmask_paths(_get(d, "properties", dict, source, where, {}), paths, key),
        attributes=_unmask_attributes(stored_attrs, secret_attrs, key),
        dependencies=tuple(_get(d, "dependencies", list, source, where, [])),
        deletion_policy=_get(d, "deletion_policy", str, source, where, "Delete"),
        status_reason=_get(d, "status_reason", str, source, where, ""),
        created_at=_get(d, "created_at", (str, _NULL), source, where, None),
        updated_at=_get(d, "updated_at", (str, _NULL), source, where, None),
        sensitive_paths=paths,
        deposed=tuple(deposed),
        metadata=_get(d, "metadata", dict, source, where, {}),
        sensitive_attributes=attr_paths,
        reference_attribute=_get(d, "reference_attribute", (str, _NULL), source, where, None),
        external_id=_get(d, "external_id", (str, _NULL), source, where, None),
        generated_name=_get(d, "generated_name", (str, _NULL), source, where, None),
        declared_type=_get(d, "declared_type", (str, _NULL), source, where, None),
    )


def parameter_from_dict(name: str, d: Any, source: str, key: bytes | None) -> ParameterRecord:
    where = f"parameters.{name}"
    if not isinstance(d, dict):
        raise _bad(source, f"{where}: expected an object")
    hidden = _get(d, "hidden", bool, source, where, False)
    if not hidden:
        return ParameterRecord(value=d.get("value"))
    enc = _get(d, "encrypted", (str, _NULL), source, where, None)
    return ParameterRecord(
        value=None,
        hidden=True,
        digest=_get(d, "digest", (str, _NULL), source, where, None),
        encrypted=enc,
    )


def reveal_parameter(rec: ParameterRecord, key: bytes | None) -> Any:
    """The clear value of a parameter record: its value, or a hidden one decrypted (None without a key)."""
    if not rec.hidden:
        return rec.value
    if rec.value is not None:
        return rec.value
    if rec.encrypted is not None and key is not None:
        return secrets.decrypt(rec.encrypted, key)
    return None


def output_from_dict(name: str, d: Any, source: str, key: bytes | None) -> OutputState:
    where = f"outputs.{name}"
    if not isinstance(d, dict):
        raise _bad(source, f"{where}: expected an object")
    return OutputState(
        value=secrets.unmask(d.get("value"), key),
        description=_get(d, "description", str, source, where, ""),
        sensitive=_get(d, "sensitive", bool, source, where, False),
        error=_get(d, "error", (str, _NULL), source, where, None),
    )


def group_from_dict(addr: str, d: Any, source: str) -> GroupState:
    where = f"groups.{addr}"
    if not isinstance(d, dict):
        raise _bad(source, f"{where}: expected an object")
    size = _get(d, "size", int, source, where)
    if size < 0:
        raise _bad(source, f"{where}.size is negative")
    decisions = []
    for i, dd in enumerate(_get(d, "decisions", list, source, where, [])):
        w = f"{where}.decisions[{i}]"
        if not isinstance(dd, dict):
            raise _bad(source, f"{w}: expected an object")
        decisions.append(
            ScalingDecision(
                time=_get(dd, "time", str, source, w),
                policy=_get(dd, "policy", str, source, w),
                signal=_get(dd, "signal", str, source, w, ""),
                accepted=_get(dd, "accepted", bool, source, w),
                before=_get(dd, "before", int, source, w),
                after=_get(dd, "after", int, source, w),
                reason=_get(dd, "reason", str, source, w, ""),
            )
        )
    return GroupState(
        size=size,
        properties_digest=_get(d, "properties_digest", (str, _NULL), source, where, None),
        cooldown_end=_get(d, "cooldown_end", (str, _NULL), source, where, None),
        decisions=tuple(decisions),
    )


def state_from_dict(d: Any, source: str = "state", key: bytes | None = None) -> StackState:
    if not isinstance(d, dict):
        raise _bad(source, "the document is not a JSON object")
    version = d.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _bad(source, "missing or non-integer 'format_version'")
    if version > SHARED_FORMAT_VERSION:
        raise StateFormatError(
            f"{source}: error: state format version {version} is newer than this hotc understands "
            f"(up to {SHARED_FORMAT_VERSION}); it was written by a newer hotc. Upgrade hotc to use this state; "
            "it was left untouched."
        )
    if version < 1:
        raise _bad(source, f"unknown format_version {version}")
    where = "(top)"
    serial = _get(d, "serial", int, source, where)
    if serial < 0:
        raise _bad(source, "serial is negative")
    shared = _shared_from_dict(d, source)
    return StackState(
        lineage=_get(d, "lineage", str, source, where),
        serial=serial,
        stack_name=_get(d, "stack_name", str, source, where),
        format_version=FORMAT_VERSION,
        status=_get(d, "status", str, source, where, "INIT_COMPLETE"),
        status_reason=_get(d, "status_reason", str, source, where, ""),
        template_digest=_get(d, "template_digest", (str, _NULL), source, where, None),
        template=_get(d, "template", dict, source, where, {}),
        parameters={
            n: parameter_from_dict(n, p, source, key)
            for n, p in _get(d, "parameters", dict, source, where, {}).items()
        },
        resources={
            a: resource_from_dict(a, _inline(r, shared) if shared else r, source, key, version)
            for a, r in _get(d, "resources", dict, source, where, {}).items()
        },
        outputs=_outputs_from_dict(d, source, key),
        created_at=_get(d, "created_at", (str, _NULL), source, where, None),
        updated_at=_get(d, "updated_at", (str, _NULL), source, where, None),
        # format 3 (a format-2 document has no groups)
        groups={
            a: group_from_dict(a, g, source) for a, g in _get(d, "groups", dict, source, where, {}).items()
        },
        protected={
            a: _mark_from_dict(a, m, source) for a, m in _get(d, "protected", dict, source, where, {}).items()
        },
        accepted_drift={
            k: _accepted_from_dict(k, e, source)
            for k, e in _get(d, "accepted_drift", dict, source, where, {}).items()
        },
        disable_rollback=_get(d, "disable_rollback", (bool, _NULL), source, where, None),
    )


def _shared_from_dict(d: dict[str, Any], source: str) -> dict[str, str]:
    """The document's shared texts, each checked against its digest (a changed text is a corrupt state)."""
    shared: dict[str, str] = _get(d, "shared", dict, source, "(top)", {})
    for digest, text in shared.items():
        if not isinstance(text, str):
            raise _bad(source, f"shared.{digest}: expected a string")
        actual = "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        if actual != digest:
            raise _bad(source, f"shared.{digest}: the text does not match its digest (the state was altered)")
    return shared


def _outputs_from_dict(d: dict[str, Any], source: str, key: bytes | None) -> dict[str, OutputState]:
    """The outputs in the template's order (``output_order``; without it, the document's sorted order)."""
    stored = _get(d, "outputs", dict, source, "(top)", {})
    order = _get(d, "output_order", list, source, "(top)", [])
    if not all(isinstance(n, str) for n in order):
        raise _bad(source, "output_order: expected a list of output names")
    listed = [n for n in dict.fromkeys(order) if n in stored]
    names = listed + [n for n in stored if n not in set(listed)]
    return {n: output_from_dict(n, stored[n], source, key) for n in names}


def _accepted_from_dict(key: str, d: Any, source: str) -> AcceptedDrift:
    where = f"accepted_drift.{key}"
    if not isinstance(d, dict):
        raise _bad(source, f"{where}: expected an object, found {type(d).__name__}")
    return AcceptedDrift(
        reason=_get(d, "reason", str, source, where),
        until=_get(d, "until", str, source, where),
        by=_get(d, "by", str, source, where, ""),
        at=_get(d, "at", str, source, where, ""),
    )


def _mark_from_dict(addr: str, d: Any, source: str) -> ProtectMark:
    where = f"protected.{addr or '(stack)'}"
    if not isinstance(d, dict):
        raise _bad(source, f"{where}: expected an object, found {type(d).__name__}")
    return ProtectMark(
        by=_get(d, "by", str, source, where),
        at=_get(d, "at", str, source, where),
        reason=_get(d, "reason", str, source, where, ""),
    )


def loads(data: bytes | str, source: str = "state", key: bytes | None = None) -> StackState:
    """Parse stored bytes; a corrupt, truncated or newer document gives a :class:`StateFormatError`."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _bad(source, f"not UTF-8 text (byte {exc.start})") from None
    else:
        text = data
    if not text.strip():
        raise _bad(source, "the document is empty")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (the document looks truncated)" if not text.rstrip().endswith("}") else ""
        raise _bad(source, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{hint}") from None
    return state_from_dict(doc, source, key)


# ---------------------------------------------------------------------------------------------- comparing


_VOLATILE = ("serial", "updated_at", "format_version")


def comparable(state: StackState) -> dict[str, Any]:
    """The JSON form without the fields a write changes by itself (serial, updated_at, format_version).

    Hidden values compare by digest, so the same secret encrypted twice is not a change."""
    d = _comparable_top(state)
    d["resources"] = {a: _compare_form(r) for a, r in sorted(state.resources.items())}
    return d


def _comparable_top(state: StackState) -> dict[str, Any]:
    d = _top_to_dict(state, None)
    # a record whose environment files still hold hidden values in clear differs from its sealed form
    d["template_sealed"] = hidden_env.RECORD_KEY in state.template
    for k in _VOLATILE:
        d.pop(k, None)
    for p in d["parameters"].values():
        p.pop("encrypted", None)
    stripped: dict[str, Any] = _strip_ciphertext(d)
    return stripped


def _strip_ciphertext(v: Any) -> Any:
    t = type(v)
    if t is dict:
        if secrets.MASK_KEY in v and "encrypted" in v:
            return {secrets.MASK_KEY: v[secrets.MASK_KEY]}
        return {k: _strip_ciphertext(x) for k, x in v.items()}
    if t is list:
        return [_strip_ciphertext(x) for x in v]
    return v


def content_changed(old: StackState | None, new: StackState) -> bool:
    """True when writing ``new`` over ``old`` would change anything but serial/updated_at.

    Resources that are the same instance in both are not compared; the others compare by their cached
    comparable forms."""
    if old is None:
        return True
    if old.resources.keys() != new.resources.keys():
        return True
    for addr, rs in new.resources.items():
        before = old.resources[addr]
        if before is not rs and _compare_form(before) != _compare_form(rs):
            return True
    return _comparable_top(old) != _comparable_top(new)


def next_version(old: StackState | None, new: StackState, now: str) -> StackState:
    """``new`` as it should be stored over ``old``: same lineage, serial one above ``old``'s, stamped ``now``."""
    if old is None:
        return replace(new, serial=1, updated_at=now, created_at=new.created_at or now)
    return replace(
        new, serial=old.serial + 1, updated_at=now, created_at=new.created_at or old.created_at or now
    )
