"""Comparing hotc's answer for a case with Heat's: verdicts (validate, create), then each output (its value,
or that it fails). Values made at random or named by the cloud compare by shape: a UUID is ``<uuid>``, a
physical name ``STACK-RES-<12 random>`` keeps its stack and resource parts (Heat's nested stacks are
``STACK-RES-<12 random>`` too, hotc's ``STACK-RES``: both compare as ``STACK-RES``). Error *messages* are not
compared (Heat's are Python exception texts), only whether there is an error."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from tests.oracle.generate import Case

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_SHORT = re.compile(r"-[a-z0-9]{12}(?=-|$)")
_ARN = re.compile(r"arn:openstack:heat::[^:]*:stacks/[^/]+/(?=[0-9a-f]{8}-)")


def normalise(value: Any, stack: str) -> Any:
    if isinstance(value, str):
        # a nested stack's ARN embeds the Keystone project id, which hotc has only with a cloud configured
        # (then it answers the ARN too); the oracle runs hotc offline, where it answers the stack's id
        v = _UUID.sub("<uuid>", _ARN.sub("", value))
        if v.startswith(stack):
            v = _SHORT.sub("", v)
        return v
    if isinstance(value, list):
        return [normalise(x, stack) for x in value]
    if isinstance(value, dict):
        return {normalise(k, stack): normalise(x, stack) for k, x in value.items()}
    return value


def exact(value: Any, ordered: bool = True) -> Any:
    """``value`` in a form whose equality is type-exact (``true``, ``1`` and ``1.0`` differ, as they do in
    JSON) and, with ``ordered``, sees the order of a map's keys (Heat's outputs keep the order their maps
    were built in, and templates can observe it)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", value)
    if isinstance(value, list):
        return ("list", tuple(exact(v, ordered) for v in value))
    if isinstance(value, dict):
        items = [(exact(k, ordered), exact(v, ordered)) for k, v in value.items()]
        return ("map", tuple(items) if ordered else tuple(sorted(items, key=repr)))
    return (type(value).__name__, value)


def _missing_files(doc: Any, files: dict[str, str], key: str = "") -> list[str]:
    """Names the openstack client would fetch for this document (get_file targets, template resource types)
    that the case does not have."""
    out: list[str] = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "get_file" and isinstance(v, str) and v not in files:
                out.append(v)
            elif k == "type" and isinstance(v, str) and v.endswith((".yaml", ".template")) and v not in files:
                out.append(v)
            else:
                out += _missing_files(v, files, str(k))
    elif isinstance(doc, list):
        for v in doc:
            out += _missing_files(v, files, key)
    return out


def as_the_client_sends(case: Case, heat: dict[str, Any]) -> dict[str, Any]:
    """Heat's answer as a user of ``openstack stack create`` gets it: the client reads every get_file target
    and template-resource file before sending anything, and stops with "Could not fetch contents for FILE"
    when one is missing (hotc reads them from disk in the same way). The oracle sends the request itself,
    so Heat sees such a file only as absent from ``files``."""
    try:
        docs = [yaml.safe_load(case.template)] + [yaml.safe_load(t) for t in case.files.values()]
    except yaml.YAMLError:
        return heat
    missing = [m for d in docs for m in _missing_files(d, case.files)]
    if missing:
        return {
            "v": "error",
            "vm": f"openstack client: Could not fetch contents for {missing[0]}",
            "c": "skip",
        }
    return heat


def _set_order_only(case: Case, output: str, heat: Any, hotc: Any) -> bool:
    """Whether the two values are the same items in another order, from an output whose yaql calls keys(): a
    map's KeysView, a set, whose order in Heat is the string-hash order of the engine process answering."""
    if not (isinstance(heat, list) and isinstance(hotc, list)) or len(heat) != len(hotc):
        return False
    try:
        doc = yaml.safe_load(case.template)
        value = doc["outputs"][output]["value"]
    except (yaml.YAMLError, KeyError, TypeError):
        return False
    if "keys()" not in json.dumps(value):
        return False
    return sorted(map(json.dumps, heat)) == sorted(map(json.dumps, hotc))


@dataclass(frozen=True)
class Verdict:
    agree: bool
    cause: str  # "" when they agree
    detail: str = ""


def compare(case: Case, heat: dict[str, Any], hotc: dict[str, Any]) -> Verdict:
    heat = as_the_client_sends(case, heat)
    if heat["v"] != hotc["v"]:
        if heat["v"] == "error":
            return Verdict(False, "validate: Heat rejects, hotc accepts", heat.get("vm", ""))
        return Verdict(False, "validate: hotc rejects, Heat accepts", hotc.get("vm", ""))
    if heat["v"] == "error":
        return Verdict(True, "")
    if heat["c"] != hotc["c"]:
        if heat["c"] == "error" and '"code": 500' in str(heat.get("cm", "")):
            return Verdict(
                False, "create: Heat's engine fails with an internal error (500)", heat.get("cm", "")
            )
        if heat["c"] == "error":
            return Verdict(False, "create: Heat fails, hotc creates", heat.get("cm", ""))
        return Verdict(False, "create: hotc fails, Heat creates", hotc.get("cm", ""))
    if heat["c"] != "ok":
        return Verdict(True, "")
    ho, mo = heat.get("o", {}), hotc.get("o", {})
    if set(ho) != set(mo):
        return Verdict(False, "outputs: different output keys", f"Heat {sorted(ho)} hotc {sorted(mo)}")
    for k in sorted(ho):
        h, m = ho[k], mo[k]
        if h[0] != m[0]:
            if h[0] == "e":
                return Verdict(
                    False, "output: Heat errors, hotc has a value", f"{k}: Heat {h[1]!r}; hotc {m[1]!r}"
                )
            return Verdict(
                False, "output: hotc errors, Heat has a value", f"{k}: hotc {m[1]!r}; Heat {h[1]!r}"
            )
        if h[0] == "v" and exact(normalise(h[1], case.stack_name)) != exact(normalise(m[1], case.stack_name)):
            if _set_order_only(case, k, h[1], m[1]):
                return Verdict(
                    False,
                    "output: values differ in order only (a yaql set)",
                    f"{k}: Heat {h[1]!r}; hotc {m[1]!r}",
                )
            hn, mn = normalise(h[1], case.stack_name), normalise(m[1], case.stack_name)
            if exact(hn, ordered=False) == exact(mn, ordered=False):
                return Verdict(
                    False, "output: values differ in map key order only", f"{k}: Heat {h[1]!r}; hotc {m[1]!r}"
                )
            if hn == mn:
                return Verdict(
                    False,
                    "output: values differ in type only (True == 1 == 1.0)",
                    f"{k}: Heat {h[1]!r}; hotc {m[1]!r}",
                )
            return Verdict(False, "output: values differ", f"{k}: Heat {h[1]!r}; hotc {m[1]!r}")
    return Verdict(True, "")
