"""Property validation over the open HOT corpus: no template Heat's ``template validate`` accepts gets a
property error in the matching (non-strict) mode, and the corpus template Heat rejects for an unknown
property is rejected with the same finding."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import yaml

from hotc.errors import Pos, Severity
from hotc.providers.registry import get_schema
from hotc.providers.validation import validate_property_values
from hotc.values import Unknown
from tests.corpus.corpus import WHAT, find_corpus
from tests.inputs import needs_input

_FUNCTIONS = {
    "get_param", "get_resource", "get_attr", "get_file", "str_replace", "list_join", "digest", "repeat",
    "resource_facade", "str_split", "map_merge", "map_replace", "yaql", "if", "equals", "not", "and", "or",
    "filter", "make_url", "list_concat", "list_concat_unique", "contains", "str_replace_strict",
    "str_replace_vstrict", "Ref",
}  # fmt: skip


CORPUS = find_corpus(Path(__file__))
pytestmark = needs_input(CORPUS, WHAT)


def _values(v: Any) -> Any:
    """YAML data with every intrinsic function call replaced by an Unknown (its value needs evaluation)."""
    if isinstance(v, dict):
        if len(v) == 1:
            (k,) = v
            if k in _FUNCTIONS or str(k).startswith("Fn::"):
                return Unknown()
        return {k: _values(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_values(x) for x in v]
    return v


def _findings(verdict: str) -> tuple[int, list[tuple[str, str, str]]]:
    assert CORPUS is not None
    checked, found = 0, []
    with open(CORPUS / "HEAT_VERDICTS.tsv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["heat_verdict"] == verdict]
    for row in rows:
        try:
            doc = yaml.safe_load((CORPUS / row["path"]).read_text())
        except (OSError, yaml.YAMLError):
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("resources"), dict):
            continue
        for name, res in doc["resources"].items():
            if not isinstance(res, dict) or "external_id" in res:
                continue  # Heat does not validate the properties of external resources
            rtype = get_schema(str(res.get("type")))
            props = _values(res.get("properties") or {})
            if rtype is None or not isinstance(props, dict):
                continue
            checked += 1
            for d in validate_property_values(rtype, props, Pos(row["path"], 1, 1), strict=False):
                if d.severity is Severity.ERROR:
                    found.append((row["path"], name, d.message))
    return checked, found


def test_no_property_errors_on_templates_heat_accepts() -> None:
    checked, found = _findings("VALID")
    assert checked > 300  # the corpus exercises the schemas broadly
    assert found == []


def test_unknown_property_heat_rejects_is_found() -> None:
    _, found = _findings("INVALID")
    assert any(
        path.endswith("hot/octavia/servers_with_octavia.yaml")
        and name == "monitor"
        and "max_retries_down" in msg
        for path, name, msg in found
    ), found
