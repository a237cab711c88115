"""``hotc import``: take over objects that already exist (owned by the importer).

    hotc import STACK ADDRESS ID -t T [-e E]... [--parameter K=V]...      one object
    hotc import STACK --file MAP -t T [-e E]...                            many: MAP is YAML/JSON {address: id}
    hotc import STACK --from-heat HEAT_STACK DIR [--abandon]               migrate a live Heat stack
    hotc import STACK --generate DIR (--id ID... | --name-prefix P | --tag T | --reachable-from ID)
                                                                          write a template for running objects
    [--deny ACTION:TYPE_GLOB]... [--warn ...]... [--policy-file F]        the policy (as for hotc plan)

The template must declare every address. The objects are read from the cloud and recorded with their live
properties; nothing in the cloud changes. Afterwards ``hotc plan`` shows how they differ from the template.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from hotc.cli.apply import RunFmtOpt, policy_of
from hotc.cli.common import (
    DEFAULT_MAX_TEMPLATE_SIZE,
    BackendOpt,
    EnvOpt,
    MaxSizeOpt,
    ParamFileOpt,
    ParamOpt,
    parse_parameter_files,
    parse_parameters,
)
from hotc.cli.plan import DenyOpt, PolicyOpt, WarnOpt
from hotc.errors import HotcError

OsCloudOpt = Annotated[
    str | None,
    typer.Option("--os-cloud", help="Cloud name in clouds.yaml (default: OS_CLOUD / OS_* variables)."),
]
LockTimeoutOpt = Annotated[float, typer.Option("--lock-timeout", help="Seconds to wait for the state lock.")]


def read_map(path: Path) -> list[tuple[str, str]]:
    """An import map: a YAML or JSON mapping ``address: id``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HotcError(f"--file {path}: cannot read: {exc.strerror or exc}") from exc
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise HotcError(f"--file {path}: not valid YAML/JSON: {exc}") from exc
    if not isinstance(data, dict) or not data:
        raise HotcError(f"{path}: an import map is a non-empty mapping of resource address to object id")
    out: list[tuple[str, str]] = []
    for addr, pid in data.items():
        if not isinstance(addr, str) or not isinstance(pid, str) or not addr or not pid:
            raise HotcError(
                f"{path}: entry {addr!r}: {pid!r}: expected 'ADDRESS: ID' with both non-empty strings"
            )
        out.append((addr, pid))
    return out


