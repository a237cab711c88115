"""The benchmark's generated template is a valid stack (so the benchmark measures a real validate)."""

from __future__ import annotations

import sys
from pathlib import Path

from hotc.errors import has_errors
from hotc.parser.api import load_stack
from hotc.providers.checks import type_checks

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench_validate import generate  # type: ignore[import-not-found]  # noqa: E402


def test_generated_template_validates(tmp_path: Path) -> None:
    t = tmp_path / "big.yaml"
    t.write_text(generate(400))
    st, diags = load_stack(str(t), [], {}, {}, require_values=False, checks=type_checks())
    assert st is not None and not has_errors(diags), [str(d) for d in diags][:5]
    assert len(st.template.resources) == 400
    assert st.types["server0"].type_name == "OS::Nova::Server"
