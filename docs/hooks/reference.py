"""Generated reference pages of the documentation site, made from hotc's own code at every build.

mkdocs loads this file as a hook (``hooks:`` in ``mkdocs.yml``); its ``on_files`` adds two pages that exist only
in the built site, so they cannot go stale:

- ``reference/cli.md``: every command of the typer app ``hotc.cli.app.app``, walked through its click command
  tree (usage, help, arguments and options, sub-commands);
- ``reference/resource-types.md``: every resource type of hotc's registry (``hotc.providers.registry``), with
  its properties and attributes as ``hotc types show`` gives them, and whether ``hotc apply`` supports it;
- ``reference/plan-format.md`` and ``reference/state-format.md``: the fields of the plan and state documents,
  from their JSON schemas (``hotc/planner/plan.schema.json``, ``hotc/state/state.schema.json``).

Run it as a script to print one page: ``python docs/hooks/reference.py cli`` (or ``resource-types``,
``plan-format``, ``state-format``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

CLI_PAGE = "reference/cli.md"
TYPES_PAGE = "reference/resource-types.md"


# ---------------------------------------------------------------------------------------------- the CLI


def _cell(text: str) -> str:
    """Text for a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _commands(cmd: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
    """(command, its context) for ``cmd`` and every command under it, depth first, by name."""
    yield cmd, ctx
    if not hasattr(cmd, "list_commands"):
        return
    for name in cmd.list_commands(ctx):
        # resolve_command loads a lazily registered command's module (hotc.cli.app.LazyGroup)
        _, sub, _ = cmd.resolve_command(ctx, [name])
        if sub is None or getattr(sub, "hidden", False):
            continue
        yield from _commands(sub, sub.context_class(sub, info_name=name, parent=ctx))


def _command_section(cmd: Any, ctx: Any) -> list[str]:
    path = ctx.command_path
    depth = 2 if path.count(" ") <= 1 else 3
    lines = [f"{'#' * depth} `{path}`", ""]
    help_text = (cmd.help or cmd.short_help or "").strip()
    if help_text:
        lines += [help_text.replace("\b\n", ""), ""]
    lines += ["```text", cmd.get_usage(ctx).strip(), "```", ""]
    rows = []
    for param in cmd.get_params(ctx):
        if getattr(param, "hidden", False) or param.name == "help":
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, text = record
        kind = "argument" if param.param_type_name == "argument" else "option"
        rows.append(f"| `{_cell(names)}` | {kind} | {_cell(text)} |")
    if rows:
        lines += ["| name | kind | what it is |", "| --- | --- | --- |", *rows, ""]
    if hasattr(cmd, "list_commands"):
        subs = [n for n in cmd.list_commands(ctx)]
        if subs and ctx.parent is not None:
            lines += ["Sub-commands: " + ", ".join(f"`{path} {n}`" for n in subs) + ".", ""]
    return lines


def cli_page() -> str:
    """The CLI reference: every command of ``hotc.cli.app.app``."""
    import typer

    from hotc.cli.app import app

    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="hotc")
    out = [
        "# CLI reference",
        "",
        "Generated from hotc's command-line app (`hotc.cli.app`) each time the site is built, so it lists",
        "exactly the commands and options of this version. `hotc COMMAND --help` prints the same.",
        "",
        "Exit codes: 0 success; 1 an error (the message says what, where and what to do); 2 changes present",
        "(only with `--detailed-exitcode`); 3 a `--deny` or policy rule was violated.",
        "",
    ]
    for cmd, cctx in _commands(root, ctx):
        out += _command_section(cmd, cctx)
    return "\n".join(out)


# ----------------------------------------------------------------------------------- resource types


def _value(value: Any) -> str:
    return "`" + json.dumps(value, default=str, sort_keys=True).replace("|", "\\|") + "`"


