"""Hidden parameter values inside environment files: kept apart from the copies of those files hotc stores.

hotc keeps copies of the environment files a stack was made from: in the state (for ``--existing`` and
``hotc template show``) and in a saved plan (to apply it as it was made). A value of a hidden parameter given
in an environment's ``parameters`` or ``parameter_defaults`` section must not be in those copies in clear, as
a value given with ``--parameter`` is not.

:func:`scrub` replaces each such value, in the file's text, by :data:`MARKER` and returns the values it took
out, each as the exact source text it replaced (so that :func:`refill` gives back the very same file). What
is kept of a value is up to the caller: the state keeps a digest and, with a key, the ciphertext; a saved plan
keeps a salted digest and where the file was. The rest of the file is left byte for byte as written.

Only the two parameter sections of a top-level mapping are read; a file that is not such a mapping, or that
has no hidden value, comes back unchanged.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotc.model import model

MARKER = "(hidden value: kept apart from this copy of the file)"
SECTIONS = ("parameters", "parameter_defaults")
# The record key, in a stored template record or a saved plan's inputs, of the values taken out, per file.
RECORD_KEY = "hidden_values"


@model
class HiddenValue:
    """One value taken out of an environment file: its section, parameter name, exact source text and the
    value that text stands for."""

    section: str
    name: str
    text: str
    value: Any = None


@functools.cache
def _yaml() -> Any:
    """PyYAML, and its safe loader without the timestamp resolver (Heat reads dates as strings too). Imported
    on first use: the state's reader and writer load on every command, most of which never need YAML."""
    # lazy: hotc check must not load yaml (test_startup_imports); most commands never need it
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
        for k, v in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
    }
    return yaml, Loader


def _root(text: str) -> Any:
    """The document's top-level mapping node, or None."""
    yaml, loader = _yaml()
    try:
        node = yaml.compose(text, Loader=loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    return node if isinstance(node, yaml.MappingNode) else None


def _value_nodes(text: str) -> Iterable[tuple[str, str, Any]]:
    """(section, name, value node) for every entry of the parameter sections."""
    yaml, _loader = _yaml()
    root = _root(text)
    if root is None:
        return
    for key_node, sec_node in root.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.value not in SECTIONS:
            continue
        if not isinstance(sec_node, yaml.MappingNode):
            continue
        for name_node, value_node in sec_node.value:
            if isinstance(name_node, yaml.ScalarNode):
                yield str(key_node.value), str(name_node.value), value_node


def _is_marker(node: Any) -> bool:
    return type(node).__name__ == "ScalarNode" and node.value == MARKER


_MARKER_TEXT = '"' + MARKER + '"'


def scrub(text: str, names: Iterable[str]) -> tuple[str, tuple[HiddenValue, ...]]:
    """``text`` with the value of every parameter in ``names`` (in either parameter section) replaced by
    :data:`MARKER`, and the values taken out. A value already replaced stays as it is."""
    wanted = set(names)
    if not wanted or not any(n in text for n in wanted):
        return text, ()
    spans: list[tuple[int, int, HiddenValue]] = []
    for section, name, node in _value_nodes(text):
        if name not in wanted or _is_marker(node):
            continue
        start, end = node.start_mark.index, node.end_mark.index
        raw = text[start:end]
        core = raw.rstrip("\n")  # a block value's span takes in the line break after it: keep it in place
        spans.append((start, start + len(core), HiddenValue(section, name, core)))
    if not spans:
        return text, ()
    yaml, loader = _yaml()
    try:
        doc = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, RecursionError, ValueError):
        doc = None
    spans = [(s, e, _with_value(hv, doc)) for s, e, hv in spans]
    out = text
    for start, end, _hv in sorted(spans, key=lambda s: s[0], reverse=True):
        out = out[:start] + _MARKER_TEXT + out[end:]
    found = tuple(hv for _s, _e, hv in sorted(spans, key=lambda s: s[0]))
    if _root(out) is None:  # an anchor on a hidden value that an alias elsewhere uses: keep none of the file
        return "", found
    return out, found


def _with_value(hv: HiddenValue, doc: Any) -> HiddenValue:
    section = doc.get(hv.section) if isinstance(doc, dict) else None
    value = section.get(hv.name) if isinstance(section, dict) else parsed_value(hv.text)
    return HiddenValue(hv.section, hv.name, hv.text, value)


def markers(text: str) -> tuple[tuple[str, str], ...]:
    """(section, name) of every value :func:`scrub` replaced in ``text``."""
    return tuple((s, n) for s, n, node in _value_nodes(text) if _is_marker(node))


def refill(text: str, values: Callable[[str, str], str | None]) -> str:
    """``text`` with each :data:`MARKER` replaced by ``values(section, name)``: the source text to put back
    (the exact text :func:`scrub` took out, or any YAML form of the value). None leaves the marker."""
    spans: list[tuple[int, int, str]] = []
    for section, name, node in _value_nodes(text):
        if _is_marker(node):
            new = values(section, name)
            if new is not None:
                spans.append((node.start_mark.index, node.end_mark.index, new))
    out = text
    for start, end, new in sorted(spans, key=lambda s: s[0], reverse=True):
        out = out[:start] + new + out[end:]
    return out


def parsed_value(source_text: str) -> Any:
    """The value a piece of YAML source text (as :func:`scrub` took it out) stands for."""
    yaml, loader = _yaml()
    try:
        return yaml.load(source_text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        return source_text


def value_text(value: Any) -> str:
    """``value`` as YAML source text that can stand where :data:`MARKER` was (a flow scalar or collection)."""
    return json.dumps(value, ensure_ascii=False)


def canonical(value: Any) -> str:
    """The text a value is compared by: a scalar as ``--parameter`` would give it, a collection as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def scrub_record(
    record: Mapping[str, Any],
    names: Iterable[str],
    seal: Callable[[HiddenValue], Mapping[str, Any]],
) -> dict[str, Any]:
    """A stored template record (``{"main", "files", "environments", ...}``) with every environment file
    scrubbed; the values taken out go, sealed by ``seal``, under :data:`RECORD_KEY`
    (``{REL: {SECTION: {NAME: sealed}}}``). A record that already has that key is returned as it is."""
    if RECORD_KEY in record or not record.get("files"):
        return dict(record)
    files = dict(record.get("files") or {})
    taken: dict[str, dict[str, dict[str, Any]]] = {}
    wanted = tuple(names)
    for rel in record.get("environments") or ():
        text = files.get(rel)
        if not isinstance(text, str):
            continue
        new, found = scrub(text, wanted)
        if not found:
            continue
        files[rel] = new
        per: dict[str, dict[str, Any]] = {}
        for hv in found:
            per.setdefault(hv.section, {})[hv.name] = dict(seal(hv))
        taken[rel] = per
    if not taken:
        return dict(record)
    return {**record, "files": files, RECORD_KEY: taken}


def hidden_count(record: Mapping[str, Any], names: Iterable[str]) -> int:
    """How many hidden values the environment files of a stored template record hold in clear."""
    if RECORD_KEY in record:
        return 0
    files = record.get("files") or {}
    wanted = tuple(names)
    return sum(
        len(scrub(files[rel], wanted)[1])
        for rel in record.get("environments") or ()
        if isinstance(files.get(rel), str)
    )
