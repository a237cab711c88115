"""Parameters declared ``immutable: true`` keep their value across updates, as in Heat.

Heat refuses a stack update (nothing changes) when a parameter the old stack had and the new template declares
``immutable`` gets a value that differs from the one the stack was created or last updated with
(``Parameters.immutable_params_modified``, raised as ``ImmutableParameterModified``). The old value is the
one recorded in the state (a default included); a hidden one, recorded as a digest, is compared by digest.

    changed_immutable_parameters(declared, values, recorded) -> list[str]   the names, in declaration order
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.state import secrets
from hotc.state.codec import plain
from hotc.state.document import ParameterRecord


def changed_immutable_parameters(
    declared: Mapping[str, Any], values: Mapping[str, Any], recorded: Mapping[str, ParameterRecord]
) -> list[str]:
    """The parameters ``declared`` immutable (the new template's definitions) whose new value in ``values``
    differs from the value in ``recorded`` (the state's records). Names the old stack did not have, or that
    have no value now, are not judged (as in Heat, only parameters both stacks have are)."""
    changed: list[str] = []
    for name, param in declared.items():
        if not getattr(param, "immutable", False) or name not in recorded or name not in values:
            continue
        old = recorded[name]
        new = values[name]
        if old.hidden or old.digest is not None:
            same = old.digest is not None and old.digest == secrets.digest(plain(new))
        else:
            same = old.value == new
        if not same:
            changed.append(name)
    return changed
