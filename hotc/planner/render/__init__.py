"""The planner's renderings of a Plan (its own package: what a plan looks like is apart from how it is made).

- :func:`render_text` (terminal), :func:`render_json` (the stable, versioned document,
  ``hotc/planner/plan.schema.json``), :func:`render_markdown` (a pull-request comment);
- :func:`render_sarif` with :func:`diagnostic_results` / :func:`plan_results` (code scanning);
- :mod:`.graph` (``hotc graph``: dot and mermaid), :mod:`.groups` (group rollouts, shared by the others).

Other layers import the renderings from here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hotc.planner.render.json import render_json
    from hotc.planner.render.markdown import render_markdown
    from hotc.planner.render.sarif import diagnostic_results, plan_results, render_sarif
    from hotc.planner.render.text import render_text

# each rendering's module is imported when first asked for (a text plan never loads the Markdown or SARIF one)
_MODULE = {
    "diagnostic_results": "sarif",
    "plan_results": "sarif",
    "render_json": "json",
    "render_markdown": "markdown",
    "render_sarif": "sarif",
    "render_text": "text",
}


def __getattr__(name: str) -> Any:
    module = _MODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "diagnostic_results",
    "plan_results",
    "render_json",
    "render_markdown",
    "render_sarif",
    "render_text",
]
