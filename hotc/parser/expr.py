"""Building expressions (:data:`hotc.parser.ir.Expr`) from decoded template data.

    parse_expr(data, version, *, where, pos=None, file="") -> (Expr, [Diagnostic])

``data`` is what :func:`hotc.parser.yamlload.load_document` produced (PosDict/PosList/scalars); positions
in diagnostics come from those containers. ``where`` is the context the snippet sits in (see
:data:`WHERES`): it decides which functions are allowed.

A single-key mapping whose key is a function of the template's version is a call; any other mapping is
plain data (keys are never evaluated), as in Heat (heat-hot.md §1.3).
"""

from __future__ import annotations

from typing import Any

from hotc.errors import Diagnostic, Pos, error
from hotc.parser.functions import GetAttr, GetParam, GetResource
from hotc.parser.ir import Expr, ListExpr, Literal, MapExpr, TemplateVersion

#: Contexts a snippet can be parsed in:
#: - ``properties``/``metadata``/``update_policy``/``deletion_policy``/``external_id``/``outputs``/``value``:
#:   every function of the version (resource bodies, output values);
#: - ``conditions``: a definition in the ``conditions:`` section: condition functions only (get_param,
#:   equals, not, and, or; yaql and contains from 2017-09-01); other functions are errors; the top level must
#:   be a boolean or a function; bare strings inside not/and/or are condition names;
#: - ``condition_ref``: a resource's or output's ``condition:`` key: a condition name (string), a boolean or
#:   an inline condition expression;
#: - ``literal``: no functions at all (every mapping is data), e.g. parameter defaults.
WHERES: frozenset[str] = frozenset(
    {
        "properties",
        "metadata",
        "update_policy",
        "deletion_policy",
        "external_id",
        "outputs",
        "value",
        "conditions",
        "condition_ref",
        "literal",
    }
)


def parse_expr(
    data: Any,
    version: TemplateVersion,
    *,
    where: str,
    pos: Pos | None = None,
    file: str = "",
) -> tuple[Expr, list[Diagnostic]]:
    """Build the expression for ``data`` in context ``where``; never raises on bad input (errors are
    returned as diagnostics and the faulty call becomes a literal ``None``)."""
    diags: list[Diagnostic] = []
    return _build(data, pos, diags, file), diags


def _build(data: Any, pos: Pos | None, diags: list[Diagnostic], file: str) -> Expr:
    # Provisional builder (first API subset); replaced by the grammar-driven parser.
    if isinstance(data, dict):
        dpos = getattr(data, "pos", None) or pos
        if len(data) == 1:
            (key, arg), = data.items()
            vpos = data.pos_of(key) if hasattr(data, "pos_of") else dpos
            if key == "get_param":
                items = arg if isinstance(arg, list) else [arg]
                built = [_build(a, vpos, diags, file) for a in items]
                return GetParam("get_param", dpos, built[0], tuple(built[1:]))
            if key == "get_resource":
                return GetResource("get_resource", dpos, _build(arg, vpos, diags, file))
            if key == "get_attr":
                if not isinstance(arg, list) or not arg:
                    diags.append(error("get_attr: arguments must be a list [RESOURCE, ATTRIBUTE, path…]", vpos))
                    return Literal(None, dpos)
                built = [_build(a, vpos, diags, file) for a in arg]
                return GetAttr("get_attr", dpos, built[0], built[1] if len(built) > 1 else None, tuple(built[2:]))
        kp = getattr(data, "key_pos", {})
        return MapExpr(
            tuple((str(k), _build(v, data.pos_of(k) if hasattr(data, "pos_of") else dpos, diags, file))
                  for k, v in data.items()),
            dpos,
            tuple(kp.get(k) for k in data),
        )
    if isinstance(data, list):
        ip = getattr(data, "pos_of", None)
        return ListExpr(
            tuple(_build(v, ip(i) if ip else pos, diags, file) for i, v in enumerate(data)),
            getattr(data, "pos", None) or pos,
        )
    return Literal(data, pos)
