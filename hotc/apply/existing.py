"""``--existing`` (Heat's ``stack update --existing``): plan or apply with the template, environments and
parameters recorded by the last apply, overriding only what the command gives.

The stored files are written to a temporary directory (same relative layout, so ``get_file`` and nested
templates resolve as they did) for as long as the command runs. Merge order, as Heat's PATCH update: the stored
environments, then the environments given now; the stored parameter values, except those an environment given
now or a ``--parameter`` sets; ``--parameter`` wins over everything. A stored value equal to the template's
default is not passed on (so a new template given with ``-t`` keeps its own defaults). Hidden parameters come
back decrypted with the state key, or must be given again when the state holds only their digest.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from hotc.errors import HotcError
from hotc.model import model
from hotc.parser.api import NO_TYPE_CHECKS, load_stack
from hotc.state import backend_from_config, hidden_env
from hotc.state.codec import reveal_parameter
from hotc.state.document import StackState
from hotc.state.secrets import decrypt


@model
class ExistingInputs:
    template: Path
    environments: list[Path]
    parameters: dict[str, str]
    parameter_files: dict[str, Path]


def _env_parameter_names(path: Path) -> set[str]:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return set()  # the loader reports a broken environment properly
    if not isinstance(doc, dict):
        return set()
    names: set[str] = set()
    for section in ("parameters", "parameter_defaults"):
        sec = doc.get(section)
        if isinstance(sec, dict):
            names |= {str(k) for k in sec}
    return names


def _drop_undeclared_parameters(path: Path, declared: set[str]) -> None:
    """Rewrite the stored environment at ``path`` (a temporary copy) without the ``parameters`` entries the
    template does not declare (``parameter_defaults`` stay: Heat ignores undeclared ones there anyway)."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return  # the loader reports a broken environment properly
    if not isinstance(doc, dict) or not isinstance(doc.get("parameters"), dict):
        return
    kept = {k: v for k, v in doc["parameters"].items() if str(k) in declared}
    if len(kept) == len(doc["parameters"]):
        return
    doc["parameters"] = kept
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")


def cli_text(value: Any, kind: str) -> str:
    """A stored parameter value as ``--parameter`` text for a parameter of type ``kind``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "comma_delimited_list" and isinstance(value, list):
        return ",".join(str(v) for v in value)
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


def restore_hidden_values(
    record: Mapping[str, Any], key: bytes | None, parameters: Mapping[str, str]
) -> dict[str, str]:
    """The stored files with the hidden values the state's writer took out of the environment files put back:
    each one given again now with ``--parameter``, or else decrypted with the state key. Without either, the
    command stops and says which to give."""
    files = dict(record.get("files") or {})
    kept: Mapping[str, Any] = record.get(hidden_env.RECORD_KEY) or {}
    need: list[str] = []
    for rel, text in list(files.items()):
        if not isinstance(text, str) or not hidden_env.markers(text):
            continue
        found = kept.get(rel)
        per: Mapping[str, Any] = found if isinstance(found, Mapping) else {}

        def put_back(section: str, name: str, per: Mapping[str, Any] = per, rel: str = rel) -> str | None:
            if name in parameters:
                return hidden_env.value_text(parameters[name])
            sealed = (per.get(section) or {}).get(name)
            if key is not None and isinstance(sealed, Mapping) and isinstance(sealed.get("encrypted"), str):
                return str(decrypt(sealed["encrypted"], key))
            need.append(f"{name} ({rel}, {section})")
            return None

        files[rel] = hidden_env.refill(text, put_back)
    if need:
        raise HotcError(
            "--existing: the state keeps only a digest of the hidden value(s) given in environment files: "
            + ", ".join(need)
            + " (no state key): give them again with --parameter NAME=VALUE, or give the environment again with -e"
        )
    return files


@contextmanager
def existing_inputs(
    state: StackState | None,
    stack: str,
    key: bytes | None,
    template: Path | None,
    environments: list[Path],
    parameters: Mapping[str, str],
    parameter_files: Mapping[str, Path],
) -> Iterator[ExistingInputs]:
    record = state.template if state is not None else {}
    files: Mapping[str, str] = (record or {}).get("files") or {}
    main = (record or {}).get("main")
    if state is None or not main or main not in files:
        raise HotcError(
            f"--existing: stack {stack!r} has no stored template (it was never applied, or it was destroyed); "
            "give the template with -t instead"
        )
    with tempfile.TemporaryDirectory(prefix="hotc-existing-") as tmp:
        root = Path(tmp) / "stack"
        files = restore_hidden_values(record, key, parameters)
        for rel, text in files.items():
            target = (root / rel).resolve()
            if not str(target).startswith(str(root.resolve()) + os.sep):
                raise HotcError(f"--existing: the state's stored file {rel!r} leaves its directory; not used")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        main_path = template if template is not None else root / main
        stored_envs = [root / e for e in (record.get("environments") or []) if e in files]
        envs = [*stored_envs, *environments]
        # the parameters' types and defaults, from the template as it will be loaded
        probe, _diags = load_stack(  # only the declared parameters are read: no type checks needed
            str(main_path), [str(e) for e in envs], {}, {}, require_values=False, checks=NO_TYPE_CHECKS
        )
        declared = probe.template.parameters if probe is not None else {}
        if probe is not None:
            # Heat's PATCH update keeps the stored environment's parameters, loads the new ones over them, then
            # drops every name the template does not declare (heat/engine/service.py, _parse_template_and_
            # validate_stack with PARAM_EXISTING): a value for a parameter the new template no longer has is
            # forgotten, not refused
            for env in stored_envs:
                _drop_undeclared_parameters(env, set(declared))
            parameters = {k: v for k, v in parameters.items() if k in declared}
            parameter_files = {k: v for k, v in parameter_files.items() if k in declared}
        overridden = set(parameters) | set(parameter_files)
        for e in environments:
            overridden |= _env_parameter_names(e)
        params: dict[str, str] = {}
        need: list[str] = []
        for name, rec in state.parameters.items():
            if name in overridden or name not in declared:
                continue
            value = reveal_parameter(rec, key)
            if rec.hidden and value is None:
                need.append(name)
                continue
            p = declared[name]
            if not rec.hidden and value == getattr(p, "default", object()):
                continue
            params[name] = cli_text(value, str(getattr(p, "type", "string")))
        if need:
            raise HotcError(
                "--existing: the state keeps only a digest of the hidden parameter(s) "
                + ", ".join(sorted(need))
                + " (no HOTC_STATE_KEY): give them again with --parameter NAME=VALUE"
            )
        params.update(parameters)
        yield ExistingInputs(main_path, envs, params, dict(parameter_files))


@contextmanager
def existing_from_backend(
    backend_url: str | None,
    stack: str | None,
    lock_timeout: float,
    template: Path | None,
    environments: list[Path],
    parameters: Mapping[str, str],
    parameter_files: Mapping[str, Path],
    cwd: Path | None = None,
) -> Iterator[ExistingInputs]:
    """:func:`existing_inputs` for the stack's state in its backend (read under the lock)."""
    if not stack:
        raise HotcError("--existing needs the STACK name (its stored template is used)")
    backend: Any = backend_from_config(backend_url, cwd)
    with backend.lock(stack, "plan", timeout=lock_timeout):
        state, _token = backend.read(stack)
    with existing_inputs(
        state, stack, getattr(backend, "key", None), template, environments, parameters, parameter_files
    ) as inputs:
        yield inputs
