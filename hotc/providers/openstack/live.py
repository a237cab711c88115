"""Live properties: what a driver's ``read`` reports under Heat's property names, normalised the way the planner
compares them, so that a refresh right after an apply finds no drift and a change made outside hotc shows as
exactly the properties it touched.

The rules (:class:`LiveProps`):

- A property is reported when the recorded properties (defaults filled by :class:`common.Defaulted`) hold it:
  what the template never set is the cloud's business (Nova picks the default security group, Neutron a
  MAC address). ``name`` is the exception: a name hotc generated is left out, any other live name is reported,
  so a rename of an unnamed resource is drift too.
- A reference (network, subnet, flavor, security group, ...) is reported as the template gave it (a name or an
  id) when it still names the live object, else as the live object's id: a name resolves to an id once per
  look-up cache (:func:`resolve_id`), never once per resource.
- Scalars the API stores as text (metadata values, extra specs) are reported as the template gave them when
  their text is the same.
- Lists the schema compares as sets are reported item for item as the template gave each item that still
  matches a live one, then the live items that match none.
- What the cloud cannot report (``user_data``, ``admin_pass``, ``value_specs``, update policies) is left out:
  the refresh keeps the recorded value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import ProviderError, is_generated_name
from hotc.providers.shared_lookup import once

Finder = Callable[[ActionContext | None, Any, Any], Any]


def resolve(ctx: ActionContext, conn: Any, kind: str, value: Any, find: Finder) -> Any:
    """The object ``value`` (a name or an id) names, looked up once per cache (``ctx.cache``); None when it
    names nothing (or several things)."""
    if value is None or value == "":
        return None
    cache = getattr(ctx, "cache", None)

    def fetch() -> Any:
        try:
            return find(ctx, conn, value)
        except ProviderError:
            return None

    if cache is None:
        return fetch()
    return once(cache, (kind, str(value)), fetch)


def resolve_id(ctx: ActionContext, conn: Any, kind: str, value: Any, find: Finder) -> str | None:
    """The id of what ``value`` names (see :func:`resolve`), or None."""
    found = resolve(ctx, conn, kind, value, find)
    return None if found is None else str(found.id)


def same_text(given: Any, live: Any) -> bool:
    """Whether two scalars are the same value once the API stored it as text (``1`` and ``"1"``, ``True`` and
    ``"True"``)."""
    if given == live and type(given) is type(live):
        return True
    if given in (None, "") and live in (None, ""):  # nothing, however the API spells it
        return True
    if isinstance(given, bool) or isinstance(live, bool):
        return str(given).lower() == str(live).lower()
    if given is None or live is None:
        return False
    return str(given) == str(live)


def as_given(given: Any, live: Any) -> Any:
    """``given`` when it is ``live`` written as the template wrote it, else ``live``."""
    return given if same_text(given, live) else live


def map_as_given(given: Mapping[str, Any] | None, live: Mapping[str, Any] | None) -> dict[str, Any]:
    """A live map (metadata, extra specs) with each value written as the template wrote it when equal."""
    g = dict(given or {})
    return {k: as_given(g.get(k), v) if k in g else v for k, v in dict(live or {}).items()}


def match_items(
    given: Iterable[Any] | None,
    live: Iterable[Any],
    matches: Callable[[Any, Any], bool],
    render: Callable[[Any], Any],
) -> list[Any]:
    """Each given item that matches a live item (once each), as given; then each unmatched live item rendered."""
    left = list(live)
    out: list[Any] = []
    for item in given or []:
        for i, candidate in enumerate(left):
            if matches(item, candidate):
                out.append(item)
                del left[i]
                break
    out.extend(render(c) for c in left)
    return out


class LiveProps:
    """Collects one resource's live properties (see the module's rules)."""

    def __init__(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> None:
        self.ctx = ctx
        self.conn = conn
        self.props = props
        self.out: dict[str, Any] = {}

    def wants(self, key: str) -> bool:
        return key in self.props

    def put(self, key: str, value: Any) -> None:
        """Report ``value`` for ``key`` if the recorded properties hold it."""
        if key in self.props:
            self.out[key] = value

    def text(self, key: str, value: Any) -> None:
        """A scalar, written as the template wrote it when the same."""
        if key in self.props:
            self.out[key] = as_given(self.props[key], value)

    def chosen(self, key: str, value: Any) -> None:
        """A value the cloud picks when the template leaves it empty (an availability zone, an address): an
        empty recorded value is not compared; a given one is, as :meth:`text`."""
        if key in self.props:
            given = self.props[key]
            self.out[key] = given if given in (None, "") else as_given(given, value)

    def name(self, live_name: Any, *, limit: int = 255) -> None:
        if "name" in self.props:
            self.out["name"] = as_given(self.props["name"], live_name)
        elif live_name and not is_generated_name(self.ctx, str(live_name), limit):
            self.out["name"] = live_name

    def ref(self, key: str, live_id: Any, kind: str, find: Finder) -> None:
        """A reference: as given when it names the live object, else the live id ("" / None: nothing)."""
        if key not in self.props:
            return
        self.out[key] = self.ref_value(self.props[key], live_id, kind, find)

    def ref_value(self, given: Any, live_id: Any, kind: str, find: Finder) -> Any:
        if live_id in (None, ""):
            return given if given in (None, "") else None
        if given in (None, ""):
            return str(live_id)
        if str(given) == str(live_id):
            return given
        return given if resolve_id(self.ctx, self.conn, kind, given, find) == str(live_id) else str(live_id)

    def refs(self, key: str, live_ids: Iterable[Any], kind: str, find: Finder) -> None:
        """A set-like list of references."""
        if key not in self.props:
            return
        self.out[key] = match_items(
            self.props[key] or [],
            [str(i) for i in live_ids],
            lambda g, live: self.ref_value(g, live, kind, find) == g,
            lambda live: live,
        )

    def mapping(self, key: str, live: Mapping[str, Any] | None) -> None:
        if key in self.props:
            self.out[key] = map_as_given(self.props[key], live)

    def result(self) -> dict[str, Any]:
        return dict(self.out)


def as_written(
    recorded: Mapping[str, Any], defaulted: Mapping[str, Any], live: Mapping[str, Any]
) -> dict[str, Any]:
    """Live properties written the way the template wrote them: a driver reads with Heat's defaults filled in
    (``defaulted``), so a live value equal to a defaulted recorded one is given back as recorded (a rule item
    without its default ``direction``), and a property the template left out whose live value is the schema's
    default is not reported at all. Only what differs stays in the live form, so a drift shows just that."""
    out: dict[str, Any] = {}
    for key, value in live.items():
        if key in recorded:
            out[key] = _restore(recorded[key], defaulted.get(key), value)
        elif key in defaulted and defaulted[key] == value:
            continue
        else:
            out[key] = value
    return out


def _restore(rec: Any, dflt: Any, live: Any) -> Any:
    if dflt == live:
        return rec
    if isinstance(rec, list) and isinstance(dflt, list) and isinstance(live, list) and len(rec) == len(dflt):
        used: set[int] = set()
        items = []
        for item in live:
            j = next((j for j, d in enumerate(dflt) if j not in used and d == item), None)
            if j is None:
                items.append(item)
            else:
                used.add(j)
                items.append(rec[j])
        return items
    if isinstance(rec, dict) and isinstance(dflt, dict) and isinstance(live, dict):
        return {
            k: _restore(rec[k], dflt.get(k), v) if k in rec else v
            for k, v in live.items()
            if k in rec or k not in dflt or dflt[k] != v
        }
    return live
