"""Decoding template and environment text into position-carrying Python data (like Heat: JSON, then YAML).

The result is ordinary JSON-like data, except that every mapping is a :class:`PosDict` and every sequence a
:class:`PosList`. They behave exactly like ``dict``/``list`` and additionally know where they and their
children come from:

- ``PosDict.pos`` / ``PosList.pos``: the position of the container itself;
- ``PosDict.key_pos[key]`` and ``PosDict.value_pos[key]``: where a key and its value start;
- ``PosList.item_pos[i]``: where item *i* starts.

Scalars are plain ``str``/``int``/``float``/``bool``/``None``; their positions are held by their container.
YAML timestamps stay strings (``heat_template_version: 2016-10-14``), as in Heat.
"""

from __future__ import annotations

import _thread
import functools
import json
import sys
from collections.abc import Iterator
from typing import Any

import yaml

from hotc.errors import Diagnostic, Pos, error, warning
from hotc.parser.limits import MAX_NESTING_DEPTH, nesting_depth

DEFAULT_MAX_TEMPLATE_SIZE = 512 * 1024  # Heat's max_template_size default (bytes)

# The most values (scalars and containers) a document may expand to through YAML aliases (``*name`` repeats
# the node anchored ``&name``): about what a template of the maximum size can spell out without aliases.
# A few hundred bytes of nested aliases (a "billion laughs") would otherwise expand to billions.
DEFAULT_MAX_VALUES = DEFAULT_MAX_TEMPLATE_SIZE // 4


