"""Which backend a command uses (``--backend``, ``HOTC_BACKEND``, ``hotc.toml``, else ``.hotc/``):
:func:`backend_from_config`. Apart from :mod:`hotc.state.backend` (the backend contract), so that the backends
import the contract and this module imports the backends, never the other way round."""

from __future__ import annotations

import os
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from hotc.state.backend import StateBackend
from hotc.state.config import resolve_backend_config
from hotc.state.local import LocalBackend
from hotc.state.secrets import key_from_env


def backend_from_config(
    url: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    *,
    unsafe_no_locking: bool = False,
    env: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
) -> StateBackend:
    """The backend chosen by ``url`` (``--backend``), else env ``HOTC_BACKEND``, else ``hotc.toml``'s
    ``[backend]`` table in ``cwd``, else the local ``.hotc/`` directory in ``cwd``.

    ``url`` is ``s3://BUCKET[/PREFIX]``, ``local`` / ``local:PATH`` / ``file://PATH``, or a directory path."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    cfg = resolve_backend_config(url, base, env if env is not None else dict(os.environ))
    if options:
        cfg = replace(cfg, options={**cfg.options, **options})
    key = key_from_env(env)
    backend: StateBackend  # mypy checks here that both backends satisfy the protocol
    if cfg.kind == "s3":
        # lazy: most runs use a local state (hotc.state.s3 loads boto3, about half a second, when it connects)
        from hotc.state.s3 import S3Backend

        backend = S3Backend.from_config(cfg, key=key, unsafe_no_locking=unsafe_no_locking)
    else:
        # without HOTC_STATE_KEY, a local state keeps its own key beside it (.hotc/state.key) so secrets are
        # encrypted in the document yet readable by hotc
        backend = LocalBackend(
            Path(cfg.path),
            key=key,
            unsafe_no_locking=unsafe_no_locking,
            key_file=key is None,
            **{k: v for k, v in cfg.options.items() if k in ("fsync",)},
        )
    if url:  # hints that name a command (force-unlock) repeat the --backend the user gave
        backend.cli_flag = f" --backend {shlex.quote(url)}"
    return backend
