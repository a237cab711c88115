"""The project file's stacks: ``hotc.toml`` found in the working directory or one of its parents (as git finds
``.git``) pins, per stack, what a command would otherwise take from its flags::

    [stacks.web]
    template = "web/template.yaml"          # relative to the directory of hotc.toml
    environments = ["env/common.yaml", "env/prod.yaml"]
    parameters = {replicas = "3"}
    parameter_files = {ssh_key = "keys/web.pub"}
    backend = "s3://team-state/hotc"        # else [backend], HOTC_BACKEND, .hotc/ beside hotc.toml
    policy_files = ["policy/prod.toml"]
    deny = ["delete:OS::Cinder::Volume"]
    warn = ["replace:*"]
    parallelism = 10
    moves = ["server=web"]                  # planned moves OLD=NEW (docs/guides/moves.md)

With such a file, ``hotc plan``/``hotc apply`` with no ``-t`` work on its stacks (``hotc plan web``, or every
stack when none is named), and ``hotc init`` writes one from the flags given. Flags given on the command line
win over what the file pins. Without a project file, every command works as it does without one.

The stack's identity is its name here; the state records the template's path relative to the project root
(:func:`template_identity`), so that two files both called ``template.yaml`` are never taken for one stack.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from hotc.errors import HotcError
from hotc.model import model

PROJECT_FILE = "hotc.toml"

_KEYS: dict[str, Any] = {
    "template": str,
    "environments": list,
    "parameters": dict,
    "parameter_files": dict,
    "backend": str,
    "policy_files": list,
    "deny": list,
    "warn": list,
    "parallelism": int,
    "moves": list,
}


@model
class StackEntry:
    """One ``[stacks.NAME]`` table, paths made absolute against the project root."""

    name: str
    template: Path
    environments: tuple[Path, ...] = ()
    parameters: Mapping[str, str] = field(default_factory=dict)
    parameter_files: Mapping[str, Path] = field(default_factory=dict)
    backend: str | None = None
    policy_files: tuple[Path, ...] = ()
    deny: tuple[str, ...] = ()
    warn: tuple[str, ...] = ()
    parallelism: int | None = None
    moves: tuple[str, ...] = ()  # OLD=NEW, as written
    moves_source: str = ""  # where they are written, for messages (``hotc.toml [stacks.NAME].moves``)


@model
class Project:
    path: Path  # the hotc.toml
    stacks: Mapping[str, StackEntry] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.path.parent


def find_project_file(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``hotc.toml``: in ``start`` (default: the working directory) or one of its parents."""
    here = Path(start if start is not None else os.getcwd()).resolve()
    for d in (here, *here.parents):
        candidate = d / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def _entry(name: str, table: Any, root: Path, where: str) -> StackEntry:
    if not isinstance(table, dict):
        raise HotcError(f"{where}: error: [stacks.{name}] must be a table")
    for k, v in table.items():
        kind = _KEYS.get(k)
        if kind is None:
            raise HotcError(
                f"{where}: error: [stacks.{name}] has an unknown key {k!r}; known: {', '.join(sorted(_KEYS))}"
            )
        if not isinstance(v, kind) or isinstance(v, bool):
            raise HotcError(f"{where}: error: [stacks.{name}].{k} must be a {kind.__name__}")
    if "template" not in table:
        raise HotcError(
            f'{where}: error: [stacks.{name}] needs a template (template = "path/to/template.yaml")'
        )

    def path(p: Any, key: str) -> Path:
        if not isinstance(p, str) or not p:
            raise HotcError(f"{where}: error: [stacks.{name}].{key} must hold file paths")
        q = Path(p).expanduser()
        return q if q.is_absolute() else root / q

    return StackEntry(
        name=name,
        template=path(table["template"], "template"),
        environments=tuple(path(p, "environments") for p in table.get("environments", [])),
        parameters={str(k): str(v) for k, v in table.get("parameters", {}).items()},
        parameter_files={
            str(k): path(v, "parameter_files") for k, v in table.get("parameter_files", {}).items()
        },
        backend=table.get("backend"),
        policy_files=tuple(path(p, "policy_files") for p in table.get("policy_files", [])),
        deny=tuple(str(x) for x in table.get("deny", [])),
        warn=tuple(str(x) for x in table.get("warn", [])),
        parallelism=table.get("parallelism"),
        moves=tuple(str(x) for x in table.get("moves", [])),
        moves_source=f"{where} [stacks.{name}].moves",
    )