def max_values_for(max_size: int | None) -> int:
    """The alias expansion bound that goes with a size limit (``--max-template-size``)."""
    return max(DEFAULT_MAX_VALUES, (max_size or 0) // 4)


class _AliasLimit(Exception):
    """Alias expansion went over the bound, or an alias refers to a node that contains it."""

    def __init__(self, message: str, pos: Pos) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class PosDict(dict):  # type: ignore[type-arg]
    """A dict that remembers source positions of itself, its keys and its values."""

    __slots__ = ("pos", "key_pos", "value_pos")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pos: Pos | None = None
        self.key_pos: dict[Any, Pos] = {}
        self.value_pos: dict[Any, Pos] = {}

    def pos_of(self, key: Any) -> Pos | None:
        """Position of the value under ``key`` (falls back to the key, then to the mapping)."""
        return self.value_pos.get(key) or self.key_pos.get(key) or self.pos

    def pos_of_key(self, key: Any) -> Pos | None:
        return self.key_pos.get(key) or self.pos


class PosList(list):  # type: ignore[type-arg]
    """A list that remembers the source position of itself and of each item."""

    __slots__ = ("pos", "item_pos")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.pos: Pos | None = None
        self.item_pos: list[Pos] = []

    def pos_of(self, index: int) -> Pos | None:
        if 0 <= index < len(self.item_pos):
            return self.item_pos[index]
        return self.pos


def pos_of(container: Any, key: Any = None) -> Pos | None:
    """Best position for ``container[key]`` (or the container itself when key is None)."""
    if key is not None and isinstance(container, PosDict | PosList):
        return container.pos_of(key)
    return getattr(container, "pos", None)


def _mark(file: str, node: yaml.Node) -> Pos:
    m = node.start_mark
    return Pos(file, m.line + 1, m.column + 1)


# Pos is a named tuple: ``tuple.__new__(Pos, (file, line, col))`` builds one in one C call, without the
# Python frame of its ``__new__``; decoding builds one per key, value and item.
_new_pos: Any = tuple.__new__

# PosDict/PosList built without running their __init__ (every slot is set right after).
_new_dict = dict.__new__
_new_list = list.__new__
_set_dict_pos: Any = vars(PosDict)["pos"].__set__
_set_key_pos: Any = vars(PosDict)["key_pos"].__set__
_set_value_pos: Any = vars(PosDict)["value_pos"].__set__
_set_list_pos: Any = vars(PosList)["pos"].__set__
_set_item_pos: Any = vars(PosList)["item_pos"].__set__

_ScalarNode = yaml.ScalarNode
_MappingNode = yaml.MappingNode
_T = "tag:yaml.org,2002:"
_STR = _T + "str"
_MAP = _T + "map"
_SEQ = _T + "seq"
_INT = _T + "int"
_NULL = _T + "null"
_BOOL = _T + "bool"
_TIMESTAMP = _T + "timestamp"
_MERGE = _T + "merge"
_VALUE = _T + "value"
_BOOL_VALUES: dict[str, bool] = dict(yaml.constructor.SafeConstructor.bool_values)


class _Builder:
    """Turns a composed node tree into PosDict/PosList/scalars exactly as PyYAML's SafeLoader constructs it
    (timestamps kept as strings), by a direct recursive walk: no generator per container, no constructor
    dispatch for the common tags. Anything unusual (explicit ``!!`` tags such as ``!!binary``/``!!set``,
    non-decimal integers, floats, unknown tags) goes through the PyYAML constructor, so the decoded data is
    the same; aliases give the same object (memo on node identity), as in PyYAML."""

    def __init__(
        self,
        file: str,
        diags: list[Diagnostic],
        loader: Any,
        anchors: bool = True,
        max_values: int = DEFAULT_MAX_VALUES,
        allow_recursive: bool = True,
        json_only: bool = False,
    ) -> None:
        self.file = file
        # a template or environment: a tag may not give what JSON cannot hold (bytes, a set)
        self.json_only = json_only
        self.diags = diags
        self.loader = loader
        # aliases need an anchor (``&name``) in the text; without one no node is shared and no memo is needed
        self.memo: dict[int, Any] | None = {} if anchors else None
        # with aliases: what the document expands to is bounded (see DEFAULT_MAX_VALUES). ``expanded`` counts
        # the values an alias repeats; ``building`` holds the nodes being built (an alias to one is a cycle)
        self.max_values = max_values
        self.expanded = 0
        self.building: set[int] = set()
        self.sizes: dict[int, int] = {}
        self.allow_recursive = allow_recursive
        self.recursive = False
        self.depth = 0  # lists and mappings open around the node being built

    def _deeper(self, node: Any) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING_DEPTH:
            raise _TagError(_too_deep(), _mark(self.file, node))

    def _alias(self, node: Any, got: Any) -> Any:
        """``got``, built for ``node`` earlier, used again by an alias: count what it expands to."""
        if id(node) in self.building:
            if self.allow_recursive:
                self.recursive = True
                return got  # a recursive structure, as PyYAML builds it
            raise _AliasLimit(
                "a YAML alias refers to a node that contains it (a recursive structure); a template cannot "
                "hold one: write the value out",
                _mark(self.file, node),
            )
        self.expanded += _expanded_size(got, self.sizes)
        if self.expanded > self.max_values:
            raise _AliasLimit(
                f"YAML aliases (*name) expand this document to more than {self.max_values} values (an alias "
                "bomb?); write the repeated parts out, or use fewer nested aliases",
                _mark(self.file, node),
            )
        return got

    def build(self, node: Any) -> Any:
        tag = node.tag
        v = node.value
        if type(v) is str:  # a scalar node
            if tag == _STR or tag == _TIMESTAMP:
                return v
            if tag == _NULL:
                return None
            if tag == _INT:
                if v.isdigit() and v.isascii() and (v[0] != "0" or len(v) == 1):
                    return int(v)
            elif tag == _BOOL:
                b = _BOOL_VALUES.get(v.lower())
                if b is not None:
                    return b
        elif tag == _MAP:
            if node.id == "mapping":
                return self.mapping(node)
        elif tag == _SEQ:
            if node.id == "sequence":
                return self.sequence(node)
        return self.construct(node)

    def construct(self, node: Any) -> Any:
        """A node with an explicit or unusual tag, through PyYAML's constructor. A standard tag on a node of
        the wrong kind (``!!seq`` over a mapping, ``!!int`` over a list), or a scalar its tag cannot read
        (``!!int ''``, ``!!float x``), is a positioned error, however deep in the node it is."""
        _check_tag_fits(node, self.file)
        try:
            value = self.loader.construct_object(node, deep=True)
            if self.json_only:
                _check_json_data(value, node, self.file)
            return value
        except (yaml.YAMLError, _AliasLimit, _TagError):
            raise
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
            what = f"read {node.value!r}" if type(node.value) is str else "read this value"
            raise _TagError(
                f"the YAML tag {_short_tag(node.tag)} cannot {what}; remove the tag or change the value",
                _mark(self.file, node),
            ) from exc

    def sequence(self, node: Any) -> PosList:
        memo = self.memo
        lst = _new_list(PosList)
        if memo is not None:
            got = memo.get(id(node))
            if got is not None:
                return self._alias(node, got)  # type: ignore[no-any-return]
            memo[id(node)] = lst
            self.building.add(id(node))
        file = self.file
        self._deeper(node)
        m = node.start_mark
        p = _new_pos(Pos, (file, m.line + 1, m.column + 1))
        _set_list_pos(lst, p)
        items = node.value
        ips: list[Pos] = []
        _set_item_pos(lst, ips)
        if items:
            build = self.build
            append = ips.append
            add = lst.append
            for child in items:
                value = child.value
                if type(value) is str and child.tag == _STR:
                    add(value)
                else:
                    value = build(child)
                    add(value)
                    if type(value) is PosDict or type(value) is PosList:
                        append(value.pos)  # type: ignore[arg-type]  # the same position: share the object
                        continue
                m = child.start_mark
                p = _new_pos(Pos, (file, m.line + 1, m.column + 1))
                append(p)
        if memo is not None:
            self.building.discard(id(node))
        self.depth -= 1
        return lst

    def mapping(self, node: Any) -> PosDict:
        memo = self.memo
        d = _new_dict(PosDict)
        if memo is not None:
            got = memo.get(id(node))
            if got is not None:
                return self._alias(node, got)  # type: ignore[no-any-return]
            memo[id(node)] = d
            self.building.add(id(node))
        file = self.file
        self._deeper(node)
        m = node.start_mark
        p = _new_pos(Pos, (file, m.line + 1, m.column + 1))
        _set_dict_pos(d, p)
        key_pos: dict[Any, Pos] = {}
        value_pos: dict[Any, Pos] = {}
        _set_key_pos(d, key_pos)
        _set_value_pos(d, value_pos)
        pairs = node.value
        for key_node, _ in pairs:
            if key_node.tag == _MERGE or key_node.tag == _VALUE:
                self.loader.flatten_mapping(node)
                pairs = node.value
                break
        build = self.build
        for key_node, value_node in pairs:
            key = key_node.value
            if key_node.tag != _STR or type(key) is not str:
                key = build(key_node)
            m = key_node.start_mark
            kpos = _new_pos(Pos, (file, m.line + 1, m.column + 1))
            try:
                seen = key in key_pos
            except TypeError:
                self.diags.append(error("a mapping key must be a scalar, not a mapping or list", kpos))
                continue
            if seen:
                first = key_pos[key]
                self.diags.append(
                    warning(
                        f"duplicate key {key!r}: first defined at {first.line}:{first.col}; "
                        "the later value is used (as Heat does)",
                        kpos,
                        code="duplicate-key",
                    )
                )
            key_pos[key] = kpos
            value = value_node.value
            if type(value) is str and value_node.tag == _STR:
                d[key] = value
            else:
                value = d[key] = build(value_node)
                if type(value) is PosDict or type(value) is PosList:
                    value_pos[key] = value.pos  # type: ignore[assignment]  # the same position: share the object
                    continue
            m = value_node.start_mark
            p = _new_pos(Pos, (file, m.line + 1, m.column + 1))
            value_pos[key] = p
        if memo is not None:
            self.building.discard(id(node))
        self.depth -= 1
        return d


_RESOLVER: Any = yaml.resolver.Resolver()  # SafeLoader's implicit resolvers (the class the C loaders use too)

#: The first characters of the plain scalars some implicit resolver may claim (bool, int, float, null, merge,
#: value, timestamp...): PyYAML's resolver looks its regular expressions up by the first character, so a plain
#: scalar that starts with any other character is a string without a look-up (most keys and names).
_RESOLVED_FIRST: frozenset[str] = frozenset(k for k in _RESOLVER.yaml_implicit_resolvers if k)
assert None not in _RESOLVER.yaml_implicit_resolvers  # no wildcard resolver: the first character decides


@functools.lru_cache(maxsize=1 << 16)
def _plain_tag(value: str) -> str:
    """The tag YAML 1.1 gives a plain scalar: it depends only on the text, so it is a pure memo over every
    document of the process (keys and common values repeat across templates)."""
    tag: str = _RESOLVER.resolve(_ScalarNode, value, _PLAIN)
    return tag


class _Unusual(Exception):
    """The event stream holds something :class:`_EventBuilder` leaves to the node path."""


_ScalarEvent = yaml.ScalarEvent
_MappingStart = yaml.MappingStartEvent
_MappingEnd = yaml.MappingEndEvent
_SequenceStart = yaml.SequenceStartEvent
_SequenceEnd = yaml.SequenceEndEvent
_StreamEnd = yaml.StreamEndEvent
_PLAIN = (True, False)  # the ``implicit`` of a plain scalar


class _EventBuilder:
    """The same data as :class:`_Builder`, built straight from libyaml's event stream: no node tree (PyYAML's
    composer keeps one node and two marks per value alive until the document is built: at 100,000 resources
    about 760 MB next to the 520 MB of the data, and a fifth of the decoding time). It covers plain documents:
    anything else (an anchor or alias, an explicit tag, a merge ``<<`` or value ``=`` key, a key that is not a
    scalar, more than one document, nesting too deep) raises :class:`_Unusual`, and the caller decodes the text
    again through the node path, so that every such document decodes exactly as before.

    The loops of :meth:`mapping` and :meth:`sequence` handle the commonest event, a plain or quoted string
    scalar, inline (its position built through the slot setters, its tag known from its first character or
    the memo); every other scalar goes through :meth:`scalar`. Decoding is one event at a time through
    Python, so each attribute read and call per event shows at 10,000 resources."""

    def __init__(self, file: str, diags: list[Diagnostic], loader: Any) -> None:
        self.file = file
        self.diags = diags
        self.loader = loader
        self.get = loader.get_event
        self.depth = 0  # lists and mappings open around the event being read

    def deeper(self, start: Any) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING_DEPTH:
            raise _TagError(_too_deep(), self.pos(start.start_mark))

    def document(self) -> Any:
        get, peek = self.get, self.loader.peek_event
        get()  # stream start
        if type(peek()) is _StreamEnd:
            return None
        get()  # document start
        root = self.value(get())
        get()  # document end
        if type(peek()) is not _StreamEnd:
            raise _Unusual  # a second document: the node path reports it
        return root

    def pos(self, mark: Any) -> Pos:
        p: Pos = _new_pos(Pos, (self.file, mark.line + 1, mark.column + 1))
        return p

    def value(self, ev: Any) -> Any:
        t = type(ev)
        if t is _ScalarEvent:
            return self.scalar(ev)
        if t is _MappingStart:
            return self.mapping(ev)
        if t is _SequenceStart:
            return self.sequence(ev)
        raise _Unusual  # an alias

    def scalar(self, ev: Any) -> Any:
        if ev.anchor is not None or ev.tag is not None:
            raise _Unusual
        v = ev.value
        if not ev.implicit[0]:  # quoted
            return v
        tag = _plain_tag(v)
        if tag == _STR or tag == _TIMESTAMP:
            return v
        if tag == _NULL:
            return None
        if tag == _INT:
            if v.isdigit() and v.isascii() and (v[0] != "0" or len(v) == 1):
                return int(v)
        elif tag == _BOOL:
            b = _BOOL_VALUES.get(v.lower())
            if b is not None:
                return b
        elif tag == _MERGE or tag == _VALUE:
            raise _Unusual
        return self.loader.construct_object(_ScalarNode(tag, v, ev.start_mark, ev.end_mark), deep=True)

    def mapping(self, start: Any) -> PosDict:
        if start.anchor is not None or (start.tag is not None and start.tag != "!"):
            raise _Unusual
        self.deeper(start)
        file = self.file
        d = _new_dict(PosDict)
        m: Any = start.start_mark
        p = _new_pos(Pos, (file, m.line + 1, m.column + 1))
        _set_dict_pos(d, p)
        key_pos: dict[Any, Pos] = {}
        value_pos: dict[Any, Pos] = {}
        _set_key_pos(d, key_pos)
        _set_value_pos(d, value_pos)
        get, scalar, value = self.get, self.scalar, self.value
        first, plain_tag = _RESOLVED_FIRST, _plain_tag
        while True:
            kev = get()
            if type(kev) is not _ScalarEvent:
                if type(kev) is _MappingEnd:
                    self.depth -= 1
                    return d
                raise _Unusual  # a mapping or list as a key (or an alias)
            key = kev.value
            if kev.tag is not None or kev.anchor is not None:
                raise _Unusual
            if kev.implicit[0] and (not key or key[0] in first) and plain_tag(key) != _STR:
                key = scalar(kev)
            m = kev.start_mark
            kpos = _new_pos(Pos, (file, m.line + 1, m.column + 1))
            if key in key_pos:
                first_pos = key_pos[key]
                self.diags.append(
                    warning(
                        f"duplicate key {key!r}: first defined at {first_pos.line}:{first_pos.col}; "
                        "the later value is used (as Heat does)",
                        kpos,
                        code="duplicate-key",
                    )
                )
            key_pos[key] = kpos
            vev = get()
            if type(vev) is _ScalarEvent:
                v = vev.value
                if vev.tag is not None or vev.anchor is not None:
                    raise _Unusual
                if vev.implicit[0] and (not v or v[0] in first) and plain_tag(v) != _STR:
                    v = scalar(vev)
                d[key] = v
                m = vev.start_mark
                p = _new_pos(Pos, (file, m.line + 1, m.column + 1))
                value_pos[key] = p
            else:
                child = d[key] = value(vev)
                value_pos[key] = child.pos  # the same position: share the object

    def sequence(self, start: Any) -> PosList:
        if start.anchor is not None or (start.tag is not None and start.tag != "!"):
            raise _Unusual
        self.deeper(start)
        file = self.file
        lst = _new_list(PosList)
        m: Any = start.start_mark
        p = _new_pos(Pos, (file, m.line + 1, m.column + 1))
        _set_list_pos(lst, p)
        ips: list[Pos] = []
        _set_item_pos(lst, ips)
        get, scalar, value = self.get, self.scalar, self.value
        first, plain_tag = _RESOLVED_FIRST, _plain_tag
        add, add_pos = lst.append, ips.append
        while True:
            ev = get()
            if type(ev) is _ScalarEvent:
                v = ev.value
                if ev.tag is not None or ev.anchor is not None:
                    raise _Unusual
                if ev.implicit[0] and (not v or v[0] in first) and plain_tag(v) != _STR:
                    v = scalar(ev)
                add(v)
                m = ev.start_mark
                p = _new_pos(Pos, (file, m.line + 1, m.column + 1))
                add_pos(p)
            elif type(ev) is _SequenceEnd:
                self.depth -= 1
                return lst
            else:
                child = value(ev)
                add(child)
                add_pos(child.pos)


#: The names under which PyYAML's C parser (``yaml._yaml``) looks up the event classes it builds each event with.
_EVENT_NAMES = (
    "StreamStartEvent",
    "StreamEndEvent",
    "DocumentStartEvent",
    "DocumentEndEvent",
    "AliasEvent",
    "ScalarEvent",
    "SequenceStartEvent",
    "SequenceEndEvent",
    "MappingStartEvent",
    "MappingEndEvent",
)
_LIBYAML_GLOBALS: dict[str, Any] = {}
if _BaseLoader is getattr(
    yaml, "CSafeLoader", None
):  # else PyYAML was built without libyaml: nothing to push
    import yaml._yaml

    if all(isinstance(vars(yaml._yaml).get(name), type) for name in _EVENT_NAMES):
        _LIBYAML_GLOBALS = vars(yaml._yaml)
_EVENT_CLASSES: dict[str, Any] = {name: _LIBYAML_GLOBALS[name] for name in _EVENT_NAMES if _LIBYAML_GLOBALS}
_NO_KEY: Any = object()  # the top mapping waits for a key
#: Deeper documents go to the node path, as they do from the pull path when its recursion runs out (its depth
#: limit depends on the caller's stack, so the push path stops well before it).
_PUSHED_DEPTH = 100


def _alone() -> bool:
    """True when no other Python thread exists: every thread ``threading`` or ``_thread`` started (and still
    running) is counted by ``_thread._count()``, and every thread running Python code has a frame in
    ``sys._current_frames()``. Only this thread can then run code until it starts another one."""
    return _thread._count() == 0 and len(sys._current_frames()) == 1


def _from_pushed(text: str, file: str) -> tuple[Any, list[Diagnostic]]:
    """What :class:`_EventBuilder` builds, built with no event object at all: for the length of the decode,
    the names ``yaml._yaml`` builds each event with (``ScalarEvent(anchor, tag, implicit, value, start_mark,
    end_mark, style)``...) are bound to the callbacks below, so libyaml's C loop (driven by
    ``next(filter(None, iter(get, None)), None)``, also C) calls one Python function per event with the event's
    fields as arguments. Each event object was a Python ``__init__`` setting up to seven attributes, then read
    back attribute by attribute: about a fifth of the decode.

    Those names are module globals, shared by the process: the caller makes sure no other thread exists
    (:func:`_alone`), and they are restored before this returns, whatever happens. Nothing else in PyYAML
    uses them but its event-stream API (``yaml.parse``/``yaml.emit`` with the C classes): loading and dumping
    go through nodes. Every callback answers False to go on; anything :class:`_EventBuilder` leaves to the node
    path makes it answer None, which ends the loop (no exception unwinds through libyaml's loop), and gives
    ``(_UNUSUAL, [])``. Should a PyYAML build some event without looking its class up by name, that event
    object (true, unlike every callback's answer) comes out of the loop, and the text is decoded by pulling
    instead."""
    diags: list[Diagnostic] = []
    loader = _Loader(text, file, diags)
    first, plain_tag, new_pos = _RESOLVED_FIRST, _plain_tag, _new_pos
    stack: list[tuple[Any, Any, Any, Any, Any]] = []
    root: list[Any] = []
    halt: list[BaseException | None] = []  # why the loop stopped early (None: the node path decodes it)
    documents = 0
    # the innermost container, the key its next value goes under (a mapping), and its position dicts: the
    # key_pos and value_pos of a mapping (ip None), or the item_pos of a list (kp and vp None)
    top: Any = None
    key: Any = _NO_KEY
    kp: Any = None
    vp: Any = None
    ip: Any = None

    def scalar(
        anchor: Any, tag: Any, implicit: Any, value: Any, start_mark: Any, end: Any, style: Any
    ) -> Any:
        nonlocal key
        if anchor is not None or tag is not None:
            halt.append(None)
            return None
        if implicit[0] and (not value or value[0] in first) and plain_tag(value) != _STR:
            try:
                value = _plain_value(value, loader, start_mark, end)
            except _Unusual:
                halt.append(None)
                return None
            except Exception as exc:  # what the node path would raise too (a malformed ``0b_``...)
                halt.append(exc)
                return None
        p = new_pos(Pos, (file, start_mark.line + 1, start_mark.column + 1))
        if ip is not None:
            top.append(value)
            ip.append(p)
        elif key is not _NO_KEY:
            top[key] = value
            vp[key] = p
            key = _NO_KEY
        elif kp is not None:
            if value in kp:
                seen = kp[value]
                diags.append(
                    warning(
                        f"duplicate key {value!r}: first defined at {seen.line}:{seen.col}; "
                        "the later value is used (as Heat does)",
                        p,
                        code="duplicate-key",
                    )
                )
            kp[value] = p
            key = value
        else:
            root.append(value)
        return False

    def mapping_start(anchor: Any, tag: Any, implicit: Any, start_mark: Any, end: Any, flow: Any) -> Any:
        nonlocal top, key, kp, vp, ip
        if anchor is not None or (tag is not None and tag != "!") or len(stack) >= _PUSHED_DEPTH:
            halt.append(None)  # an anchor, a tag, or nested deeper than the pull path goes
            return None
        d = _new_dict(PosDict)
        p = new_pos(Pos, (file, start_mark.line + 1, start_mark.column + 1))
        _set_dict_pos(d, p)
        if ip is not None:
            top.append(d)
            ip.append(p)
        elif key is not _NO_KEY:
            top[key] = d
            vp[key] = p
        elif kp is not None:
            halt.append(None)  # a mapping as a key
            return None
        else:
            root.append(d)
        stack.append((top, key, kp, vp, ip))
        top, key, kp, vp, ip = d, _NO_KEY, {}, {}, None
        _set_key_pos(d, kp)
        _set_value_pos(d, vp)
        return False

    def sequence_start(anchor: Any, tag: Any, implicit: Any, start_mark: Any, end: Any, flow: Any) -> Any:
        nonlocal top, key, kp, vp, ip
        if anchor is not None or (tag is not None and tag != "!") or len(stack) >= _PUSHED_DEPTH:
            halt.append(None)  # an anchor, a tag, or nested deeper than the pull path goes
            return None
        lst = _new_list(PosList)
        p = new_pos(Pos, (file, start_mark.line + 1, start_mark.column + 1))
        _set_list_pos(lst, p)
        if ip is not None:
            top.append(lst)
            ip.append(p)
        elif key is not _NO_KEY:
            top[key] = lst
            vp[key] = p
        elif kp is not None:
            halt.append(None)  # a list as a key
            return None
        else:
            root.append(lst)
        stack.append((top, key, kp, vp, ip))
        top, key, kp, vp, ip = lst, _NO_KEY, None, None, []
        _set_item_pos(lst, ip)
        return False

    def collection_end(start_mark: Any, end: Any) -> Any:
        nonlocal top, key, kp, vp, ip
        top, key, kp, vp, ip = stack.pop()
        key = _NO_KEY  # the parent's key now holds the finished container
        return False

    def alias(anchor: Any, start_mark: Any, end: Any) -> Any:
        halt.append(None)
        return None

    def document_start(start_mark: Any, end: Any, explicit: Any, version: Any, tags: Any) -> Any:
        nonlocal documents
        documents += 1
        if documents > 1:
            halt.append(None)  # a second document: the node path reports it
            return None
        return False

    def ignored(*args: Any) -> Any:
        return False

    def stream_end(start_mark: Any, end: Any) -> Any:
        return None

    callbacks = {
        "StreamStartEvent": ignored,
        "StreamEndEvent": stream_end,
        "DocumentStartEvent": document_start,
        "DocumentEndEvent": ignored,
        "AliasEvent": alias,
        "ScalarEvent": scalar,
        "SequenceStartEvent": sequence_start,
        "SequenceEndEvent": collection_end,
        "MappingStartEvent": mapping_start,
        "MappingEndEvent": collection_end,
    }
    try:
        _LIBYAML_GLOBALS.update(callbacks)
        try:
            leaked = next(filter(None, iter(loader.get_event, None)), None)
        finally:
            _LIBYAML_GLOBALS.update(_EVENT_CLASSES)
    finally:
        loader.dispose()
    if leaked is not None:
        # an event object came out of the loop: this PyYAML does not build (all) its events by these names,
        # so the callbacks did not see the whole stream: decode by pulling instead
        return _from_pulled(text, file)
    if halt:
        if halt[0] is not None:
            raise halt[0]
        return _UNUSUAL, []
    return (root[0] if root else None), diags


def _plain_value(v: str, loader: Any, start_mark: Any, end_mark: Any) -> Any:
    """A plain scalar whose tag (by its text) is not ``str``, as :meth:`_EventBuilder.scalar` gives it."""
    tag = _plain_tag(v)
    if tag == _TIMESTAMP:
        return v
    if tag == _NULL:
        return None
    if tag == _INT:
        if v.isdigit() and v.isascii() and (v[0] != "0" or len(v) == 1):
            return int(v)
    elif tag == _BOOL:
        b = _BOOL_VALUES.get(v.lower())
        if b is not None:
            return b
    elif tag == _MERGE or tag == _VALUE:
        raise _Unusual
    return loader.construct_object(_ScalarNode(tag, v, start_mark, end_mark), deep=True)


def _expanded_size(value: Any, sizes: dict[int, int]) -> int:
    """How many values ``value`` spells out with every shared part repeated (memoised by object identity)."""
    if not isinstance(value, dict | list):
        return 1
    known = sizes.get(id(value))
    if known is not None:
        return known
    total = 1
    for child in value.values() if isinstance(value, dict) else value:
        total += _expanded_size(child, sizes) if isinstance(child, dict | list) else 1
    sizes[id(value)] = total
    return total


class _Loader(_BaseLoader):  # type: ignore[misc]
    """libyaml's SafeLoader with positioned containers; one class for every document (the file name and the
    diagnostics list are per instance), so decoding a document creates no class.

    The composer asks the resolver for the tag of every node. SafeLoader has no path resolvers, so
    descending/ascending the resolver path does nothing: C callables that ignore their arguments stand in
    for the two Python methods (``slice(parent, index)``, ``tuple()``); this is a third of compose time."""

    descend_resolver = slice
    ascend_resolver = tuple

    def __init__(self, stream: Any, file: str, diags: list[Diagnostic]) -> None:
        super().__init__(stream)
        self.hotc_file = file
        self.hotc_diags = diags

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        # The tag of a plain scalar depends only on its text (see _plain_tag); quoted scalars are strings;
        # collections keep their default tag.
        if kind is _ScalarNode:
            if implicit[0]:
                return _plain_tag(value)
            return _STR
        return _MAP if kind is _MappingNode else _SEQ


# PyYAML's constructors for what _Builder hands back to the loader (e.g. the values inside !!omap or !!set):
# the same PosDict/PosList, built the generic way.


def _construct_map(loader: Any, node: yaml.MappingNode) -> Iterator[PosDict]:
    file, diags = loader.hotc_file, loader.hotc_diags
    _check_tag_fits(node, file)
    d = PosDict()
    d.pos = _mark(file, node)
    yield d
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        kpos = _mark(file, key_node)
        try:
            hash(key)
        except TypeError:
            diags.append(error("a mapping key must be a scalar, not a mapping or list", kpos))
            continue
        if key in d.key_pos:
            first = d.key_pos[key]
            diags.append(
                warning(
                    f"duplicate key {key!r}: first defined at {first.line}:{first.col}; "
                    "the later value is used (as Heat does)",
                    kpos,
                    code="duplicate-key",
                )
            )
        d[key] = loader.construct_object(value_node, deep=True)
        d.key_pos[key] = kpos
        d.value_pos[key] = _mark(file, value_node)


def _construct_seq(loader: Any, node: yaml.SequenceNode) -> Iterator[PosList]:
    _check_tag_fits(node, loader.hotc_file)
    lst = PosList()
    lst.pos = _mark(loader.hotc_file, node)
    yield lst
    for child in node.value:
        lst.append(loader.construct_object(child, deep=True))
        lst.item_pos.append(_mark(loader.hotc_file, child))


def _construct_str(loader: Any, node: yaml.ScalarNode) -> str:
    _check_tag_fits(node, loader.hotc_file)
    return str(loader.construct_scalar(node))


def _too_deep() -> str:
    return (
        f"lists and mappings nest more than {MAX_NESTING_DEPTH} levels deep here (the most hotc reads); "
        "flatten the value"
    )


def _check_json_data(value: Any, node: Any, file: str) -> None:
    """Raise :class:`_TagError` when ``value`` (what a tagged node gave) holds bytes (``!!binary``) or a set
    (``!!set``): a template is JSON data (Heat reads it, and hotc stores it, as JSON)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, bytes | bytearray | set | frozenset):
            what = "binary data" if isinstance(v, bytes | bytearray) else "a set"
            raise _TagError(
                f"the YAML tag {_short_tag(node.tag)} gives {what}, which a template cannot hold (it is JSON "
                "data: strings, numbers, booleans, null, lists and mappings); write the value without the tag",
                _mark(file, node),
            )
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)


class _TagError(Exception):
    """A YAML tag that does not fit its node, or a scalar its tag cannot read."""

    def __init__(self, message: str, pos: Pos) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


#: The node kind each standard YAML tag applies to (PyYAML's SafeLoader constructs these).
_TAG_KINDS: dict[str, str] = {
    **{_T + t: "scalar" for t in ("str", "int", "float", "bool", "null", "binary", "timestamp")},
    **{_T + t: "mapping" for t in ("map", "set")},
    **{_T + t: "sequence" for t in ("seq", "omap", "pairs")},
}
_KIND_NAMES = {"scalar": "a scalar", "mapping": "a mapping", "sequence": "a list"}


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_T) :] if tag.startswith(_T) else tag


def _check_tag_fits(node: Any, file: str) -> None:
    """Raise :class:`_TagError` when ``node``'s standard tag is for another kind of node."""
    want = _TAG_KINDS.get(node.tag)
    if want is not None and want != node.id:
        raise _TagError(
            f"the YAML tag {_short_tag(node.tag)} is for {_KIND_NAMES[want]}, not {_KIND_NAMES[node.id]}; "
            "remove the tag or change the value",
            _mark(file, node),
        )


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_str)
_Loader.add_constructor("tag:yaml.org,2002:str", _construct_str)


