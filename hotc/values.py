"""Values that flow between the front end, the planner and the applier.

Template values are plain JSON-like Python data (str, int, float, bool, None, list, dict). A value that is
not known until apply (a physical id, an address) is an :class:`Unknown` that records what it waits on.
A value derived from a hidden parameter is wrapped in :class:`Sensitive` only at rendering edges; the
planner tracks sensitivity by paths, so evaluation stays plain.
"""

from __future__ import annotations

import json
from typing import Any

from hotc.model import model

#: "no value given" (a parameter or property without a default): falsy, and printed as MISSING. The parser
#: re-exports it (hotc.parser.api.MISSING is this object).
MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "MISSING", "__bool__": lambda self: False})()


@model(slots=True)
class WaitsOn:
    """A value an Unknown needs: a resource address and, for get_attr, the attribute path.

    ``attribute`` is None for ``get_resource`` (the physical id)."""

    address: str
    attribute: tuple[str | int, ...] | None = None

    def __str__(self) -> str:
        if self.attribute is None:
            return f"{self.address}.id"
        return f"{self.address}." + ".".join(str(a) for a in self.attribute)


@model(slots=True)
class Unknown:
    """A value known only after apply. Functions over an Unknown give an Unknown (merging ``waits_on``)
    unless their result does not depend on it."""

    waits_on: frozenset[WaitsOn] = frozenset()

    def __repr__(self) -> str:
        inner = ", ".join(sorted(str(w) for w in self.waits_on))
        return f"Unknown({inner})"

    @staticmethod
    def of(address: str, attribute: tuple[str | int, ...] | None = None) -> Unknown:
        return Unknown(frozenset({WaitsOn(address, attribute)}))

    def merge(self, other: Unknown) -> Unknown:
        return Unknown(self.waits_on | other.waits_on)


_PLAIN = frozenset({str, int, float, bool, type(None)})


def contains_unknown(value: Any) -> bool:
    """True when ``value`` is or holds an :class:`Unknown` anywhere inside lists/dicts."""
    if type(value) in _PLAIN:
        return False  # the common case, without the isinstance chain
    if isinstance(value, Unknown):
        return True
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(contains_unknown(v) for v in value)
    return False


def collect_unknowns(value: Any) -> Unknown | None:
    """All Unknowns inside ``value`` merged into one, or None when the value is fully known."""
    found: Unknown | None = None
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Unknown):
            found = v if found is None else found.merge(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return found


def json_key(key: Any) -> str:
    """A map key as JSON text writes it, as Heat's stored values have it: ``None`` is ``"null"``, ``True``
    ``"true"``, ``1.0`` ``"1.0"`` (yaql can build maps with such keys)."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return json.dumps(key)
    return str(key)
