"""``@model``: a frozen dataclass whose generated methods are compiled when first used (start-up time).

``@model`` (or ``@model(slots=True)``) makes the class a frozen dataclass exactly as ``@dataclass(frozen=True)``
(or ``@dataclass(frozen=True, slots=True)``) does: the same fields, ``__init__``, ``__repr__``, ``__eq__`` and
``__hash__``, the same ``FrozenInstanceError`` on assignment, ``dataclasses.fields``/``replace``/``asdict`` work
and ``__dataclass_params__`` says init, repr, eq and frozen. The difference is when the code is made:
``dataclasses`` compiles six functions per class when the class is defined (about 0.5 ms each class, a third of
``hotc validate``'s start-up over the 80 classes it defines); here ``__init__``, ``__repr__``, ``__eq__`` and
``__hash__`` start as stubs that compile the real method the first time one is called on the class and put it in
the stub's place, so a class that is never built, printed or compared costs only its field processing, and
every call after the first runs the same generated code as a dataclass's. A method the class body writes itself
is kept, as ``dataclass`` keeps it. ``tests/review/test_model.py`` holds every model of hotc equal to the
dataclass made from the same definition.

The methods are generated from the class's ``dataclasses.fields`` with the text ``dataclasses`` uses on
Python 3.11 (defaults, ``default_factory``, ``init=False``, ``repr``/``compare``/``hash`` per field, keyword-only
fields, ``__post_init__`` without init-only variables). A class with ``InitVar`` or ``ClassVar`` annotations is
left to ``dataclasses`` unchanged.
"""

from __future__ import annotations

import _thread
import dataclasses
import inspect
import sys
from collections.abc import Callable
from types import MemberDescriptorType
from typing import Any, TypeVar, dataclass_transform, overload

_C = TypeVar("_C", bound=type)

_LAZY = ("__init__", "__repr__", "__eq__", "__hash__")

# the type of a ``__slots__`` attribute of a class (a member descriptor). The ``__init__`` of a class with slots
# sets each slot through its descriptor's ``__set__`` (bound once, when the method is compiled) instead of
# ``object.__setattr__(self, name, value)``, which finds that same descriptor by name on every call: the same
# result, about 40 % less time per object for a class of many fields (a plan builds one DesiredResource,
# ResourceChange and several IR nodes per resource). The same descriptor: a subclass of a model never declares a
# slot again for a field of its base (dataclass leaves inherited names out of ``__slots__``; a test checks
# hotc's classes).
_SLOT = MemberDescriptorType


class _HasDefaultFactory:
    """The default of an ``__init__`` parameter whose field has a ``default_factory`` (shown as dataclasses
    shows it)."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_DEFAULT_FACTORY: Any = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", _HasDefaultFactory())


def _stub(name: str) -> Callable[..., Any]:
    def stub(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _materialize(_owner(self, name, stub), name)(self, *args, **kwargs)

    stub.__name__ = name
    return stub


class _Doc:
    """The docstring ``dataclass`` gives a class without one (its name and ``__init__`` signature), computed
    when read."""

    def __get__(self, obj: object, owner: type) -> str:
        init = getattr(owner.__dict__.get("__init__"), "__code__", None)
        if init is not None and init.co_name == "stub":
            _materialize(owner, "__init__")
        try:
            text_sig = str(inspect.signature(owner)).replace(" -> None", "")
        except (TypeError, ValueError):
            text_sig = ""
        return owner.__name__ + text_sig


def _tuple(obj: str, fields: list[dataclasses.Field[Any]]) -> str:
    return f"({','.join(f'{obj}.{f.name}' for f in fields)},)" if fields else "()"


def _source(cls: type, name: str, ns: dict[str, Any]) -> str:
    """The text of ``cls``'s method ``name``, as ``dataclasses`` writes it; the names it uses are put in ``ns``."""
    fields = dataclasses.fields(cls)
    if name == "__init__":
        self_name = "__dataclass_self__" if "self" in {f.name for f in fields} else "self"
        ns.update(
            {
                "MISSING": dataclasses.MISSING,
                "_HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY,
                "__dataclass_builtins_object__": object,
                "_return_type": None,
            }
        )
        params: list[str] = []
        kw_only: list[str] = []
        body: list[str] = []
        for f in fields:
            ns[f"_type_{f.name}"] = f.type
            default = f"_dflt_{f.name}"
            value: str | None
            if f.default_factory is not dataclasses.MISSING:
                ns[default] = f.default_factory
                value = (
                    f"{default}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}"
                    if f.init
                    else f"{default}()"
                )
            elif f.init:
                if f.default is not dataclasses.MISSING:
                    ns[default] = f.default
                value = f.name
            elif "__slots__" in cls.__dict__ and f.default is not dataclasses.MISSING:
                ns[default] = f.default
                value = default
            else:
                value = None  # the class attribute holds the default
            if value is not None:
                slot = getattr(cls, f.name, None)
                if type(slot) is _SLOT:  # the slot's own setter: what object.__setattr__ ends up calling
                    ns[f"_set_{f.name}"] = slot.__set__
                    body.append(f"_set_{f.name}({self_name},{value})")
                else:
                    body.append(f"__dataclass_builtins_object__.__setattr__({self_name},{f.name!r},{value})")
            if f.init:
                param = f"{f.name}:_type_{f.name}"
                if f.default is not dataclasses.MISSING:
                    param += f"=_dflt_{f.name}"
                elif f.default_factory is not dataclasses.MISSING:
                    param += "=_HAS_DEFAULT_FACTORY"
                (kw_only if f.kw_only else params).append(param)
        if hasattr(cls, "__post_init__"):
            body.append(f"{self_name}.__post_init__()")
        args = ",".join([self_name, *params, *(["*", *kw_only] if kw_only else [])])
        return f" def __init__({args})->_return_type:\n" + "\n".join(f"  {b}" for b in body or ["pass"])
    if name == "__repr__":
        inner = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in fields if f.repr)
        return f' def __repr__(self):\n  return self.__class__.__qualname__ + f"({inner})"'
    if name == "__eq__":
        compared = [f for f in fields if f.compare]
        return (
            " def __eq__(self,other):\n  if other.__class__ is self.__class__:\n"
            f"   return {_tuple('self', compared)}=={_tuple('other', compared)}\n  return NotImplemented"
        )
    hashed = [f for f in fields if (f.compare if f.hash is None else f.hash)]
    return f" def __hash__(self):\n  return hash({_tuple('self', hashed)})"