def _yaml_error_pos(file: str, exc: yaml.YAMLError) -> Pos:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return Pos(file, 1, 1)
    return Pos(file, mark.line + 1, mark.column + 1)


def _from_plain(value: Any, pos: Pos) -> Any:
    """Wrap plain JSON data (no positions known beyond ``pos``) into Pos containers."""
    if isinstance(value, dict):
        d = PosDict()
        d.pos = pos
        for k, v in value.items():
            d[k] = _from_plain(v, pos)
        return d
    if isinstance(value, list):
        lst = PosList(_from_plain(v, pos) for v in value)
        lst.pos = pos
        return lst
    return value


_UNUSUAL: Any = object()  # _from_events: decode this text through the node path


def _from_events(text: str, file: str) -> tuple[Any, list[Diagnostic]]:
    """Decode from libyaml's event stream; ``(_UNUSUAL, [])`` when the text needs the node path. Syntax errors
    raise as they would on the node path (the same parser reports them). Through :func:`_from_pushed` when
    this is the process's only thread, else through :class:`_EventBuilder` (the same data, a little slower)."""
    if _LIBYAML_GLOBALS and _alone():
        return _from_pushed(text, file)
    return _from_pulled(text, file)


def _from_pulled(text: str, file: str) -> tuple[Any, list[Diagnostic]]:
    """Decode through :class:`_EventBuilder` (PyYAML's event objects, pulled one by one)."""
    diags: list[Diagnostic] = []
    loader = _Loader(text, file, diags)
    try:
        return _EventBuilder(file, diags, loader).document(), diags
    except (_Unusual, RecursionError):
        return _UNUSUAL, []
    finally:
        loader.dispose()


