"""Options shared by every command (the `openstack stack` habits): -t, -e (repeatable), --parameter K=V,
--parameter-file K=FILE, optional positional STACK (default: the template's stem), --format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hotc.errors import HotcError

TemplateOpt = Annotated[Path, typer.Option("-t", "--template", help="HOT template file.")]
EnvOpt = Annotated[
    list[Path] | None,
    typer.Option("-e", "--environment", help="Environment file (repeatable, applied in order)."),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option("--parameter", help="Parameter value KEY=VALUE (repeatable; also K1=V1;K2=V2)."),
]
ParamFileOpt = Annotated[
    list[str] | None,
    typer.Option("--parameter-file", help="Parameter value read from a file: KEY=FILE (repeatable)."),
]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="Output format: text or json.")]


def parse_parameters(values: list[str] | None) -> dict[str, str]:
    """``--parameter`` values as heatclient reads them: KEY=VALUE, or several joined with ';'."""
    out: dict[str, str] = {}
    for raw in values or []:
        for item in raw.split(";") if ";" in raw and "=" in raw.split(";", 1)[1] else [raw]:
            if "=" not in item:
                raise HotcError(f"--parameter {item!r}: expected KEY=VALUE")
            key, value = item.split("=", 1)
            if not key:
                raise HotcError(f"--parameter {item!r}: the key is empty")
            out[key] = value
    return out


def parse_parameter_files(values: list[str] | None) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for raw in values or []:
        if "=" not in raw:
            raise HotcError(f"--parameter-file {raw!r}: expected KEY=FILE")
        key, value = raw.split("=", 1)
        out[key] = Path(value)
    return out


def stack_name_for(stack: str | None, template: Path | None) -> str:
    if stack:
        return stack
    if template is None:
        raise HotcError("give a STACK name or a template with -t")
    return template.stem


def check_format(fmt: str, allowed: tuple[str, ...]) -> str:
    if fmt not in allowed:
        raise HotcError(f"--format {fmt!r}: choose one of {', '.join(allowed)}")
    return fmt
