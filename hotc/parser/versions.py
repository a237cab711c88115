"""``heat_template_version`` values and the per-version structure facts of HOT.

Owned by the expression front end (fe-expr); the structure code (sections, resources, outputs, parameters)
reads its per-version rules from here so that one module states them all.

- :data:`VERSIONS`: canonical dates, oldest first; :data:`ALIASES`: release names (``newton`` … ``wallaby``).
- :func:`parse_version` turns what a template wrote into a :class:`~hotc.parser.ir.TemplateVersion`
  (or None), :func:`version_error_message` explains a bad value and lists the valid ones.
- :func:`allowed_sections`, :func:`allowed_resource_keys`, :func:`allowed_output_keys`,
  :func:`allowed_parameter_keys`, :func:`allowed_constraint_kinds`, :func:`allowed_deletion_policies`:
  the keys each part of a template may use in that version (heat-hot.md §1.2; Heat's
  ``heat/engine/hot/template.py`` and ``hot/parameters.py``).
- :func:`at_least` compares versions (``at_least(v, "2016-10-14")``).

Which *function* each version allows is not here: it is part of the grammar (``grammar/functions.toml``,
read by :mod:`hotc.parser.grammar`).
"""

from __future__ import annotations

from hotc.parser.ir import TemplateVersion

#: Every HOT version Heat knows, oldest first (setup.cfg ``heat.templates`` entry points).
VERSIONS: tuple[str, ...] = (
    "2013-05-23",
    "2014-10-16",
    "2015-04-30",
    "2015-10-15",
    "2016-04-08",
    "2016-10-14",
    "2017-02-24",
    "2017-09-01",
    "2018-03-02",
    "2018-08-31",
    "2021-04-16",
)

#: Release-name aliases accepted as ``heat_template_version`` values.
ALIASES: dict[str, str] = {
    "newton": "2016-10-14",
    "ocata": "2017-02-24",
    "pike": "2017-09-01",
    "queens": "2018-03-02",
    "rocky": "2018-08-31",
    "wallaby": "2021-04-16",
}

#: The key that names a HOT template's version.
VERSION_KEY = "heat_template_version"

#: Keys that name a template format Heat knows but hotc does not handle (CFN / Heat-CFN templates).
OTHER_FORMAT_KEYS: tuple[str, ...] = ("AWSTemplateFormatVersion", "HeatTemplateFormatVersion")

_INDEX = {d: i for i, d in enumerate(VERSIONS)}

LATEST: str = VERSIONS[-1]


def parse_version(written: object) -> TemplateVersion | None:
    """The version a ``heat_template_version`` value names, or None when it is not a valid one.

    Accepts canonical dates and release aliases (``rocky``); the value must be a string, as Heat
    requires (YAML dates are kept as strings by the loader)."""
    if not isinstance(written, str):
        return None
    w = written.strip()
    if w in _INDEX:
        return TemplateVersion(date=w, written=written)
    if w in ALIASES:
        return TemplateVersion(date=ALIASES[w], written=written)
    return None


def valid_version_names() -> list[str]:
    """Every accepted value, in Heat's style: dates, and aliases next to their date."""
    rev = {d: a for a, d in ALIASES.items()}
    return [f"{d} ({rev[d]})" if d in rev else d for d in VERSIONS]


def version_error_message(written: object) -> str:
    """The message for an unknown ``heat_template_version`` value, listing the valid ones."""
    shown = repr(written) if not isinstance(written, str) else f'"{written}"'
    return f"unknown heat_template_version {shown}; valid versions are: " + ", ".join(valid_version_names())


def index(version: TemplateVersion | str) -> int:
    """Position of a version in :data:`VERSIONS` (for ordering)."""
    date = version.date if isinstance(version, TemplateVersion) else ALIASES.get(version, version)
    return _INDEX[date]


def at_least(version: TemplateVersion | str, date: str) -> bool:
    """True when ``version`` is ``date`` or newer."""
    return index(version) >= _INDEX[ALIASES.get(date, date)]


def version_named(date_or_alias: str) -> TemplateVersion:
    """A TemplateVersion for a known date or alias (for tests and tools); raises ValueError otherwise."""
    v = parse_version(date_or_alias)
    if v is None:
        raise ValueError(version_error_message(date_or_alias))
    return v


# ------------------------------------------------------------------------------------ per-version structure

_SECTIONS_BASE = (
    "heat_template_version",
    "description",
    "parameter_groups",
    "parameters",
    "resources",
    "outputs",
)
_RESOURCE_KEYS_BASE = (
    "type",
    "properties",
    "metadata",
    "depends_on",
    "deletion_policy",
    "update_policy",
    "description",
)
_OUTPUT_KEYS_BASE = ("description", "value")
_PARAMETER_KEYS_BASE = (
    "type",
    "description",
    "default",
    "hidden",
    "label",
    "constraints",
    "immutable",
    "schema",  # accepted and ignored by Heat
)
_CONSTRAINTS_BASE = ("length", "range", "allowed_values", "allowed_pattern", "custom_constraint")
_DELETION_POLICIES_BASE = ("Delete", "Retain", "Snapshot")

_NEWTON = "2016-10-14"


def allowed_sections(version: TemplateVersion) -> frozenset[str]:
    """Top-level keys a template of this version may have (any other one is an InvalidTemplateSection).
    ``conditions`` from 2016-10-14."""
    extra = ("conditions",) if at_least(version, _NEWTON) else ()
    return frozenset(_SECTIONS_BASE + extra)


def allowed_resource_keys(version: TemplateVersion) -> frozenset[str]:
    """Keys a resource definition may have. ``condition`` and ``external_id`` from 2016-10-14."""
    extra = ("condition", "external_id") if at_least(version, _NEWTON) else ()
    return frozenset(_RESOURCE_KEYS_BASE + extra)


def allowed_output_keys(version: TemplateVersion) -> frozenset[str]:
    """Keys an output may have (``value`` is required). ``condition`` from 2016-10-14."""
    extra = ("condition",) if at_least(version, _NEWTON) else ()
    return frozenset(_OUTPUT_KEYS_BASE + extra)


def allowed_parameter_keys(version: TemplateVersion) -> frozenset[str]:
    """Keys a parameter definition may have (``type`` is required). ``tags`` from 2018-03-02."""
    extra = ("tags",) if at_least(version, "2018-03-02") else ()
    return frozenset(_PARAMETER_KEYS_BASE + extra)


def allowed_constraint_kinds(version: TemplateVersion) -> frozenset[str]:
    """Parameter constraint kinds. ``modulo`` from 2017-02-24."""
    extra = ("modulo",) if at_least(version, "2017-02-24") else ()
    return frozenset(_CONSTRAINTS_BASE + extra)


def allowed_deletion_policies(version: TemplateVersion) -> frozenset[str]:
    """``deletion_policy`` values. Lower-case spellings from 2016-10-14."""
    extra = tuple(p.lower() for p in _DELETION_POLICIES_BASE) if at_least(version, _NEWTON) else ()
    return frozenset(_DELETION_POLICIES_BASE + extra)


def has_conditions(version: TemplateVersion) -> bool:
    """True when the version has the ``conditions`` section and condition functions (2016-10-14+)."""
    return at_least(version, _NEWTON)


PARAMETER_TYPES: tuple[str, ...] = ("string", "number", "comma_delimited_list", "json", "boolean")

#: Pseudo parameters Heat adds to every stack (``OS::region`` is declared in Heat but never created).
PSEUDO_PARAMETERS: tuple[str, ...] = ("OS::stack_name", "OS::stack_id", "OS::project_id")