def _from_nodes(
    text: str, file: str, max_values: int, allow_recursive: bool, json_only: bool = False
) -> tuple[Any, list[Diagnostic]]:
    """Decode through PyYAML's composer and :class:`_Builder` (every document, aliases and tags included)."""
    diags: list[Diagnostic] = []
    loader = _Loader(text, file, diags)
    try:
        node = loader.get_single_node()
        builder = _Builder(file, diags, loader, "&" in text, max_values, allow_recursive, json_only)
        return (None if node is None else builder.build(node)), diags
    finally:
        loader.dispose()


def load_yaml_text(
    text: str,
    file: str,
    max_values: int = DEFAULT_MAX_VALUES,
    *,
    allow_recursive: bool = True,
    json_only: bool = False,
) -> tuple[Any, list[Diagnostic]]:
    """Decode YAML text into Pos-containers. Returns (data, diagnostics); data is None on a syntax error, on
    aliases that expand to more than ``max_values`` values, on a tag that does not fit its node, (unless
    ``allow_recursive``: PyYAML builds such a structure) on an alias to a node that contains it, and (with
    ``json_only``) on a tag that gives bytes or a set."""
    diags: list[Diagnostic] = []
    try:
        data, diags = _from_events(text, file)
        if data is _UNUSUAL:
            data, diags = _from_nodes(text, file, max_values, allow_recursive, json_only)
    except _AliasLimit as exc:
        return None, [error(exc.message, exc.pos, code="too-large")]
    except _TagError as exc:
        code = "too-large" if "levels deep" in exc.message else "syntax"
        return None, [error(exc.message, exc.pos, code=code)]
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        msg = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
        return None, [error(msg, _yaml_error_pos(file, exc), code="syntax")]
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        return None, [error(f"cannot decode YAML: {exc}", Pos(file, 1, 1), code="syntax")]
    return data, diags


