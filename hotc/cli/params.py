"""Converting command-line values without pydantic (start-up time).

typer (0.2x) converts every option and argument through a pydantic ``TypeAdapter``: importing pydantic and
building the adapters of one command costs about 0.07-0.1 s of CPU, a third of a whole ``hotc validate`` of a
small template. Every hotc option is a ``str``, ``int``, ``float``, ``bool``, ``Path`` or a list of one of
them; :func:`lighten` gives such parameters a converter written here, with the same results and the same
kind of messages ("Input should be a valid integer ..."). Anything else (another annotation, a custom
parser, clamping, a typer without these internals) keeps typer's own converter, so behaviour never depends
on this module being able to help.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, get_args, get_origin

from hotc.model import model

try:  # typer's runtime-coercion layer (typer >= 0.2x); older typers use click's types and need nothing
    from typer._click.exceptions import BadParameter
    from typer._coercion import RuntimeParam
    from typer._param_types import coerce_cli_path

    _HAVE_RUNTIME = True
except ImportError:  # pragma: no cover - depends on the installed typer
    _HAVE_RUNTIME = False

_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})
_LEAVES = (str, int, float, bool, Path)


def _to_str(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode(sys.getfilesystemencoding(), "replace")
    return str(value)


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = _to_str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE or text == "":
        return False
    raise ValueError("Input should be a valid boolean, unable to interpret input")


def _to_int(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = _to_str(value).strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        raise ValueError("Input should be a valid integer, unable to parse string as an integer") from None
    if not number.is_integer():
        raise ValueError("Input should be a valid integer, got a number with a fractional part")
    return int(number)


def _to_float(value: Any) -> float:
    if isinstance(value, float):
        return value
    try:
        return float(_to_str(value).strip())
    except ValueError:
        raise ValueError("Input should be a valid number, unable to parse string as a number") from None


_CONVERT = {str: _to_str, bool: _to_bool, int: _to_int, float: _to_float}

if _HAVE_RUNTIME:

    @model
    class PlainParam(RuntimeParam):
        """One parameter of a plain type (see the module doc); ``leaf`` is the type of one value."""

        leaf: type = str
        is_list: bool = False

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            info = self.parameter_info
            if self.leaf is Path:
                path = value if isinstance(value, Path) else Path(os.fsdecode(value))
                return coerce_cli_path(path, info, path_type=Path, param=param, ctx=ctx)
            try:
                out: Any = _CONVERT[self.leaf](value)
            except ValueError as exc:
                raise BadParameter(str(exc), ctx=ctx, param=param) from None
            if info.min is not None and out < info.min:
                raise BadParameter(
                    f"Input should be greater than or equal to {info.min}", ctx=ctx, param=param
                )
            if info.max is not None and out > info.max:
                raise BadParameter(f"Input should be less than or equal to {info.max}", ctx=ctx, param=param)
            return out

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.is_list:
                items = value if isinstance(value, list | tuple) else [value]
                return [self._one(v, param, ctx) for v in items]
            return self._one(value, param, ctx)


def _plain(param: Any) -> Any:
    """The light converter for ``param``, or None when typer's own must be kept."""
    desc = getattr(param, "type_descriptor", None)
    if not _HAVE_RUNTIME or desc is None or getattr(param, "_runtime_param", 0) is not None:
        return None
    info = desc.parameter_info
    if info.parser is not None or info.clamp or desc.file_annotation is not None:
        return None
    annotation = desc.annotation
    is_list = get_origin(annotation) is list
    leaf = get_args(annotation)[0] if is_list else annotation
    if leaf not in _LEAVES:
        return None
    if leaf is not Path and (info.allow_dash or info.path_type is not None or info.resolve_path):
        return None  # path options on a non-Path annotation: typer routes these to its path converter
    return PlainParam(parameter_info=info, annotation=annotation, leaf=leaf, is_list=is_list)


def lighten(command: Any, ctx: Any, *, deep: bool = True) -> None:
    """Give every plain parameter of ``command`` (its ``--help`` too, which click adds per context: ``ctx``
    gives its names) and, with ``deep``, of its sub-commands, the converter of this module."""
    get_params = getattr(command, "get_params", None)
    for param in get_params(ctx) if get_params is not None else ():
        light = _plain(param)
        if light is not None:
            param._runtime_param = light
    if deep:
        for sub in getattr(command, "commands", {}).values():
            lighten(sub, ctx)