def _recursive_repr(fn: Callable[[Any], str]) -> Callable[[Any], str]:
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        key = id(self), _thread.get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            return fn(self)
        finally:
            running.discard(key)

    return __repr__


def _materialize(cls: type, name: str) -> Callable[..., Any]:
    """Compile ``cls``'s method ``name`` and put it in place of the stub (two threads at once make the same
    method; either one stays)."""
    ns: dict[str, Any] = {}
    text = _source(cls, name, ns)
    module = sys.modules.get(cls.__module__)
    scope: dict[str, Any] = {}
    # compiled without this module's ``from __future__ import annotations``, as dataclasses compiles it (the
    # annotations of __init__ are the fields' types, not their names as text)
    code = compile(
        f"def __create_fn__({', '.join(ns)}):\n{text}\n return {name}", "<string>", "exec", dont_inherit=True
    )
    exec(code, module.__dict__ if module else {}, scope)
    fn: Callable[..., Any] = scope["__create_fn__"](**ns)
    if name == "__repr__":
        fn = _recursive_repr(fn)
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, fn)
    return fn


def _owner(obj: Any, name: str, fn: Any) -> Any:
    """The nearest class in ``obj``'s MRO whose method ``name`` is ``fn``."""
    return next(k for k in type(obj).__mro__ if k.__dict__.get(name) is fn)


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    # what dataclasses writes for a frozen class (its class and field names bound in; here looked up)
    cls = _owner(self, "__setattr__", _frozen_setattr)
    if type(self) is cls or name in {f.name for f in dataclasses.fields(cls)}:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    super(cls, self).__setattr__(name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    cls = _owner(self, "__delattr__", _frozen_delattr)
    if type(self) is cls or name in {f.name for f in dataclasses.fields(cls)}:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
    super(cls, self).__delattr__(name)


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=False):
        object.__setattr__(self, f.name, value)  # not the frozen __setattr__


def _make(cls: Any, slots: bool) -> Any:
    annotations = cls.__dict__.get("__annotations__", {})
    if any("InitVar" in str(a) or "ClassVar" in str(a) for a in annotations.values()):
        return dataclasses.dataclass(cls, frozen=True, slots=slots)
    own = cls.__dict__
    for name in _LAZY:
        if name == "__hash__":
            explicit = not ("__hash__" not in own or (own["__hash__"] is None and "__eq__" in own))
            if explicit:
                continue
        elif name in own:
            continue
        setattr(cls, name, _stub(name))
    documented = bool(own.get("__doc__"))
    if not documented:
        cls.__doc__ = (
            "-"  # dataclass would work the text out from the stub's signature; _Doc does it when read
        )
    # A class with no dataclass base gets the frozen __setattr__/__delattr__ below (one function for every model,
    # no code compiled), and is processed as not frozen; its parameters then say frozen, as they must. A subclass
    # of a dataclass is processed as frozen (dataclass refuses a non-frozen child of a frozen base).
    rooted = not any(hasattr(b, "__dataclass_fields__") for b in cls.__mro__[1:])
    if rooted:
        if "__setattr__" in own or "__delattr__" in own:
            raise TypeError(f"Cannot overwrite attribute __setattr__/__delattr__ in class {cls.__name__}")
        cls.__setattr__ = _frozen_setattr
        cls.__delattr__ = _frozen_delattr
        if slots:  # what dataclass gives a frozen class with slots, so that pickle and copy can rebuild it
            if "__getstate__" not in own:
                cls.__getstate__ = _getstate
            if "__setstate__" not in own:
                cls.__setstate__ = _setstate
    made: Any = dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=not rooted, slots=slots)
    params = made.__dataclass_params__
    truthful = object.__new__(type(params))
    for slot in type(params).__slots__:
        setattr(truthful, slot, getattr(params, slot))
    truthful.init = truthful.repr = truthful.eq = truthful.frozen = True
    made.__dataclass_params__ = truthful
    if not documented:
        made.__doc__ = _Doc()
    return made


@overload
def model(cls: _C, /) -> _C: ...
@overload
def model(*, slots: bool = False) -> Callable[[_C], _C]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def model(cls: _C | None = None, /, *, slots: bool = False) -> _C | Callable[[_C], _C]:
    """``@dataclass(frozen=True[, slots=True])`` with the methods compiled on first use (see the module)."""
    if cls is None:
        return lambda c: _make(c, slots)
    return _make(cls, slots)  # type: ignore[no-any-return]


__all__ = ["model"]
