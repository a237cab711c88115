"""The parse trees of call shapes, kept on disk from one process to the next (start-up time).

:class:`hotc.parser.grammar.Grammar` parses each token shape of a call once per process and remembers the tree.
The first shape a process parses costs importing lark and loading its LALR tables (about 80 ms, more than a
small template's whole validate). This store keeps the trees lark built for valid shapes in a file, so a
later process parses the shapes it has seen before without lark at all.

- **Where:** ``$HOTC_SHAPE_CACHE`` (a directory; ``0``/``off`` turns the store off), else
  ``$XDG_CACHE_HOME/hotc/shapes/`` (``~/.cache/hotc/shapes/``).
- **Which file:** ``shapes-<digest>.jsonl``. The digest covers everything a tree depends on: the grammar's
  text, the function table, the code that makes shape codes and tokens (``grammar.py``, ``grammar_lexer.py``),
  this module and lark's version. Change any and the file is another one: a tree is never read back for a
  grammar that did not build it.
- **What:** one JSON line per shape, ``[version_date, start, codes, tree]``, appended with one ``write`` (lines
  are short, so concurrent processes do not interleave them); a tree is ``[rule, [child...]]``, a token
  ``[terminal, leaf_index]``. Only valid shapes are kept (a syntax error goes through lark each time). A line
  that does not decode is skipped; a file over :data:`MAX_BYTES` is started again.
- **Failures** (no home directory, a read-only disk): the store is off for the process; nothing is reported.

The trees read back are :class:`StoredTree`/:class:`StoredToken`: what :mod:`hotc.parser.expr` reads of lark's
(``data``, ``children``; a token is a ``str`` with ``type`` and ``value``). tests/frontend/test_shapes.py holds
the IR built from stored trees equal to the IR built from lark's, over the corpus.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ENV = "HOTC_SHAPE_CACHE"

#: a store file larger than this is started again (a few thousand shapes)
MAX_BYTES = 4 << 20

#: a line longer than this is not kept: appends up to this size are not interleaved by concurrent writers
_MAX_LINE = 4000

Key = tuple[str, str, tuple[str, ...]]


class StoredTree:
    """A rule node of a stored parse tree (the part of ``lark.Tree`` the IR builder reads)."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list[Any]) -> None:
        self.data = data
        self.children = children

    def __repr__(self) -> str:
        return f"StoredTree({self.data!r}, {self.children!r})"


class StoredToken(str):
    """A token of a stored parse tree: like ``lark.Token``, a ``str`` of its value with ``type`` (the terminal)
    and ``value`` (the leaf index)."""

    __slots__ = ("type", "value")

    type: str
    value: int

    def __new__(cls, type_: str, value: int) -> StoredToken:
        tok = super().__new__(cls, str(value))
        tok.type = type_
        tok.value = value
        return tok

    def __repr__(self) -> str:
        return f"StoredToken({self.type!r}, {self.value!r})"


def store_dir(env: Mapping[str, str] | None = None) -> Path | None:
    """The store's directory, or None when it is off."""
    e = os.environ if env is None else env
    setting = e.get(ENV, "")
    if setting.lower() in ("0", "off", "no", "false"):
        return None
    if setting:
        return Path(setting)
    base = e.get("XDG_CACHE_HOME") or os.path.join(e.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "hotc" / "shapes"


def _digest(grammar_text: str, functions_text: str) -> str | None:
    """What the trees depend on (see the module doc); None when a source cannot be read."""
    try:  # lazy: hashlib's blake2b without hashlib's import, which loads OpenSSL (13 M instructions)
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter without the module
        # lazy: validate must not load hashlib (test_startup_imports); only on an interpreter without _blake2
        from hashlib import blake2b

    h = blake2b(digest_size=16)
    h.update(grammar_text.encode())
    h.update(functions_text.encode())
    here = Path(__file__).resolve().parent
    try:
        for name in ("grammar.py", "grammar_lexer.py", "shapes.py"):
            h.update((here / name).read_bytes())
        spec = importlib.util.find_spec("lark")  # finds, does not import
        if spec is None or spec.origin is None:
            return None
        h.update(Path(spec.origin).read_bytes())  # lark/__init__.py: its __version__
    except (OSError, ImportError, ValueError):
        return None
    return h.hexdigest()


def encode(tree: Any) -> Any:
    """A lark parse tree as JSON data; None when it holds something a stored tree cannot (then not kept)."""
    if isinstance(tree, str):
        value = getattr(tree, "value", None)
        kind = getattr(tree, "type", None)
        if type(value) is not int or not isinstance(kind, str):
            return None
        return [str(kind), value]
    data = getattr(tree, "data", None)
    children = getattr(tree, "children", None)
    if not isinstance(data, str) or not isinstance(children, list):
        return None
    out = []
    for c in children:
        e = encode(c)
        if e is None:
            return None
        out.append(e)
    return [str(data), out]


def decode(obj: Any) -> StoredTree | StoredToken:
    """JSON data from :func:`encode` as a tree; ValueError when it is not one."""
    if not isinstance(obj, list) or len(obj) != 2 or not isinstance(obj[0], str):
        raise ValueError("not a stored tree")
    head, rest = obj
    if type(rest) is int:
        return StoredToken(head, rest)
    if not isinstance(rest, list):
        raise ValueError("not a stored tree")
    return StoredTree(head, [decode(c) for c in rest])


class ShapeStore:
    """The file of one grammar's stored trees (see the module doc). ``path`` None: an inert store."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._loaded: dict[Key, StoredTree] | None = None

    @classmethod
    def for_grammar(cls, grammar_text: str, functions_text: str) -> ShapeStore:
        base = store_dir()
        digest = _digest(grammar_text, functions_text) if base is not None else None
        if base is None or digest is None:
            return cls(None)
        return cls(base / f"shapes-{digest}.jsonl")

    def trees(self) -> dict[Key, StoredTree]:
        """Every tree in the file (read on the first call)."""
        if self._loaded is None:
            self._loaded = self._read()
        return self._loaded

    def _read(self) -> dict[Key, StoredTree]:
        out: dict[Key, StoredTree] = {}
        if self.path is None:
            return out
        try:
            with open(self.path, "rb") as fh:
                if os.fstat(fh.fileno()).st_size > MAX_BYTES:
                    self._restart()
                    return out
                raw = fh.read()
        except OSError:
            return out
        for line in raw.splitlines():
            try:
                date, start, codes, tree = json.loads(line)
                if not (isinstance(date, str) and isinstance(start, str) and isinstance(codes, list)):
                    continue
                if not all(isinstance(c, str) for c in codes):
                    continue
                node = decode(tree)
            except (ValueError, TypeError, RecursionError):
                continue  # a torn or foreign line
            if isinstance(node, StoredTree):
                out[(date, start, tuple(codes))] = node
        return out

    def _restart(self) -> None:
        try:
            if self.path is not None:
                os.unlink(self.path)
        except OSError:
            pass

    def add(self, key: Key, tree: Any) -> None:
        """Keep ``tree`` (lark's, for a valid shape) for later processes; best effort."""
        if self.path is None:
            return
        enc = encode(tree)
        if enc is None:
            return
        line = (json.dumps([key[0], key[1], list(key[2]), enc], separators=(",", ":")) + "\n").encode()
        if len(line) > _MAX_LINE:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError:
            self.path = None  # unwritable: off for this process


__all__ = ["ENV", "MAX_BYTES", "ShapeStore", "StoredToken", "StoredTree", "decode", "encode", "store_dir"]
