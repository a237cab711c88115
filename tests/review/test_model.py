"""``hotc.model.model`` makes the same frozen dataclass as ``@dataclass(frozen=True[, slots=True])``, its
methods compiled on first use (for start-up speed): every model of hotc is compared with the dataclass made from
the same fields, and the decorator's cases (defaults, factories, per-field options, keyword-only fields,
inheritance, methods the class writes itself, ``__post_init__``, recursion, pickling, threads) one by one."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
import re
import threading
from typing import Any

import pytest

import hotc
from hotc.model import model

# the packages whose import needs nothing outside the project's own dependencies
PACKAGES = (
    "hotc.errors",
    "hotc.values",
    "hotc.parser",
    "hotc.providers",
    "hotc.planner",
    "hotc.state",
    "hotc.cli",
)


def _models() -> list[type]:
    """Every class of hotc's modules that is decorated with ``@model`` (read from the module's source)."""
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(hotc.__path__, "hotc."):
        if info.name == "hotc.__main__":  # runs the command line
            continue
        module = importlib.import_module(info.name)
        source = inspect.getsource(module)
        for name in re.findall(r"^@model(?:\(slots=True\))?\nclass (\w+)", source, re.M):
            found[f"{module.__name__}.{name}"] = getattr(module, name)
    return [found[k] for k in sorted(found)]


def _twin(cls: type) -> type:
    """The dataclass ``@dataclass(frozen=True, slots=...)`` makes of the same fields and the same methods."""
    own = {
        k: v
        for k, v in vars(cls).items()
        if k not in ("__dict__", "__weakref__", "__slots__", "__dataclass_fields__", "__dataclass_params__")
        and (k not in ("__init__", "__repr__", "__eq__", "__hash__") or _written(v))
        and k not in ("__setattr__", "__delattr__", "__match_args__")
        and k not in ("__getstate__", "__setstate__", "__doc__")
        and k not in {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    }
    ns: dict[str, Any] = dict(own)
    ns["__annotations__"] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        ns["__annotations__"][f.name] = f.type
        kw: dict[str, Any] = {
            "init": f.init,
            "repr": f.repr,
            "hash": f.hash,
            "compare": f.compare,
            "kw_only": f.kw_only,
            "metadata": f.metadata,
        }
        if f.default is not dataclasses.MISSING:
            kw["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            kw["default_factory"] = f.default_factory
        ns[f.name] = dataclasses.field(**kw)
    documented = cls.__dict__.get("__doc__")
    ns["__doc__"] = documented if isinstance(documented, str) else None
    ns["__module__"] = cls.__module__
    ns["__qualname__"] = cls.__qualname__
    bases = tuple(b for b in cls.__bases__)
    plain = type(cls.__name__, bases if bases != (object,) else (), ns)
    return dataclasses.dataclass(frozen=True, slots="__slots__" in vars(cls))(plain)


def _written(fn: Any) -> bool:
    """A method the class body wrote (not a stub of hotc.model, nor what it compiled)."""
    code = getattr(fn, "__code__", None)
    return fn is None or (code is not None and code.co_name != "stub" and code.co_filename != "<string>")


def _no_address(text: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def _sample(cls: type) -> dict[str, Any]:
    return {
        f.name: f"<{f.name}>"
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }


MODELS = _models()


def test_the_models_are_found() -> None:
    names = {f"{c.__module__}.{c.__qualname__}" for c in MODELS}
    assert {"hotc.errors.Diagnostic", "hotc.parser.ir.Resource", "hotc.parser.functions.GetAttr"} <= names
    assert len(MODELS) >= 120


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_model_is_the_dataclass_of_its_definition(cls: type) -> None:
    twin = _twin(cls)
    assert dataclasses.is_dataclass(cls)
    params, twin_params = cls.__dataclass_params__, twin.__dataclass_params__  # type: ignore[attr-defined]
    assert [getattr(params, s) for s in type(params).__slots__] == [
        getattr(twin_params, s) for s in type(twin_params).__slots__
    ]
    assert [(f.name, f.type, f.init, f.repr, f.compare, f.hash) for f in dataclasses.fields(cls)] == [  # type: ignore[arg-type]
        (f.name, f.type, f.init, f.repr, f.compare, f.hash)
        for f in dataclasses.fields(twin)  # type: ignore[arg-type]
    ]
    assert (
        cls.__doc__ == twin.__doc__
    )  # an undocumented class's: its name and signature, as dataclass writes it
    assert cls.__match_args__ == twin.__match_args__  # type: ignore[attr-defined]
    assert ("__slots__" in vars(cls)) == ("__slots__" in vars(twin))
    args = _sample(cls)
    try:
        twin_obj = twin(**args)
    except Exception as exc:  # a __post_init__ that refuses the sample: the model refuses it the same way
        with pytest.raises(type(exc)):
            cls(**args)
        assert str(inspect.signature(cls)) == str(inspect.signature(twin))
        return
    obj = cls(**args)
    assert str(inspect.signature(cls)) == str(inspect.signature(twin))  # once built (before: the stub's)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        a, b = getattr(obj, f.name), getattr(twin_obj, f.name)
        assert a == b or (f.default_factory is not dataclasses.MISSING and type(a) is type(b)), f.name
    assert _no_address(repr(obj)) == _no_address(repr(twin_obj))
    assert obj == dataclasses.replace(obj) and obj != twin_obj and obj.__eq__(twin_obj) is NotImplemented
    if cls.__hash__ is not None:
        try:
            expected = hash(twin_obj)
        except TypeError:  # a field holds a dict
            with pytest.raises(TypeError):
                hash(obj)
        else:
            assert hash(obj) == expected
    else:
        assert twin.__hash__ is None
    name = dataclasses.fields(cls)[0].name if dataclasses.fields(cls) else "x"  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, name, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(obj, name)


def test_what_a_model_generates_case_by_case() -> None:
    made: list[str] = []

    @model(slots=True)
    class Base:
        name: str
        pos: int | None = None

    @model(slots=True)
    class Child(Base):
        """A documented child."""

        items: tuple[int, ...] = ()
        extra: dict[str, int] = dataclasses.field(default_factory=dict)
        memo: str = dataclasses.field(default="m", compare=False, repr=False)
        later: int = dataclasses.field(default=0, init=False)
        flag: bool = dataclasses.field(default=False, kw_only=True)

    @model
    class Checked:
        value: int

        def __post_init__(self) -> None:
            made.append(f"post {self.value}")
            if self.value < 0:
                raise ValueError("negative")

    @model
    class OwnEq:
        value: int

        def __eq__(self, other: object) -> bool:
            return True

        def __repr__(self) -> str:
            return "own"

    @model
    class Holder:
        items: list[Any]

    assert Base.__doc__ == "Base(name: 'str', pos: 'int | None' = None)"  # read before the class is built
    c = Child("a", 1, (2,), memo="x", flag=True)
    assert str(inspect.signature(Child)) == (
        "(name: 'str', pos: 'int | None' = None, items: 'tuple[int, ...]' = (), "
        "extra: 'dict[str, int]' = <factory>, memo: 'str' = 'm', *, flag: 'bool' = False) -> None"
    )
    assert Child.__doc__ == "A documented child."
    assert (
        repr(c)
        == "test_what_a_model_generates_case_by_case.<locals>.Child(name='a', pos=1, items=(2,), extra={}, later=0, flag=True)"
    )
    assert c.extra == {} and c.extra is not Child("a").extra and c.later == 0
    assert c == Child("a", 1, (2,), memo="other", flag=True) and c != Child("a", 1, (2,), flag=False)
    assert Base("a") == Base("a") and hash(Base("a", 1)) == hash(("a", 1)) and Base("a") != Child("a")
    with pytest.raises(TypeError):
        Child("a", 1, (), {}, "m", True)  # type: ignore[misc]  # flag is keyword-only
    with pytest.raises(TypeError):
        Base()  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.name = "b"  # type: ignore[misc]
    assert dataclasses.replace(c, name="z").name == "z" and dataclasses.asdict(Base("a")) == {
        "name": "a",
        "pos": None,
    }

    class Loose(Base):  # not a dataclass: it has a __dict__, and only the fields are frozen
        pass

    loose = Loose("a")
    loose.extra = 1  # type: ignore[attr-defined]
    assert loose.extra == 1  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'name'"):
        loose.name = "b"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'pos'"):
        del loose.pos  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'extra'"):
        c.extra = {}  # type: ignore[misc]  # a subclass's own field, through its own frozen __setattr__
    assert Checked(2).value == 2 and made == ["post 2"]
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)
    assert (
        OwnEq(1) == OwnEq(2)
        and repr(OwnEq(1)) == "own"
        and OwnEq.__hash__ is not None
        and hash(OwnEq(1)) == hash((1,))
    )
    h = Holder([])
    h.items.append(h)
    assert repr(h).endswith("Holder(items=[...])")
    assert pickle.loads(pickle.dumps(Pos := __import__("hotc.errors").errors.Pos("f", 1, 2))) == Pos
    assert copy.copy(c) == c and copy.deepcopy(c) == c


def test_a_model_is_compiled_once_when_many_threads_build_it_first() -> None:
    @model(slots=True)
    class Fresh:
        a: int
        b: str = "b"

    assert vars(Fresh)["__init__"].__code__.co_name == "stub"  # nothing compiled until it is built
    barrier = threading.Barrier(8)
    out: list[Any] = []

    def build(i: int) -> None:
        barrier.wait()
        out.append(Fresh(i))

    threads = [threading.Thread(target=build, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(o.a for o in out) == list(range(8)) and all(o.b == "b" for o in out)
    assert vars(Fresh)["__init__"].__code__.co_name == "__init__"  # the stub is gone
    assert Fresh.__init__.__qualname__.endswith("Fresh.__init__")


def _subclasses(cls: type) -> list[type]:
    out: list[type] = []
    todo = list(cls.__subclasses__())
    while todo:
        sub = todo.pop()
        out.append(sub)
        todo.extend(sub.__subclasses__())
    return out


def test_a_slotted_model_sets_each_field_through_its_slot_and_no_subclass_hides_one() -> None:
    # the __init__ of a model with slots sets a field through the slot's descriptor, bound when compiled: that is
    # what object.__setattr__ finds only while no subclass declares the name again (a slot or an attribute)
    slotted = [c for c in MODELS if "__slots__" in vars(c)]
    assert len(slotted) >= 60
    for cls in slotted:
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        for sub in _subclasses(cls):
            hidden = sorted(n for n in names if n in vars(sub) and vars(sub)[n] is not getattr(cls, n, None))
            assert not hidden, f"{sub.__qualname__} declares {hidden} again over {cls.__qualname__}'s slots"

    @model(slots=True)
    class Base:
        a: int
        b: str = "b"

    @model(slots=True)
    class Child(Base):
        c: float = 0.5

    child = Child(1, "x", 2.5)
    assert (child.a, child.b, child.c) == (1, "x", 2.5) and Child.__slots__ == ("c",)
    code = vars(Child)["__init__"].__code__
    assert code.co_name == "__init__" and "__setattr__" not in code.co_names  # every field by its slot
    assert Base(2) == Base(2, "b") and Base(2).b == "b"
