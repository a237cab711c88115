"""The generate operation (``hotc import STACK --generate DIR``): write a HOT template for objects that run.

The objects are picked (by id, name prefix, tag or what is connected to a network or server) and read through
their types' drivers (:mod:`hotc.providers.openstack.discover`); :func:`hotc.providers.generate.build` makes
the template of them. Written to DIR: ``template.yaml``, ``parameters.yaml`` (an environment) and
``import-map.yaml`` (``address: id``), so that ``hotc import STACK --file DIR/import-map.yaml -t
DIR/template.yaml -e DIR/parameters.yaml`` takes them all over. Nothing in the cloud changes; nothing is
written unless every object was read.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO, Any

import yaml

from hotc.errors import HotcError
from hotc.ops.plan import Wiring
from hotc.providers.generate import Generated, build
from hotc.providers.openstack.discover import Selection, pick, read_found

FILES = ("template.yaml", "parameters.yaml", "import-map.yaml")


class _Dumper(yaml.SafeDumper):
    """Block style, keys in the order given, and dates and version strings quoted as the strings they are."""


def _str(dumper: yaml.SafeDumper, value: str) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def dump(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)


def write_generated(directory: Path, generated: Generated) -> list[Path]:
    """The three files in ``directory`` (made if needed), each written whole (a temporary file renamed)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HotcError(f"--generate {directory}: cannot make the directory: {exc.strerror or exc}") from exc
    docs = {
        "template.yaml": dict(generated.template),
        "parameters.yaml": {"parameters": dict(generated.parameters)},
        "import-map.yaml": dict(generated.import_map),
    }
    written = []
    for name in FILES:
        path = directory / name
        try:
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(dump(docs[name]))
            os.replace(tmp, path)
        except OSError as exc:
            raise HotcError(f"--generate {directory}: cannot write {name}: {exc.strerror or exc}") from exc
        written.append(path)
    return written


def run_generate(
    *,
    stack: str,
    directory: Path,
    selection: Selection,
    wiring: Wiring,
    out: IO[str],
) -> int:
    """Pick, read, build, write; the next command is printed. Returns the exit code (0)."""
    if not (selection.ids or selection.name_prefix or selection.tag or selection.reachable_from):
        raise HotcError(
            "--generate needs a selection: --id ID (repeatable), --name-prefix P, --tag T or --reachable-from ID"
        )
    cloud = wiring.cloud
    conn = cloud()
    picked = pick(conn, selection)
    found = read_found(conn, picked, wiring.drivers, cloud)
    generated = build(found, strip_prefix=selection.name_prefix, default_groups=picked.default_groups)
    write_generated(directory, generated)
    for address, pid in generated.import_map.items():
        kind = next(f.type for f in found if f.id == pid)
        out.write(f"Generated {address} ({kind}): {pid}\n")
    t, e, m = (directory / n for n in FILES)
    out.write(
        f"\nWrote {t}, {e} and {m} ({len(found)} resource(s)); nothing in the cloud was changed. Review them, "
        f"then take the objects over with:\n  hotc import {stack} --file {m} -t {t} -e {e}\n"
    )
    return 0
