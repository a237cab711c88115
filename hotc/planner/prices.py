"""``--prices FILE``: the monthly cost delta of a plan from a price table the operator keeps.

The file (YAML or JSON)::

    currency: EUR
    flavors: {m1.small: 14.60, m1.medium: 29.20}   # per server per month, by flavor name or id
    volume_gb: 0.10                                 # per GB of Cinder volume per month
    floating_ip: 3.00                               # per floating IP per month

A create adds its price, a delete subtracts it, an update or replace adds the difference (a resize, a larger
volume). Values known only after apply are left out and counted in ``unpriced``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.plan import Action, Plan, ResourceChange


@model(slots=True)
class PriceTable:
    currency: str
    flavors: Mapping[str, float]
    volume_gb: float
    floating_ip: float


@model(slots=True)
class CostDelta:
    currency: str
    monthly_delta: float
    lines: tuple[tuple[str, float], ...]  # (address, delta)
    unpriced: tuple[str, ...]  # addresses whose price could not be computed


def _number(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise HotcError(f"{where}: expected a number, got {v!r}")
    return float(v)


def load_prices(path: Path) -> PriceTable:
    try:
        text = path.read_text(encoding="utf-8")
        data: Any = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except OSError as exc:
        raise HotcError(f"--prices {path}: cannot read: {exc.strerror or exc}") from exc
    except (ValueError, yaml.YAMLError) as exc:
        raise HotcError(f"--prices {path}: not valid YAML/JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise HotcError(f"--prices {path}: expected a map with currency, flavors, volume_gb, floating_ip")
    unknown = sorted(set(data) - {"currency", "flavors", "volume_gb", "floating_ip"})
    if unknown:
        raise HotcError(f"--prices {path}: unknown key(s) {', '.join(unknown)}")
    flavors = data.get("flavors") or {}
    if not isinstance(flavors, dict):
        raise HotcError(f"--prices {path}: flavors must map flavor names to monthly prices")
    return PriceTable(
        currency=str(data.get("currency", "")),
        flavors={str(k): _number(v, f"--prices {path}: flavors.{k}") for k, v in flavors.items()},
        volume_gb=_number(data.get("volume_gb", 0), f"--prices {path}: volume_gb"),
        floating_ip=_number(data.get("floating_ip", 0), f"--prices {path}: floating_ip"),
    )


def _price(type_name: str, props: Mapping[str, Any] | None, table: PriceTable) -> float | None:
    """The monthly price of one resource with these properties; None when it cannot be known (unknown
    values, a flavor missing from the table); 0 for types the table does not price."""
    if props is None:
        return 0.0
    if type_name == "OS::Nova::Server":
        flavor = props.get("flavor")
        if not isinstance(flavor, str) or flavor not in table.flavors:
            return None
        return table.flavors[flavor]
    if type_name == "OS::Cinder::Volume":
        size = props.get("size")
        if isinstance(size, bool) or not isinstance(size, int | float):
            return None
        return float(size) * table.volume_gb
    if type_name == "OS::Neutron::FloatingIP":
        return table.floating_ip
    return 0.0


def _delta(c: ResourceChange, table: PriceTable) -> float | None:
    if c.action in (Action.NOOP, Action.FORGET) or c.import_id is not None:
        return 0.0
    before = _price(c.type, c.before, table) if c.action is not Action.CREATE else 0.0
    after = _price(c.type, c.after, table) if c.action is not Action.DELETE else 0.0
    if before is None or after is None:
        return None
    return after - before


def cost_delta(plan: Plan, table: PriceTable) -> CostDelta:
    lines: list[tuple[str, float]] = []
    unpriced: list[str] = []
    for c in plan.changes:
        if c.deposed:
            continue
        d = _delta(c, table)
        if d is None:
            unpriced.append(c.address)
        elif d:
            lines.append((c.address, round(d, 4)))
    return CostDelta(table.currency, round(sum(d for _, d in lines), 2), tuple(lines), tuple(unpriced))