def import_wiring(os_cloud: str | None, max_size: int = DEFAULT_MAX_TEMPLATE_SIZE) -> Any:
    """apply's wiring, its loader saying "nothing was imported" when the template has errors."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.apply import apply_wiring
    from hotc.cli.common import load_for_command

    def load(template: Path, envs: list[Path], params: Any, pfiles: Any, **kw: Any) -> Any:
        return load_for_command(
            template,
            envs,
            dict(params),
            dict(pfiles),
            verb="imported",
            embeds_files=True,
            max_size=max_size,
            **kw,
        )

    return replace(apply_wiring(os_cloud), load=load)


def import_command(
    stack: Annotated[str, typer.Argument(help="The hotc stack to import into.")],
    address: Annotated[
        str | None,
        typer.Argument(help="Resource address in the template (with --from-heat: the output DIRECTORY)."),
    ] = None,
    physical_id: Annotated[
        str | None, typer.Argument(metavar="[ID]", help="The object's id in the cloud.")
    ] = None,
    template: Annotated[Path | None, typer.Option("-t", "--template", help="HOT template file.")] = None,
    environment: EnvOpt = None,
    parameter: ParamOpt = None,
    parameter_file: ParamFileOpt = None,
    file: Annotated[
        Path | None, typer.Option("--file", help="YAML/JSON map of address -> id: import them all at once.")
    ] = None,
    from_heat: Annotated[
        str | None,
        typer.Option("--from-heat", metavar="HEAT_STACK", help="Migrate this live Heat stack (name or id)."),
    ] = None,
    abandon: Annotated[
        bool,
        typer.Option("--abandon", help="With --from-heat: ask Heat to abandon the stack (resources stay)."),
    ] = False,
    generate: Annotated[
        Path | None,
        typer.Option(
            "--generate",
            metavar="DIR",
            help="Write DIR/template.yaml, parameters.yaml and import-map.yaml for the objects selected by --id, "
            "--name-prefix, --tag or --reachable-from (then: hotc import STACK --file DIR/import-map.yaml ...).",
        ),
    ] = None,
    ids: Annotated[
        list[str] | None, typer.Option("--id", help="With --generate: this object (repeatable).")
    ] = None,
    name_prefix: Annotated[
        str | None, typer.Option("--name-prefix", help="With --generate: the objects whose name starts so.")
    ] = None,
    tag: Annotated[
        str | None, typer.Option("--tag", help="With --generate: the objects with this tag.")
    ] = None,
    reachable_from: Annotated[
        str | None,
        typer.Option(
            "--reachable-from", metavar="ID", help="With --generate: all connected to this network or server."
        ),
    ] = None,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    os_cloud: OsCloudOpt = None,
    max_template_size: MaxSizeOpt = DEFAULT_MAX_TEMPLATE_SIZE,
    fmt: RunFmtOpt = "text",
    deny: DenyOpt = None,
    warn: WarnOpt = None,
    policy_file: PolicyOpt = None,
) -> None:
    """Take over existing objects: record them in the stack's state (nothing in the cloud changes). The
    imports are held to --deny, --warn and --policy-file (an import is a 'create' of its type: a broken deny
    rule refuses it, exit 3, nothing recorded)."""
    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose one of text, json")
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.apply import _last_event_id

    before = _last_event_id(stack, backend)
    out = sys.stdout if fmt == "text" else sys.stderr
    selection = (ids, name_prefix, tag, reachable_from)
    if generate is not None:
        _generate(stack, generate, address, template, file, from_heat, selection, os_cloud)
        return
    if any(selection):
        raise HotcError("--id, --name-prefix, --tag and --reachable-from go with --generate DIR")
    if from_heat is not None:
        if address is None or physical_id is not None:
            raise HotcError(
                "--from-heat HEAT_STACK takes one DIRECTORY: hotc import STACK --from-heat HEAT DIR"
            )
        if template is not None or file is not None or environment or parameter_file:
            raise HotcError(
                "--from-heat reads the template, environment and parameters from Heat: do not give -t/-e/"
                "--parameter-file/--file (--parameter only for hidden parameters Heat masks)"
            )
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.ops.from_heat import run_from_heat

        code = run_from_heat(
            stack=stack,
            heat_stack=from_heat,
            directory=Path(address),
            abandon=abandon,
            backend_url=backend,
            lock_timeout=lock_timeout,
            out=out,
            err=sys.stderr,
            wiring=import_wiring(os_cloud, max_template_size),
            params=parse_parameters(parameter),
            policy=policy_of(deny, warn, policy_file),
        )
        _print_doc(fmt, stack, backend, before, code)
        return
    if abandon:
        raise HotcError("--abandon goes with --from-heat")
    if template is None:
        raise HotcError("give the template that declares the resources with -t TEMPLATE")
    if file is not None:
        if address is not None:
            raise HotcError("give either ADDRESS ID or --file MAP, not both")
        requests = read_map(file)
    else:
        if address is None or physical_id is None:
            raise HotcError("give ADDRESS and ID (hotc import STACK ADDRESS ID -t T), or --file MAP")
        requests = [(address, physical_id)]
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.import_ import run_import

    code = run_import(
        stack=stack,
        requests=requests,
        template=template,
        envs=list(environment or []),
        params=parse_parameters(parameter),
        pfiles=parse_parameter_files(parameter_file),
        backend_url=backend,
        lock_timeout=lock_timeout,
        out=out,
        err=sys.stderr,
        wiring=import_wiring(os_cloud, max_template_size),
        policy=policy_of(deny, warn, policy_file),
    )
    _print_doc(fmt, stack, backend, before, code)


def _generate(
    stack: str,
    directory: Path,
    address: str | None,
    template: Path | None,
    file: Path | None,
    from_heat: str | None,
    selection: tuple[list[str] | None, str | None, str | None, str | None],
    os_cloud: str | None,
) -> None:
    if address is not None or template is not None or file is not None or from_heat is not None:
        raise HotcError(
            "--generate DIR writes the template: give no ADDRESS, -t, --file or --from-heat with it"
        )
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.generate import run_generate
    from hotc.providers.openstack.discover import Selection

    ids, name_prefix, tag, reachable_from = selection
    sel = Selection(ids=tuple(ids or ()), name_prefix=name_prefix, tag=tag, reachable_from=reachable_from)
    code = run_generate(
        stack=stack, directory=directory, selection=sel, wiring=import_wiring(os_cloud), out=sys.stdout
    )
    if code:
        raise typer.Exit(code)


def _print_doc(fmt: str, stack: str, backend: str | None, before: str | None, code: int) -> None:
    """``--format json``: what the import recorded (its events), then the exit code."""
    if fmt == "json":
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.cli.apply import _run_doc

        sys.stdout.write(json.dumps({**_run_doc(stack, backend, before), "exit_code": code}, indent=2) + "\n")
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
