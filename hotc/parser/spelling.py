"""Function names that look misspelt (``list_joinn``, ``get_parm``, ``Fn::Selct``).

Heat takes a single-key mapping whose key is not a function of the template's version as plain data, so such
a template is valid and a misspelt function silently becomes a value (a property receives
``{list_joinn: [...]}`` as a map). hotc keeps Heat's reading and says so: a warning (never an error) naming the
function the key is close to. Only keys shaped like function names are considered (``word_word`` or
``Fn::Word``): a data map with a single plain key (``{network: private}``) is never questioned.
"""

from __future__ import annotations

import difflib
import functools
import re

from hotc.errors import Diagnostic, Pos, did_you_mean, warning
from hotc.parser.grammar import grammar
from hotc.parser.ir import TemplateVersion

CODE = "function-spelling"
_SHAPED = re.compile(r"^(?:[a-z]+(?:_[a-z]+)+|Fn::[A-Za-z]+)$")
CUTOFF = 0.85  # difflib ratio: list_joinn/list_join 0.95, get_parm/get_param 0.94


@functools.lru_cache(maxsize=64)
def _names(version: TemplateVersion) -> tuple[str, ...]:
    g = grammar()
    return tuple(sorted(set(g.normal_table(version)) | set(g.condition_table(version))))


def spelling_warning(key: object, version: TemplateVersion, pos: Pos | None, diags: list[Diagnostic]) -> None:
    """A warning in ``diags`` when ``key`` (the single key of a data mapping) is close to a function name."""
    if not isinstance(key, str) or not _SHAPED.match(key):
        return
    names = _names(version)
    if key in names or not difflib.get_close_matches(key, names, n=1, cutoff=CUTOFF):
        return
    diags.append(
        warning(
            f'"{key}" is not a function in heat_template_version {version.written}, so this mapping is plain '
            f"data, as Heat takes it.{did_you_mean(key, names, cutoff=CUTOFF)}",
            pos,
            code=CODE,
        )
    )
