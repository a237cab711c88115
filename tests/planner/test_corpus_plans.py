"""Every corpus template Heat accepts (HEAT_VERDICTS.tsv: VALID) that hotc loads can be planned for an empty
state without a crash: the plan is made, or a HotcError says why (a traceback is a bug)."""

from __future__ import annotations

from dataclasses import replace

from hotc.errors import HotcError
from hotc.parser.api import load_stack
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.planner.render.json import render_json
from hotc.planner.render.text import render_text
from hotc.providers.checks import type_checks
from tests.corpus.corpus import WHAT, find_corpus, read_verdicts
from tests.inputs import missing_input

DUMMY = {"number": 1, "comma_delimited_list": ["a"], "json": {}, "boolean": True}


def test_corpus_templates_plan_without_crashing() -> None:
    corpus = find_corpus()
    if corpus is None:
        missing_input(WHAT)
    rows = [r for r in read_verdicts(corpus) if r.verdict == "VALID"]
    planned = refused = 0
    crashes: list[str] = []
    for row in rows:
        path = corpus / row.path
        envs = [str(corpus / e) for e in row.env_files]
        loaded, diags = load_stack(str(path), envs, {}, {}, require_values=False, checks=type_checks())
        if loaded is None or any(d.severity.value == "error" for d in diags):
            continue
        values = dict(loaded.parameter_values)
        for name, p in loaded.template.parameters.items():
            values.setdefault(name, DUMMY.get(p.type, "x"))
        loaded = replace(loaded, parameter_values=values)
        try:
            plan = make_plan(build_desired(loaded, "corpus", None), None, PlanOptions())
            render_text(plan)
            render_json(plan)
            planned += 1
        except HotcError:
            refused += 1
        except Exception as exc:  # noqa: BLE001 -- the point of the test
            crashes.append(f"{row.path}: {type(exc).__name__}: {exc}")
    assert not crashes, "\n".join(crashes[:20])
    assert planned > 100, (planned, refused)
