"""``hotc types list`` and ``hotc types show TYPE``: the resource types hotc can validate, plan and apply,
hotc's own and those of installed plugins, with where each comes from (Heat's ``openstack orchestration
resource type list/show``)."""

from __future__ import annotations

import fnmatch
import json
from typing import Annotated

import typer

from hotc.errors import HotcError

types_app = typer.Typer(help="The resource types hotc knows, and where they come from.", no_args_is_help=True)


def _check(fmt: str) -> None:
    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose one of text, json")


@types_app.command("list")
def types_list(
    filter_: Annotated[
        str, typer.Option("--filter", help="Only types matching this glob, e.g. 'OS::Nova::*'.")
    ] = "*",
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
) -> None:
    """Every resource type: name, whether apply supports it, and its source (built-in or a plugin package)."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.providers.drivers import support_problem
    from hotc.providers.registry import PLUGINS

    _check(fmt)
    rows = [
        {
            "resource_type": name,
            "apply": "supported" if support_problem(name) is None else "plan only",
            "source": str(e.source),
        }
        for name, e in sorted(PLUGINS.table().items())
        if fnmatch.fnmatchcase(name, filter_)
    ]
    if fmt == "json":
        typer.echo(json.dumps({"resource_types": rows}, indent=2))
        return
    w = max([len("TYPE"), *(len(r["resource_type"]) for r in rows)])
    typer.echo(f"{'TYPE':<{w}}  {'APPLY':<9}  SOURCE")
    for r in rows:
        typer.echo(f"{r['resource_type']:<{w}}  {r['apply']:<9}  {r['source']}")


@types_app.command("show")
def types_show(
    type_name: Annotated[str, typer.Argument(help="A resource type, e.g. OS::Nova::Server.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
) -> None:
    """A type's properties (type, required, update_allowed, immutable, default, constraints) and attributes."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.providers.drivers import support_problem
    from hotc.providers.plugins import describe_type
    from hotc.providers.registry import PLUGINS

    _check(fmt)
    entry = PLUGINS.get(type_name)
    if entry is None:
        raise HotcError(
            f"resource type {type_name!r} is not known to hotc or any installed plugin; see 'hotc types list'"
        )
    doc = describe_type(entry, support_problem(type_name))
    if fmt == "json":
        typer.echo(json.dumps(doc, indent=2, default=str))
        return
    typer.echo(f"{doc['resource_type']}  ({doc['source']}; apply: {doc['apply']})")
    if doc["description"]:
        typer.echo(f"  {doc['description']}")
    typer.echo("properties:")
    for name, p in doc["properties"].items():
        flags = [p["type"]]
        if p["required"]:
            flags.append("required")
        flags.append("update allowed" if p["update_allowed"] else "replace on change")
        if p["immutable"]:
            flags.append("immutable")
        if "default" in p:
            flags.append(f"default {json.dumps(p['default'], default=str)}")
        if p.get("sensitive"):
            flags.append("sensitive")
        typer.echo(f"  {name}: {', '.join(flags)}")
    typer.echo("attributes:")
    for name, a in doc["attributes"].items():
        text = f"  {name}" + (f": {a['description']}" if a["description"] else "")
        typer.echo(text + (" (sensitive)" if a.get("sensitive") else ""))


def register(app: typer.Typer) -> None:
    app.add_typer(types_app, name="types")