def load_project(start: str | os.PathLike[str] | None = None) -> Project | None:
    """The project file above ``start``, or None when there is none. A broken file is an error naming it."""
    path = find_project_file(start)
    if path is None:
        return None
    try:
        with path.open("rb") as fh:
            doc = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise HotcError(f"{path}: error: {exc}; fix the file") from None
    except OSError as exc:
        raise HotcError(f"{path}: error: cannot read it: {exc.strerror}") from None
    stacks = doc.get("stacks", {})
    if not isinstance(stacks, dict):
        raise HotcError(f"{path}: error: 'stacks' must be a table of tables ([stacks.NAME])")
    return Project(path, {n: _entry(n, t, path.parent, str(path)) for n, t in stacks.items()})


def template_identity(template: str | os.PathLike[str], project: Project | None) -> str:
    """How the state records where a stack's template is: relative to the project root when the template is
    inside it, else its absolute path."""
    absolute = Path(template).resolve()
    if project is not None:
        try:
            return absolute.relative_to(project.root.resolve()).as_posix()
        except ValueError:
            pass
    return absolute.as_posix()


def _toml_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def init_text(entry: StackEntry, root: Path) -> str:
    """``[stacks.NAME]`` as TOML, paths relative to ``root`` where they are inside it."""

    def rel(p: Path) -> str:
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return p.resolve().as_posix()

    lines = [f"[stacks.{entry.name}]", f"template = {_toml_string(rel(entry.template))}"]
    if entry.environments:
        lines.append("environments = [" + ", ".join(_toml_string(rel(e)) for e in entry.environments) + "]")
    if entry.parameters:
        lines.append(
            "parameters = {"
            + ", ".join(f"{k} = {_toml_string(v)}" for k, v in entry.parameters.items())
            + "}"
        )
    if entry.parameter_files:
        lines.append(
            "parameter_files = {"
            + ", ".join(f"{k} = {_toml_string(rel(v))}" for k, v in entry.parameter_files.items())
            + "}"
        )
    if entry.backend:
        lines.append(f"backend = {_toml_string(entry.backend)}")
    if entry.policy_files:
        lines.append("policy_files = [" + ", ".join(_toml_string(rel(p)) for p in entry.policy_files) + "]")
    for key, values in (("deny", entry.deny), ("warn", entry.warn)):
        if values:
            lines.append(f"{key} = [" + ", ".join(_toml_string(v) for v in values) + "]")
    if entry.parallelism is not None:
        lines.append(f"parallelism = {entry.parallelism}")
    return "\n".join(lines) + "\n"


def refuse_file_as_stack(stack: str | None, template: Path | None, command: str) -> None:
    """A STACK argument that names an existing file is a slip (``hotc apply plan.json -t t.yaml`` would make a
    stack called ``plan.json``): refused, saying what to type."""
    if stack is None or template is None or not Path(stack).is_file():
        return
    raise HotcError(
        f"{stack!r} is a file, not a stack name. A saved plan is applied alone ('hotc apply {stack}'); with "
        f"-t give the stack's NAME (or none: the template's file name gives it): 'hotc {command} -t {template} "
        "NAME'"
    )


def pinned(stack: str | None, template: Path | None, project: Project | None) -> StackEntry | None:
    """The project file's entry for ``stack`` when the command names a stack and gives no template."""
    if template is not None or stack is None or project is None:
        return None
    return project.stacks.get(stack)


@model
class Pinned:
    """A command's options with a pinned stack's settings merged in: what the command gives adds to the
    entry (environments, parameters, rules) or wins over it (backend, policy file, parallelism)."""

    template: Path
    environment: list[Path]
    parameter: list[str]
    parameter_file: list[str]
    backend: str | None
    deny: list[str]
    warn: list[str]
    policy_file: Path | None
    parallelism: int
    moves: list[tuple[str, str]] = field(default_factory=list)  # (OLD=NEW, where it was given)


def merge_pinned(
    entry: StackEntry,
    *,
    environment: list[Path] | None,
    parameter: list[str] | None,
    parameter_file: list[str] | None,
    backend: str | None,
    deny: list[str] | None,
    warn: list[str] | None,
    policy_file: Path | None,
    parallelism: int,
    default_parallelism: int,
    move: list[str] | None = None,
) -> Pinned:
    return Pinned(
        template=entry.template,
        environment=[*entry.environments, *(environment or [])],
        parameter=[f"{k}={v}" for k, v in entry.parameters.items()] + list(parameter or []),
        parameter_file=[f"{k}={v}" for k, v in entry.parameter_files.items()] + list(parameter_file or []),
        backend=backend or entry.backend,
        deny=[*entry.deny, *(deny or [])],
        warn=[*entry.warn, *(warn or [])],
        policy_file=policy_file
        if policy_file is not None or not entry.policy_files
        else entry.policy_files[0],
        parallelism=(
            entry.parallelism
            if parallelism == default_parallelism and entry.parallelism is not None
            else parallelism
        ),
        moves=[(m, entry.moves_source) for m in entry.moves] + [(m, "--move") for m in move or []],
    )
