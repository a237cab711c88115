"""Where a stack's state lives: ``--backend``, env ``HOTC_BACKEND``, ``hotc.toml``, or ``.hotc/``.

``hotc.toml`` in the working directory or the nearest parent that has one (the project's root; the default
``.hotc/`` is beside it)::

    [backend]
    url = "s3://my-bucket/hotc"      # or "local" / a directory
    path_style = true                # S3-compatible stores that need path-style addressing
    endpoint_url = "http://127.0.0.1:9000"
    region = "us-east-1"
    profile = "ops"
    lease_seconds = 60
    max_attempts = 5
"""

from __future__ import annotations

import tomllib
from dataclasses import field
from pathlib import Path
from typing import Any

from hotc.errors import HotcError
from hotc.model import model

BACKEND_ENV = "HOTC_BACKEND"
CONFIG_FILE = "hotc.toml"
LOCAL_DIR = ".hotc"

S3_OPTIONS: dict[str, Any] = {
    "path_style": bool,
    "endpoint_url": str,
    "region": str,
    "profile": str,
    "lease_seconds": (int, float),
    "max_attempts": int,
    "connect_timeout": (int, float),
    "read_timeout": (int, float),
}
LOCAL_OPTIONS: dict[str, Any] = {"fsync": bool}


@model
class BackendConfig:
    kind: str  # "local" | "s3"
    path: str = ""  # local directory
    bucket: str = ""
    prefix: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    origin: str = "default"  # where the choice came from, for messages


def parse_url(url: str, cwd: Path, origin: str) -> BackendConfig:
    url = url.strip()
    if url.startswith("s3://"):
        rest = url[len("s3://") :]
        bucket, _, prefix = rest.partition("/")
        if not bucket:
            raise HotcError(f"{origin}: error: backend URL {url!r} has no bucket; use s3://BUCKET/PREFIX")
        return BackendConfig(kind="s3", bucket=bucket, prefix=prefix.strip("/"), origin=origin)
    if url in ("", "local"):
        return BackendConfig(kind="local", path=str(cwd / LOCAL_DIR), origin=origin)
    if "://" in url and not url.startswith("file://"):
        raise HotcError(
            f"{origin}: error: unsupported backend URL {url!r}; use s3://BUCKET/PREFIX, local, or a directory"
        )
    path = url.removeprefix("file://").removeprefix("local:")
    p = Path(path).expanduser()
    return BackendConfig(kind="local", path=str(p if p.is_absolute() else cwd / p), origin=origin)


def _read_toml(cwd: Path) -> dict[str, Any] | None:
    f = cwd / CONFIG_FILE
    if not f.is_file():
        return None
    try:
        with f.open("rb") as fh:
            doc = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise HotcError(f"{f}: error: {exc}; fix the file (see the [backend] table in the docs)") from None
    except OSError as exc:
        raise HotcError(f"{f}: error: cannot read: {exc.strerror}") from None
    table = doc.get("backend")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise HotcError(f"{f}: error: 'backend' must be a table ([backend])")
    return table


def _check_options(table: dict[str, Any], kind: str, origin: str) -> dict[str, Any]:
    allowed: dict[str, Any] = S3_OPTIONS if kind == "s3" else LOCAL_OPTIONS
    out: dict[str, Any] = {}
    for k, v in table.items():
        if k == "url":
            continue
        if k not in allowed:
            raise HotcError(
                f"{origin}: error: unknown [backend] option {k!r} for a {kind} backend; known: "
                + ", ".join(sorted(allowed))
            )
        want = allowed[k]
        if not isinstance(v, want) or (isinstance(v, bool) and want is not bool):
            raise HotcError(
                f"{origin}: error: [backend] option {k!r} has the wrong type ({type(v).__name__})"
            )
        out[k] = v
    return out


def project_dir(cwd: Path) -> Path:
    """The directory of the nearest ``hotc.toml`` (``cwd`` or a parent, as git finds ``.git``), else ``cwd``:
    a project's default local state is beside its project file, wherever in the project a command runs."""
    here = cwd.resolve()
    for d in (here, *here.parents):
        if (d / CONFIG_FILE).is_file():
            return d
    return cwd


def project_relative(path: str | Path, root: Path, *, cwd: Path | None = None) -> str:
    """``path`` (relative to ``cwd``, default the working directory) as a project shows it: relative to
    ``root`` (forward slashes) when it lies inside it, else absolute, so the text reads the same from any
    checkout of the project."""
    full = ((cwd or Path.cwd()) / path).resolve()
    try:
        return full.relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return full.as_posix()


def project_paths(
    root: Path,
    template: Path,
    environments: tuple[Path, ...] | list[Path],
    parameter_files: dict[str, Path],
    backend: Any,
    *,
    cwd: Path | None = None,
) -> dict[str, Any]:
    """A plan's input files and its backend as a pull-request comment shows them (see
    :func:`project_relative`): ``template``, ``environments``, ``parameter_files`` and ``backend`` (a local
    directory relative to the root, any other backend as it describes itself)."""
    local = getattr(backend, "dir", None)
    return {
        "template": project_relative(template, root, cwd=cwd),
        "environments": [project_relative(e, root, cwd=cwd) for e in environments],
        "parameter_files": {k: project_relative(p, root, cwd=cwd) for k, p in parameter_files.items()},
        "backend": (
            f"local directory {project_relative(local, root, cwd=cwd)}"
            if isinstance(local, Path)
            else backend.describe()
        ),
    }


def resolve_backend_config(url: str | None, cwd: Path, env: dict[str, str]) -> BackendConfig:
    root = project_dir(cwd)
    table = _read_toml(root)
    toml_origin = str(root / CONFIG_FILE)
    if url:
        cfg = parse_url(url, cwd, "--backend")
    elif env.get(BACKEND_ENV):
        cfg = parse_url(env[BACKEND_ENV], cwd, BACKEND_ENV)
    elif table is not None and table.get("url") is not None:
        if not isinstance(table["url"], str):
            raise HotcError(f"{toml_origin}: error: [backend] url must be a string")
        cfg = parse_url(table["url"], root, toml_origin)
    else:
        cfg = BackendConfig(kind="local", path=str(root / LOCAL_DIR), origin="default")
    # Options in hotc.toml apply when it names the same kind of backend (or names none).
    if table is not None:
        toml_kind = (
            parse_url(table["url"], root, toml_origin).kind if isinstance(table.get("url"), str) else cfg.kind
        )
        if toml_kind == cfg.kind:
            cfg = BackendConfig(
                cfg.kind,
                cfg.path,
                cfg.bucket,
                cfg.prefix,
                _check_options(table, cfg.kind, toml_origin),
                cfg.origin,
            )
    return cfg
