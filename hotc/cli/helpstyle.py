"""One help style for every command, applied when :class:`hotc.cli.app.LazyGroup` loads a command's module.

- Plain (click's) layout, as the root's ``--help``: no rich boxes, the same look for ``hotc -h`` and
  ``hotc state push -h``.
- No Python types: every option that takes a value shows a metavar that says what to give (``FILE``,
  ``ADDR``, ``KEY=VALUE``, ``text|json``), never typer's ``<list[Path]>`` or ``<str>``; arguments show their
  name (``STACK``).
- An example (:data:`EXAMPLES`) at the end of every command's help; a group's listing gives each
  command's whole first sentence.
- Shell completion: ``--format`` offers the formats its help names, and a STACK argument (or a PLANFILE-or-
  STACK one) the stacks of the backend (``--backend`` when given before it, else the configured one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from typer._click.shell_completion import CompletionItem

# Metavars by parameter name (the function argument typer names the option after)
OPTION_METAVARS: dict[str, str] = {
    "template": "FILE",
    "environment": "FILE",
    "parameter": "KEY=VALUE",
    "parameter_file": "KEY=FILE",
    "out": "FILE",
    "target": "ADDR",
    "target_": "ADDR",
    "exclude": "ADDR",
    "replace_": "ADDR",
    "deny": "ACTION:TYPE_GLOB",
    "warn": "ACTION:TYPE_GLOB[@ADDR_GLOB]",
    "policy_file": "FILE",
    "prices": "FILE",
    "parallelism": "N",
    "backend": "URL|DIR",
    "lock_timeout": "SECONDS",
    "os_cloud": "CLOUD",
    "signal_store": "URL",
    "import_": "ADDRESS=ID",
    "max_template_size": "BYTES",
    "timeout": "TYPE=SECONDS",
    "stack_name": "NAME",
    "nested_depth": "N",
    "poll": "SECONDS",
    "interval": "SECONDS",
    "data": "JSON",
    "data_file": "FILE",
    "file": "FILE",
    "listen": "HOST:PORT",
    "filter_": "GLOB",
    "fail_on": "SEVERITY",
}
# By value type, for an option the table does not name
TYPE_METAVARS: dict[str, str] = {"Path": "FILE", "int": "N", "float": "NUMBER", "str": "TEXT"}
ARGUMENT_METAVARS: dict[str, str] = {
    "what": "PLANFILE | STACK",
    "target": "PLANFILE | STACK",
    "type_name": "TYPE",
    "addresses": "ADDR",
    "address": "ADDR",
    "physical_id": "[ID]",
}
KNOWN_FORMATS = ("text", "json", "markdown", "sarif", "dot", "mermaid", "svg", "png")
STACK_ARGUMENTS = frozenset({"stack", "what", "target"})

# One example per command (``hotc`` + the command's path), shown at the end of its help
EXAMPLES: dict[str, tuple[str, ...]] = {
    "apply": (
        "hotc apply -t web.yaml -e prod.env.yaml --parameter replicas=3",
        "hotc plan -t web.yaml -o web.plan && hotc apply web.plan",
    ),
    "check": ("hotc check web",),
    "destroy": ("hotc destroy web --auto-approve",),
    "eval": ("hotc eval '{get_param: replicas}' -t web.yaml --parameter replicas=3",),
    "events": ("hotc events web --follow",),
    "force-unlock": ("hotc force-unlock web 3f2a9c1e",),
    "graph": ("hotc graph -t web.yaml --format mermaid",),
    "hook": ("hotc hook poll web",),
    "hook poll": ("hotc hook poll web --format json",),
    "hook clear": ("hotc hook clear web db --pre-create",),
    "import": (
        "hotc import web server 6f1c2d3e-0000-4000-8000-000000000001 -t web.yaml",
        "hotc import web --from-heat legacy-web imported/",
        "hotc import web --generate gen/ --reachable-from NETWORK_ID",
    ),
    "drift": (
        "hotc drift --all --format markdown --backend s3://my-bucket/hotc",
        "hotc drift web --accept 'web[2].port:name' --reason 'renamed by the network team' --until 2027-01-31",
    ),
    "lint": ("hotc lint -t web.yaml --fail-on medium", "hotc lint -t web.yaml --format sarif > lint.sarif"),
    "output": ("hotc output web url --format json",),
    "plan-store": ("hotc plan-store list web",),
    "plan-store put": ("hotc plan-store put web web.plan --pr 123",),
    "plan-store get": ("hotc plan-store get web web.plan --pr 123",),
    "plan-store drop": ("hotc plan-store drop web --pr 123",),
    "plan-store list": ("hotc plan-store list web --format json",),
    "protect": ('hotc protect prod db --reason "holds the customer data"', "hotc protect prod"),
    "plan": (
        "hotc plan -t web.yaml -e prod.env.yaml -o web.plan",
        "hotc plan -t web.yaml --detailed-exitcode --format markdown > comment.md",
    ),
    "resource": ("hotc resource list web",),
    "resource list": ("hotc resource list web --format json",),
    "resource show": ("hotc resource show web server",),
    "resume": ("hotc resume web",),
    "show": ("hotc show web.plan --format json",),
    "signal": ('hotc signal web wait_handle --data \'{"status": "SUCCESS"}\'',),
    "snapshot": ("hotc snapshot list web",),
    "snapshot create": ("hotc snapshot create web --name before-upgrade",),
    "snapshot list": ("hotc snapshot list web --format json",),
    "snapshot show": ("hotc snapshot show web before-upgrade",),
    "snapshot delete": ("hotc snapshot delete web before-upgrade",),
    "snapshot restore": ("hotc snapshot restore web before-upgrade",),
    "stack": ("hotc stack list",),
    "stack list": ("hotc stack list --all --backend s3://my-bucket/hotc",),
    "state": ("hotc state list web",),
    "state list": ("hotc state list web --format json",),
    "state show": ("hotc state show web 'servers[0]'",),
    "state rm": ("hotc state rm web old_port",),
    "state mv": ("hotc state mv web server web_server",),
    "state pull": ("hotc state pull web > web.state.json", "hotc state pull web --version backup"),
    "state push": ("hotc state push web web.state.json",),
    "state history": ("hotc state history web",),
    "state restore": ("hotc state restore web --backup", "hotc state restore web --version 41"),
    "suspend": ("hotc suspend web",),
    "template": ("hotc template show web",),
    "template show": ("hotc template show web --file prod.env.yaml",),
    "types": ("hotc types list --filter 'OS::Nova::*'",),
    "types list": ("hotc types list --filter 'OS::Neutron::*' --format json",),
    "types show": ("hotc types show OS::Nova::Server",),
    "validate": ("hotc validate -t web.yaml -e prod.env.yaml", "hotc validate -t web.yaml --format sarif"),
    "watch": ("hotc watch web --interval 5",),
    "unprotect": ("hotc unprotect prod db",),
    "cancel": ("hotc cancel prod", "hotc cancel prod --no-wait"),
    "init": ("hotc init -t web/template.yaml -e web/prod.yaml web",),
}


def formats_named(help_text: str) -> list[str]:
    """The output formats a ``--format`` help text names, in its order."""
    words = re.findall(r"[a-z]+", help_text)
    return list(dict.fromkeys(w for w in words if w in KNOWN_FORMATS))


def _complete_formats(formats: list[str]) -> Any:
    def complete(ctx: Any, param: Any, incomplete: str) -> list[str]:
        return [f for f in formats if f.startswith(incomplete)]

    return complete


def stack_names(backend_url: str | None) -> list[str]:
    """The stacks of the backend, for completion: nothing (never an error) when it cannot be read."""
    try:
        # lazy: hotc --help does not load the state (only completion reads it)
        from hotc.state import backend_from_config

        return sorted(backend_from_config(backend_url).list_stacks())
    except Exception:  # noqa: BLE001 - completion must never fail the shell
        return []


def _complete_stacks(with_files: bool) -> Any:
    def complete(ctx: Any, param: Any, incomplete: str) -> list[Any]:
        names = [s for s in stack_names(ctx.params.get("backend")) if s.startswith(incomplete)]
        items = [CompletionItem(s) for s in names]
        if with_files:
            items.append(CompletionItem(incomplete, type="file"))
        return items

    return complete


def _no_type(ctx: Any) -> None:
    return None


def _usage_name(p: Any) -> Any:
    def usage() -> str:  # click's own form: STACK, [STACK], ADDR... (typer writes {STACK})
        name = str(p.metavar)
        if not p.required and not name.startswith("["):
            name = f"[{name}]"
        return name + ("..." if p.nargs != 1 else "")

    return usage


def _commands(cmd: Any, path: str) -> Iterator[tuple[str, Any]]:
    yield path, cmd
    for name, sub in getattr(cmd, "commands", {}).items():
        yield from _commands(sub, f"{path} {name}")


def tidy(name: str, cmd: Any) -> None:
    """Apply the house help style to the command ``name`` (and its sub-commands)."""
    for path, c in _commands(cmd, name):
        c.rich_markup_mode = None
        examples = EXAMPLES.get(path)
        if examples and not getattr(c, "_hotc_examples", False):
            text = "\b\nExample:\n" + "\n".join("  " + e for e in examples)
            c.epilog = f"{c.epilog}\n\n{text}" if c.epilog else text
            c._hotc_examples = True
        for sub in getattr(c, "commands", {}).values():
            if sub.short_help is None and sub.help:
                first = sub.help.strip().split("\n\n")[0]
                sub.short_help = " ".join(first.split())
        for p in c.params:
            _tidy_param(p)


def _tidy_param(p: Any) -> None:
    if p.name == "help" or getattr(p, "_hotc_tidy", False):
        return
    p._hotc_tidy = True
    if isinstance(getattr(p, "help", None), str):
        p.help = p.help.replace("\\[", "[")  # an escape for rich markup, shown as is in the plain layout
    kind = getattr(p, "param_type_name", "")
    desc = getattr(p, "type_descriptor", None)
    annotation = getattr(desc, "annotation", None)
    leaf = getattr(annotation, "__args__", (annotation,))[0] if annotation is not None else None
    leaf_name = getattr(leaf, "__name__", "")
    if kind == "argument":
        if p.metavar is None:
            p.metavar = ARGUMENT_METAVARS.get(p.name, p.name.rstrip("_").upper())
        p.display_type_rich = _no_type  # the metavar says it; typer would add <str>
        p._usage_display_name = _usage_name(p)
        if p.name in STACK_ARGUMENTS and p._custom_shell_complete is None:
            p._custom_shell_complete = _complete_stacks(with_files=p.name != "stack")
        return
    if kind != "option" or getattr(p, "is_flag", False):
        return
    if p.name == "fmt":
        formats = formats_named(p.help or "")
        if formats:
            if p.metavar is None:
                p.metavar = "|".join(formats)
            if p._custom_shell_complete is None:
                p._custom_shell_complete = _complete_formats(formats)
    if p.metavar is None:
        p.metavar = OPTION_METAVARS.get(p.name) or TYPE_METAVARS.get(leaf_name, "VALUE")