def load_document(
    text: str,
    file: str,
    *,
    max_size: int | None = DEFAULT_MAX_TEMPLATE_SIZE,
    what: str = "template",
) -> tuple[PosDict | None, list[Diagnostic]]:
    """Decode a template or environment as Heat does: JSON first, then YAML; the top level must be a mapping.

    An empty document decodes to an empty mapping only for environments (``what='environment'``)."""
    start = Pos(file, 1, 1)
    if max_size is not None and len(text.encode("utf-8")) > max_size:
        size = len(text.encode("utf-8"))
        return None, [
            error(
                f"{what} size ({size} bytes) exceeds the maximum allowed size ({max_size} bytes); "
                "raise it with --max-template-size if this is intended",
                start,
                code="too-large",
            )
        ]
    json_value: Any = None
    json_ok = False
    if text.lstrip().startswith("{"):
        try:
            json_value = json.loads(text)
            json_ok = True
        except ValueError:
            json_ok = False
        except RecursionError:
            return None, [
                error(f"the {what} nests lists or mappings too deeply to be read", start, code="syntax")
            ]
    data, diags = load_yaml_text(text, file, max_values_for(max_size), allow_recursive=False, json_only=True)
    if json_ok and nesting_depth(json_value) > MAX_NESTING_DEPTH:
        return None, [d for d in diags if d.code == "too-large"] or [
            error(
                f"the {what} nests lists or mappings more than {MAX_NESTING_DEPTH} levels deep (the most hotc "
                "reads)",
                start,
                code="too-large",
            )
        ]
    if json_ok:
        if data is None or data != json_value:
            data, diags = _from_plain(json_value, start), []
    if data is None and diags:
        return None, diags
    if data is None:
        if what == "environment":
            empty = PosDict()
            empty.pos = start
            return empty, diags
        return None, diags + [error(f"the {what} is empty", start, code="structure")]
    if not isinstance(data, dict):
        kind = type(data).__name__
        if isinstance(data, list):
            kind = "list"
        elif isinstance(data, str):
            kind = "string"
        return None, diags + [
            error(f"the {what} must be a mapping at the top level, not a {kind}", start, code="structure")
        ]
    return data, diags  # type: ignore[return-value]  # a PosDict (or _from_plain of JSON)


def kind_of(value: Any) -> str:
    """The YAML kind of a decoded value, as messages name it ("a mapping", "a list", "a string", ...)."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__