def _constraints(prop: dict[str, Any]) -> str:
    parts = []
    for c in prop.get("constraints", ()):
        for kind, spec in c.items():
            parts.append(f"{kind} {_value(spec)}")
    return "; ".join(parts)


def _type_section(doc: dict[str, Any]) -> list[str]:
    lines = [f"### {doc['resource_type']}", ""]
    facts = [f"apply: {doc['apply']}"]
    if doc["support"] != "supported":
        facts.append(f"Heat's support status: {doc['support']}")
    lines += [_cell("; ".join(facts)) + ".", ""]
    if doc["description"]:
        lines += [_cell(doc["description"]), ""]
    props = doc["properties"]
    if props:
        lines += [
            "| property | type | required | on change | default | constraints |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for name, p in props.items():
            if p["immutable"]:
                change = "refused (immutable)"
            elif p["update_allowed"]:
                change = "update in place"
            else:
                change = "replace"
            ptype = p["type"] + (" (sensitive)" if p.get("sensitive") else "")
            default = _value(p["default"]) if "default" in p else ""
            lines.append(
                f"| `{name}` | {ptype} | {'yes' if p['required'] else ''} | {change} | {default} "
                f"| {_cell(_constraints(p))} |"
            )
        lines.append("")
    attrs = doc["attributes"]
    if attrs:
        lines += ["| attribute | what it is |", "| --- | --- |"]
        for name, a in attrs.items():
            text = _cell(a["description"]) + (" (sensitive)" if a.get("sensitive") else "")
            lines.append(f"| `{name}` | {text} |")
        lines.append("")
    return lines


def resource_types_page() -> str:
    """The resource-type reference: every type of hotc's registry, grouped by namespace."""
    from hotc.providers.drivers import support_problem
    from hotc.providers.missing_services import SERVICES
    from hotc.providers.plugins import describe_type
    from hotc.providers.registry import PLUGINS

    table = PLUGINS.table()
    docs = []
    for name, entry in sorted(table.items()):
        problem = support_problem(name)
        doc = describe_type(entry, problem)
        doc["apply"] = "supported" if problem is None else f"refused at plan time: {problem}"
        docs.append(doc)
    out = [
        "# Resource types",
        "",
        "Generated from the schemas hotc validates and plans with (`hotc/providers/schemas/`, read through",
        "`hotc.providers.registry`) each time the site is built. `hotc types list` and `hotc types show TYPE`",
        "print the same, for plugins' types too. Notes on each service's types, what hotc does where Heat",
        "does something unexpected, are in [Service notes](services.md).",
        "",
        "**on change** says what a change of the property does, as in Heat: *update in place* (Heat's",
        "`update_allowed`), *replace* (a new resource is made, then the old one deleted) or *refused*",
        "(an immutable property: the plan is an error). Some types add rules of their own (a server's",
        "`image` change is a rebuild with its default update policy); `hotc plan` names the rule it applied.",
        "",
        f"{len(docs)} types; {sum(1 for d in docs if d['apply'] == 'supported')} of them can be applied.",
        "",
        "## Summary",
        "",
        "| type | apply |",
        "| --- | --- |",
    ]
    for d in docs:
        anchor = d["resource_type"].lower().replace("::", "")
        out.append(f"| [`{d['resource_type']}`](#{anchor}) | {_cell(d['apply'])} |")
    out += [
        "",
        "Types of OpenStack services hotc has no driver for (validated as Heat does, refused by `hotc plan`",
        "with the service's name; map one to `OS::Heat::None` in an environment to plan the rest):",
        "",
        *(f"- `{ns}::*`: {what}" for ns, what in sorted(SERVICES.items())),
        "",
    ]
    namespace = ""
    for d in docs:
        ns = d["resource_type"].rsplit("::", 1)[0]
        if ns != namespace:
            namespace = ns
            out += [f"## {ns}", ""]
        out += _type_section(d)
    return "\n".join(out)


# ------------------------------------------------------------------------------ plan and state formats

_SCHEMA_INTROS = {
    "plan": (
        "Plan format",
        "planner/plan.schema.json",
        "What `hotc plan --format json` and `hotc show PLANFILE --format json` print, modelled on Terraform's "
        "`show -json`. A saved plan file (`hotc plan -o FILE`) holds this document and the inputs it was made "
        "from (templates, environments, `get_file` contents, parameter values with hidden ones as digests "
        "only, the state's lineage and serial); `hotc apply FILE` refuses it when the state or the template "
        "moved since. The other JSON documents hotc prints are listed in [JSON output](../json-output.md).",
    ),
    "state": (
        "State format",
        "state/state.schema.json",
        "One JSON document per stack, written by every state-changing command (how and where: "
        "[State and backends](../concepts/state.md)). Older format versions are upgraded when read and "
        "written back in the current one. Hidden values are stored as a digest plus ciphertext "
        "([Secrets](../concepts/secrets.md)).",
    ),
}


def _schema_type(node: Any) -> str:
    if not isinstance(node, dict):
        return "any"
    if "$ref" in node:
        return "`" + str(node["$ref"]).rsplit("/", 1)[-1] + "`"
    if "const" in node:
        return _value(node["const"])
    if "enum" in node:
        return " \\| ".join(_value(v) for v in node["enum"])
    if "oneOf" in node or "anyOf" in node:
        return " or ".join(_schema_type(n) for n in node.get("oneOf", node.get("anyOf", [])))
    kind = node.get("type", "any")
    kind = " or ".join(kind) if isinstance(kind, list) else str(kind)
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"array of {_schema_type(node['items'])}"
    return kind


def _fields(node: dict[str, Any]) -> list[str]:
    props = node.get("properties", {})
    if not props:
        return []
    required = set(node.get("required", ()))
    lines = ["| field | type | required | what it is |", "| --- | --- | --- | --- |"]
    for name, sub in props.items():
        sub = sub if isinstance(sub, dict) else {}
        lines.append(
            f"| `{name}` | {_schema_type(sub)} | {'yes' if name in required else ''} "
            f"| {_cell(str(sub.get('description', '')))} |"
        )
    return [*lines, ""]


def schema_page(which: str) -> str:
    """A format's page from its JSON schema, shipped in the hotc package."""
    from importlib.resources import files

    title, path, intro = _SCHEMA_INTROS[which]
    text = files("hotc").joinpath(path).read_text(encoding="utf-8")
    schema = json.loads(text)
    out = [f"# {title}", "", intro, "", f"Generated from `hotc/{path}` each time the site is built.", ""]
    out += [f"**{_cell(str(schema.get('title', '')))}.** {_cell(str(schema.get('description', '')))}", ""]
    out += ["## Top level", "", *_fields(schema)]
    for name, sub in schema.get("$defs", {}).items():
        if not isinstance(sub, dict):
            continue
        out += [f"## `{name}`", ""]
        if sub.get("description"):
            out += [_cell(str(sub["description"])), ""]
        out += _fields(sub) or [f"Type: {_schema_type(sub)}.", ""]
    out += ["## The whole schema", "", '??? note "' + path.rsplit("/", 1)[-1] + '"', ""]
    out += ["    ```json", *("    " + line for line in text.rstrip().splitlines()), "    ```", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------- the hook

PAGES = {
    CLI_PAGE: cli_page,
    TYPES_PAGE: resource_types_page,
    "reference/plan-format.md": lambda: schema_page("plan"),
    "reference/state-format.md": lambda: schema_page("state"),
}


def on_files(files: Any, config: Any) -> Any:
    """mkdocs event: add the generated pages to the site's files."""
    from mkdocs.structure.files import File

    for src_uri, make in PAGES.items():
        files.append(File.generated(config, src_uri, content=make()))
    return files


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "cli"
    sys.stdout.write(PAGES[f"reference/{which}.md"]())
