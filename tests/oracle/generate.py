"""The oracle's seeded case generator: small HOT templates (with environments, nested templates and
parameters) that exercise every version, every function and condition function, parameters of every type
and constraint, environments with merge strategies, template resources, ResourceGroup and the Heat-native
resources whose values Heat computes without a cloud (Value, RandomString, TestResource, None).

It knows nothing of hotc (it imports neither hotc nor its grammar): the versions and functions below are
the generator's own statement of what to exercise, and the ground truth is whatever Heat answers. Each case
is a pure function of ``(seed, index)``; its :attr:`Case.key` hashes what is sent (template, files,
environment files, parameters), so Heat's cached answers stay valid exactly as long as the case is the same.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from tests.oracle.wide import WIDE_FAMILIES, WIDE_START
from tests.oracle.wide import version_for as wide_version

VERSIONS = (
    "2013-05-23",
    "2014-10-16",
    "2015-04-30",
    "2015-10-15",
    "2016-04-08",
    "2016-10-14",
    "2017-02-24",
    "2017-09-01",
    "2018-03-02",
    "2018-08-31",
    "2021-04-16",
)
ALIASES = {
    "newton": "2016-10-14",
    "ocata": "2017-02-24",
    "pike": "2017-09-01",
    "queens": "2018-03-02",
    "rocky": "2018-08-31",
    "wallaby": "2021-04-16",
}
#: Release names Heat has no template version for, and malformed dates (the generator's invalid versions).
BAD_VERSIONS = ("stein", "2019-01-01", "2016-10-15", "xena", "2013-05-22")

#: The first version in which each function exists (the generator's own reading of Heat's template classes).
SINCE = {
    "get_param": "2013-05-23",
    "get_resource": "2013-05-23",
    "get_attr": "2013-05-23",
    "get_file": "2013-05-23",
    "list_join": "2013-05-23",
    "str_replace": "2013-05-23",
    "resource_facade": "2013-05-23",
    "digest": "2015-04-30",
    "repeat": "2015-04-30",
    "str_split": "2015-10-15",
    "map_merge": "2016-04-08",
    "yaql": "2016-10-14",
    "map_replace": "2016-10-14",
    "if": "2016-10-14",
    "filter": "2017-02-24",
    "str_replace_strict": "2017-02-24",
    "make_url": "2017-09-01",
    "list_concat": "2017-09-01",
    "list_concat_unique": "2017-09-01",
    "contains": "2017-09-01",
    "str_replace_vstrict": "2017-09-01",
}
#: CloudFormation functions of the first HOT version, and the version that removed each.
CFN_UNTIL = {
    "Fn::Select": "2015-10-15",
    "Fn::Join": "2014-10-16",
    "Fn::Split": "2014-10-16",
    "Fn::Replace": "2014-10-16",
    "Fn::Base64": "2014-10-16",
    "Fn::MemberListToMap": "2014-10-16",
    "Ref": "2014-10-16",
}


def date_of(version: str) -> str:
    return ALIASES.get(version, version)


def has(version: str, fn: str) -> bool:
    d = date_of(version)
    if d not in VERSIONS:
        return False
    if fn in CFN_UNTIL:
        return d < CFN_UNTIL[fn]
    return d >= SINCE[fn]


@dataclass(frozen=True)
class Case:
    """One generated case: what is sent to Heat and to hotc, and the labels the tables group by."""

    index: int
    family: str
    function: str  # the function/feature under test (a label for the tables)
    intent: str  # what the generator meant: valid, arg-error, runtime-error, invalid-template, ...
    version: str
    template: str
    files: dict[str, str] = field(default_factory=dict)
    env_files: tuple[str, ...] = ()
    parameters: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        blob = json.dumps(
            [
                self.template,
                sorted(self.files.items()),
                list(self.env_files),
                sorted(self.parameters.items()),
            ],
            sort_keys=True,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:20]

    @property
    def stack_name(self) -> str:
        return "fo-" + self.key[:10]


def dump(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=120)


# ----------------------------------------------------------------------------- building blocks


class Builder:
    """A template under construction: parameters, conditions, resources and outputs, for one version."""

    def __init__(self, rng: random.Random, version: str) -> None:
        self.rng = rng
        self.version = version
        self.parameters: dict[str, Any] = {}
        self.conditions: dict[str, Any] = {}
        self.resources: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}
        self.files: dict[str, str] = {}
        self.env_docs: list[dict[str, Any]] = []
        self.cli: dict[str, str] = {}
        self._n = 0

    def name(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def at_least(self, d: str) -> bool:
        v = date_of(self.version)
        return v in VERSIONS and v >= d

    def value_res(self, value: Any, vtype: str | None = None) -> str:
        """An OS::Heat::Value holding ``value``; returns its get_attr expression."""
        n = self.name("v")
        props: dict[str, Any] = {"value": value}
        if vtype:
            props["type"] = vtype
        self.resources[n] = {"type": "OS::Heat::Value", "properties": props}
        return n

    def runtime(self, value: Any) -> Any:
        """``value`` as Heat only knows it at create time (through a Value resource), or as a literal."""
        if self.rng.random() < 0.45:
            return {"get_attr": [self.value_res(value), "value"]}
        return value

    def output(self, expr: Any, condition: str | None = None) -> str:
        n = self.name("o")
        o: dict[str, Any] = {"value": expr}
        if condition is not None:
            o["condition"] = condition
        self.outputs[n] = o
        return n

    def doc(self, with_version_date: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {"heat_template_version": self.version}
        if self.parameters:
            d["parameters"] = self.parameters
        if self.conditions:
            d["conditions"] = self.conditions
        d["resources"] = self.resources
        if self.outputs:
            d["outputs"] = self.outputs
        return d

    def text(self) -> str:
        t = dump(self.doc())
        if self.rng.random() < 0.3 and date_of(self.version) == self.version:
            # an unquoted date, as most templates write it (YAML reads a date; Heat takes it)
            t = t.replace(
                f"heat_template_version: '{self.version}'", f"heat_template_version: {self.version}"
            )
        return t


def scalar(rng: random.Random) -> Any:
    return rng.choice(["a", "b,c", "x y", "", "10", 3, 0, -2, 1.5, True, False, None, "a%b", "$x"])


def small_list(rng: random.Random, kind: str = "mixed") -> list[Any]:
    n = rng.randint(0, 4)
    if kind == "str":
        return [rng.choice(["a", "b", "c", "d", "a b", "", "1"]) for _ in range(n)]
    if kind == "int":
        return [rng.randint(-3, 9) for _ in range(n)]
    return [scalar(rng) for _ in range(n)]


def small_map(rng: random.Random) -> dict[str, Any]:
    return {
        rng.choice(["k", "a", "b", "c", "x", "1"]) + str(i): scalar(rng) for i in range(rng.randint(0, 3))
    }


def any_value(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.4:
        return scalar(rng)
    if r < 0.7:
        return small_list(rng)
    if r < 0.9:
        return small_map(rng)
    return [small_map(rng), small_list(rng, "str")]


# ----------------------------------------------------------------------------- function families

# Each returns (function label, intent) after adding outputs/resources to the builder.


def fam_list_join(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    if r < 0.5:
        args: Any = [rng.choice([",", " ", "", "-"]), b.runtime(small_list(rng, "str"))]
        if b.at_least("2015-10-15") and rng.random() < 0.4:
            args.append(b.runtime(small_list(rng, "str")))
    elif r < 0.7:
        args = [",", b.runtime(small_list(rng))]  # numbers, nulls, maps inside
        intent = "maybe-runtime-error"
    elif r < 0.85:
        args = rng.choice([[",", b.runtime("notalist")], [",", b.runtime({"a": 1})], [",", b.runtime(5)]])
        intent = "runtime-error"
    else:
        args = rng.choice([",", [","], [1, ["a"]], [",", ["a"], "b"], {"a": 1}, [None, ["a"]]])
        intent = "arg-error"
    b.output({"list_join": args})
    if rng.random() < 0.3:
        b.output({"list_join": ["/", ["x", {"get_param": "OS::stack_name"}]]})
    return "list_join", intent


def fam_str_replace(b: Builder) -> tuple[str, str]:
    rng = b.rng
    fn = "str_replace"
    if b.at_least("2017-09-01"):
        fn = rng.choice(["str_replace", "str_replace_strict", "str_replace_vstrict"])
    elif b.at_least("2017-02-24"):
        fn = rng.choice(["str_replace", "str_replace_strict"])
    intent = "valid"
    tmpl = rng.choice(["hello $name", "a-b-c", "$x and $y", "nothing", "", "$x$x"])
    params: Any = {
        rng.choice(["$name", "$x", "-", "$y", "b", "nomatch"]): b.runtime(
            rng.choice(["W", 5, "", [1, 2], {"a": 1}, None])
        )
        for _ in range(rng.randint(1, 2))
    }
    r = rng.random()
    if r < 0.65:
        arg: Any = {"template": b.runtime(tmpl), "params": params}
    elif r < 0.8:
        arg = {"template": b.runtime(rng.choice([5, ["a"], {"a": 1}])), "params": params}
        intent = "runtime-error"
    else:
        arg = rng.choice(
            [
                {"template": "x"},
                {"params": {"a": "b"}},
                ["x", {"a": "b"}],
                {"template": "x", "params": "notamap"},
                {"template": "x", "params": {"a": "b"}, "extra": 1},
                "x",
            ]
        )
        intent = "arg-error"
    b.output({fn: arg})
    return fn, intent


def fam_str_split(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    if r < 0.5:
        args: Any = [rng.choice([",", " ", "-"]), b.runtime(rng.choice(["a,b,c", "a b", "", "x-y-z", ",,"]))]
        if rng.random() < 0.4:
            args.append(b.runtime(rng.choice([0, 1, 2, 5, "1", -1])))
            intent = "maybe-runtime-error"
    elif r < 0.75:
        args = [",", b.runtime(rng.choice([5, ["a,b"], {"a": 1}, None, True]))]
        intent = "runtime-error"
    else:
        args = rng.choice([[","], ",", [",", "a", 0, 1], {"a": 1}, [5, "a,b"], [None, "a"]])
        intent = "arg-error"
    b.output({"str_split": args})
    return "str_split", intent


def fam_digest(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    if r < 0.6:
        args: Any = [
            rng.choice(["md5", "sha1", "sha256", "sha512"]),
            b.runtime(rng.choice(["abc", "", "héllo"])),
        ]
    elif r < 0.8:
        args = [rng.choice(["sha3", "nope", "MD5"]), b.runtime("abc")]
        intent = "maybe-runtime-error"
    else:
        args = rng.choice([["md5"], "md5", ["md5", 5], ["md5", ["a"]], [5, "a"], ["md5", "a", "b"]])
        intent = "arg-error"
    b.output({"digest": args})
    return "digest", intent


def fam_repeat(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    if r < 0.6:
        body: Any = rng.choice(["<%x%>", {"k": "<%x%>"}, ["<%x%>-<%y%>"], "p<%x%>q<%y%>"])
        fe: dict[str, Any] = {"<%x%>": b.runtime(small_list(rng, "str"))}
        if rng.random() < 0.5:
            fe["<%y%>"] = b.runtime(small_list(rng, "str"))
        arg: Any = {"template": body, "for_each": fe}
        if b.at_least("2017-09-01") and rng.random() < 0.4:
            arg["permutations"] = rng.choice([True, False])
            intent = "maybe-runtime-error"
    elif r < 0.8:
        arg = {"template": "<%x%>", "for_each": {"<%x%>": b.runtime(rng.choice(["abc", 5, {"a": 1}, None]))}}
        intent = "runtime-error"
    else:
        arg = rng.choice(
            [
                {"template": "x"},
                {"for_each": {"x": ["a"]}},
                ["x", {"x": [1]}],
                {"template": "x", "for_each": "notamap"},
                {"template": "x", "for_each": {"x": ["a"]}, "extra": 1},
                {"template": "x", "for_each": {"x": ["a"]}, "permutations": "yes"},
            ]
        )
        intent = "arg-error"
    b.output({"repeat": arg})
    return "repeat", intent


def fam_map_merge(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    if r < 0.6:
        args: Any = [b.runtime(small_map(rng)) for _ in range(rng.randint(1, 3))]
    elif r < 0.8:
        args = [b.runtime(small_map(rng)), b.runtime(rng.choice([["a"], "s", 5, None]))]
        intent = "runtime-error"
    else:
        args = rng.choice([{"a": 1}, "x", 5, [{"a": 1}, "x"]])
        intent = "arg-error"
    b.output({"map_merge": args})
    return "map_merge", intent


def fam_map_replace(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    src = {"a": 1, "b": "x", "c": None}
    if r < 0.6:
        spec: dict[str, Any] = {}
        if rng.random() < 0.7:
            spec["keys"] = rng.choice([{"a": "A"}, {"a": "b"}, {"z": "Z"}, {}])
        if rng.random() < 0.7:
            spec["values"] = rng.choice([{"x": "X"}, {1: "one"}, {}])
        args: Any = [b.runtime(src), spec]
        intent = "maybe-runtime-error"
    elif r < 0.8:
        args = [b.runtime(rng.choice([["a"], "s", 5])), {"keys": {"a": "b"}}]
        intent = "runtime-error"
    else:
        args = rng.choice([[src], src, [src, {"keys": "x"}], [src, {"other": {}}], [src, {"keys": {}}, 1]])
        intent = "arg-error"
    b.output({"map_replace": args})
    return "map_replace", intent


YAQL_OK = [
    "$.data.a + 1",
    "$.data.l.len()",
    "$.data.l.select($ * 2)",
    "$.data.l.where($ > 1)",
    "$.data.l.distinct()",
    "$.data.s.toUpper()",
    "$.data.m.keys()",
    "$.data.m.values()",
    "$.data.l.orderBy($)",
    "dict($.data.m.items())",
    "$.data.l.first()",
    "$.data.l.sum()",
    "list($.data.l)",
    "$.data.l.toList()",
    "$.data.s.split(',')",
    "$.data.l.join(',')",
    "range(3)",
    "$.data.l.skip(1)",
    "$.data.l.take(2)",
    "$.data.m.get(a)",
    "$.data.l[0]",
    "len($.data.s)",
    "$.data.s + 'x'",
    "set($.data.l)",
    "$.data",
]
YAQL_BAD = ["1/0", "$.data.nope.len()", "$.data.l[9]", "foo(", "$.data.s + 1", "$.data.l.first(", "int('x')"]


def fam_yaql(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    data = {
        "a": rng.randint(0, 5),
        "l": rng.choice([[1, 2, 3], [3, 1, 2, 1], [], [1]]),
        "s": "a,b",
        "m": {"a": 1, "b": 2},
    }
    r = rng.random()
    if r < 0.6:
        expr = rng.choice(YAQL_OK)
        arg: Any = {"expression": expr, "data": b.runtime(data)}
        intent = "maybe-runtime-error"
    elif r < 0.8:
        arg = {"expression": rng.choice(YAQL_BAD), "data": b.runtime(data)}
        intent = "runtime-error"
    else:
        arg = rng.choice(
            [{"data": data}, "1+1", {"expression": 5, "data": {}}, {"expression": "1", "other": 1}]
        )
        intent = "arg-error"
    expr_out = b.output({"yaql": arg})
    # a yaql result consumed by list functions (Heat's yaql results are tuples where yaql makes sequences)
    if b.at_least("2017-09-01") and rng.random() < 0.4:
        y = {
            "yaql": {
                "expression": rng.choice(["$.data.l.select($ * 2)", "$.data.l.where($ > 1)", "$.data.l"]),
                "data": data,
            }
        }
        consumer = rng.choice(
            [
                {"list_concat": [y, [9]]},
                {"list_join": [",", y]},
                {"filter": [[2], y]},
                {"contains": [2, y]},
                {"repeat": {"template": "<%x%>", "for_each": {"<%x%>": y}}},
                {"list_concat_unique": [y]},
            ]
        )
        b.output(consumer)
    del expr_out
    return "yaql", intent


def fam_filter(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    if r < 0.6:
        args: Any = [b.runtime(rng.choice([[None], ["a"], [1, "b"], []])), b.runtime(small_list(rng))]
    elif r < 0.8:
        args = [rng.choice([None, "a", ["a"]]), b.runtime(rng.choice(["abc", 5, {"a": 1}]))]
        intent = "runtime-error"
    else:
        args = rng.choice([["a"], "a", [["a"], ["b"], ["c"]], {"a": 1}])
        intent = "arg-error"
    b.output({"filter": args})
    return "filter", intent


def fam_make_url(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    if r < 0.6:
        arg: dict[str, Any] = {
            "scheme": rng.choice(["http", "https"]),
            "host": rng.choice(["h.example", "::1", "10.0.0.1"]),
        }
        for k, vals in (
            ("port", [80, "8080", 0]),
            ("path", ["/a b", "x", ""]),
            ("query", [{"a": "1", "b": "x y"}, {}]),
            ("fragment", ["f", ""]),
            ("username", ["u", "u@x"]),
            ("password", ["p:w"]),
        ):
            if rng.random() < 0.4:
                arg[k] = b.runtime(rng.choice(vals))
        intent = "maybe-runtime-error"
    elif r < 0.8:
        arg = {"host": "h", "port": b.runtime(rng.choice([70000, -1, "x", [1]]))}
        intent = "runtime-error"
    else:
        arg = rng.choice([{"hostname": "h"}, "http://h", ["h"], {"host": "h", "query": "a=b"}])  # type: ignore[assignment]
        intent = "arg-error"
    b.output({"make_url": arg})
    return "make_url", intent


def fam_list_concat(b: Builder) -> tuple[str, str]:
    rng = b.rng
    fn = rng.choice(["list_concat", "list_concat_unique"])
    intent = "valid"
    r = rng.random()
    if r < 0.6:
        args: Any = [
            b.runtime(rng.choice([small_list(rng, "str"), [{"a": 1}, {"a": 1}], [1, 1, 2]]))
            for _ in range(rng.randint(1, 3))
        ]
    elif r < 0.8:
        args = [["a"], b.runtime(rng.choice(["s", 5, {"a": 1}, None]))]
        intent = "runtime-error"
    else:
        args = rng.choice([["a", "b"], "a", {"a": 1}, 5])
        intent = "arg-error"
    b.output({fn: args})
    return fn, intent


def fam_contains(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    r = rng.random()
    if r < 0.6:
        args: Any = [
            b.runtime(rng.choice(["a", 1, None, "b"])),
            b.runtime(rng.choice([["a", "b"], [1, 2], "abc", {"a": 1}])),
        ]
        intent = "maybe-runtime-error"
    elif r < 0.8:
        args = ["a", b.runtime(rng.choice([5, None, True]))]
        intent = "runtime-error"
    else:
        args = rng.choice([["a"], "a", ["a", ["a"], "b"], {"a": 1}])
        intent = "arg-error"
    b.output({"contains": args})
    return "contains", intent


def fam_if(b: Builder) -> tuple[str, str]:
    rng = b.rng
    b.conditions["yes"] = True
    b.conditions["no"] = {"equals": [1, 2]}
    intent = "valid"
    r = rng.random()
    cond = rng.choice(["yes", "no", True, False, {"not": "yes"}, {"equals": ["a", "a"]}])
    if r < 0.55:
        args: Any = [cond, b.runtime(any_value(rng)), b.runtime(any_value(rng))]
        if b.at_least("2021-04-16") and rng.random() < 0.4:
            args = [cond, b.runtime(any_value(rng))]
    elif r < 0.75:
        # an error in the branch not taken (Heat evaluates only the branch it takes)
        bad = {"str_split": [",", 5]} if b.at_least("2015-10-15") else {"list_join": [",", 5]}
        args = rng.choice([["yes", "ok", bad], ["no", bad, "ok"], ["no", "ok", bad]])
        intent = "maybe-runtime-error"
    elif r < 0.9:
        args = rng.choice([["missing_cond", 1, 2], [{"equals": [1]}, 1, 2], [{"get_attr": ["x", "y"]}, 1, 2]])
        intent = "invalid-template"
    else:
        args = rng.choice([["yes", 1], "yes", ["yes", 1, 2, 3], {"a": 1}])
        intent = "arg-error"
    b.output({"if": args})
    return "if", intent


def fam_get_param(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    b.parameters["p_json"] = {"type": "json", "default": {"a": [1, {"b": "c"}], "k": "v"}}
    b.parameters["p_list"] = {"type": "comma_delimited_list", "default": "x,y,z"}
    b.parameters["p_str"] = {"type": "string", "default": "s"}
    b.parameters["p_num"] = {"type": "number", "default": 3}
    r = rng.random()
    if r < 0.6:
        arg: Any = rng.choice(
            [
                "p_json",
                "p_list",
                "p_str",
                "p_num",
                ["p_json", "a"],
                ["p_json", "a", 1, "b"],
                ["p_list", 1],
                ["p_list", "1"],
                ["p_json", "a", 0],
                "OS::stack_name",
                ["p_json", "zz"],
                ["p_list", 7],
            ]
        )
        intent = "maybe-runtime-error"
    elif r < 0.8:
        arg = rng.choice(["nope", ["nope", 1], ["p_str", 0], ["p_num", "a"], ["p_json", "k", "x"]])
        intent = "invalid-template"
    else:
        arg = rng.choice([[], {"a": 1}, 5, [5], None])
        intent = "arg-error"
    b.output({"get_param": arg})
    return "get_param", intent


def fam_get_attr(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    v = b.value_res({"a": [1, 2, {"b": "c"}], "s": "x"})
    t = b.name("t")
    b.resources[t] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": rng.choice(["hi", "", "a b"])},
    }
    r = rng.random()
    if r < 0.6:
        arg: Any = rng.choice(
            [
                [v, "value"],
                [v, "value", "a"],
                [v, "value", "a", 2, "b"],
                [v, "value", "zz"],
                [v, "value", "a", 9],
                [t, "output"],
                [t, "output", 0],
                [v, "value", "s", "x"],
            ]
        )
        if b.at_least("2015-10-15") and rng.random() < 0.2:
            arg = [v]
        intent = "maybe-runtime-error"
    elif r < 0.8:
        arg = rng.choice([[v, "nosuch"], ["nores", "value"], [t, "nosuch"], [v]])
        intent = "invalid-template"
    else:
        arg = rng.choice([v, [], [5, "value"], {"a": 1}])
        intent = "arg-error"
    b.output({"get_attr": arg})
    if rng.random() < 0.4:
        b.output({"get_resource": rng.choice([v, t, "nores"])})
    return "get_attr", intent


def fam_get_file(b: Builder) -> tuple[str, str]:
    rng = b.rng
    b.files["data.txt"] = "file contents\n"
    b.files["d.json"] = '{"a": 1}\n'
    intent = "valid"
    r = rng.random()
    if r < 0.6:
        arg: Any = rng.choice(["data.txt", "d.json"])
    elif r < 0.8:
        arg = "missing.txt"
        intent = "invalid-template"
    else:
        arg = rng.choice([["data.txt"], {"a": 1}, 5])
        intent = "arg-error"
    b.output({"get_file": arg})
    return "get_file", intent


def fam_cfn(b: Builder) -> tuple[str, str]:
    rng = b.rng
    fn = rng.choice(sorted(CFN_UNTIL))
    intent = "valid"
    v = b.value_res("val")
    b.parameters["p"] = {"type": "string", "default": "pv"}
    good: dict[str, list[Any]] = {
        "Fn::Select": [[1, ["a", "b", "c"]], ["k", {"k": "v"}], [5, ["a"]], ["1", ["a", "b"]]],
        "Fn::Join": [[",", ["a", "b"]], ["", []]],
        "Fn::Split": [[",", "a,b"]],
        "Fn::Replace": [[{"a": "X"}, "abc"]],
        "Fn::Base64": ["abc"],
        "Fn::MemberListToMap": [["Name", "Value", [".member.0.Name=k", ".member.0.Value=v"]]],
        "Ref": ["p", v],
    }
    bad: dict[str, list[Any]] = {
        "Fn::Select": [["a"], 5],
        "Fn::Join": [",", [",", "a"]],
        "Fn::Split": [",", [",", 5]],
        "Fn::Replace": [["abc"], [{"a": "X"}, 5]],
        "Fn::Base64": [["a"]],
        "Fn::MemberListToMap": [["Name", [".member.0.Name=k"]]],
        "Ref": ["nope", 5],
    }
    if rng.random() < 0.65:
        arg = rng.choice(good[fn])
        if not has(b.version, fn):
            intent = "removed-function"
    else:
        arg = rng.choice(bad[fn])
        intent = "arg-error"
    b.output({fn: arg})
    return fn, intent


def fam_unknown_function(b: Builder) -> tuple[str, str]:
    """A function the version does not have (plain data, or an error in Heat)."""
    rng = b.rng
    later = [f for f in SINCE if not has(b.version, f)]
    fn = rng.choice(later) if later else rng.choice(["not_a_function", "Fn::GetAtt", "Fn::If"])
    arg = rng.choice([[",", ["a"]], {"template": "x", "params": {}}, "x", [1, 2]])
    b.output({fn: arg})
    if rng.random() < 0.5:
        b.resources["n0"] = {"type": "OS::Heat::Value", "properties": {"value": {fn: arg}}}
    return fn, "unknown-function"


FUNCTION_FAMILIES: dict[str, Callable[[Builder], tuple[str, str]]] = {
    "list_join": fam_list_join,
    "str_replace": fam_str_replace,
    "str_split": fam_str_split,
    "digest": fam_digest,
    "repeat": fam_repeat,
    "map_merge": fam_map_merge,
    "map_replace": fam_map_replace,
    "yaql": fam_yaql,
    "filter": fam_filter,
    "make_url": fam_make_url,
    "list_concat": fam_list_concat,
    "contains": fam_contains,
    "if": fam_if,
    "get_param": fam_get_param,
    "get_attr": fam_get_attr,
    "get_file": fam_get_file,
}
FAMILY_SINCE = {
    "list_join": "2013-05-23",
    "str_replace": "2013-05-23",
    "get_param": "2013-05-23",
    "get_attr": "2013-05-23",
    "get_file": "2013-05-23",
    "digest": "2015-04-30",
    "repeat": "2015-04-30",
    "str_split": "2015-10-15",
    "map_merge": "2016-04-08",
    "map_replace": "2016-10-14",
    "yaql": "2016-10-14",
    "if": "2016-10-14",
    "filter": "2017-02-24",
    "make_url": "2017-09-01",
    "list_concat": "2017-09-01",
    "contains": "2017-09-01",
}


# ----------------------------------------------------------------------------- conditions


def cond_expr(b: Builder, depth: int = 0) -> Any:
    rng = b.rng
    v = date_of(b.version)
    kinds = ["bool", "equals", "not", "and", "or", "name", "get_param_equals"]
    if v >= "2017-09-01":
        kinds += ["contains", "yaql"]
    k = rng.choice(kinds if depth < 2 else ["bool", "equals", "name"])
    if k == "bool":
        return rng.choice([True, False, "true", "false", "yes"])
    if k == "equals":
        return {"equals": [rng.choice(["a", 1, None, [1]]), rng.choice(["a", 1, None, [1], "1"])]}
    if k == "get_param_equals":
        return {"equals": [{"get_param": "env"}, rng.choice(["prod", "dev"])]}
    if k == "not":
        return {"not": cond_expr(b, depth + 1)}
    if k in ("and", "or"):
        return {k: [cond_expr(b, depth + 1) for _ in range(rng.randint(2, 3))]}
    if k == "contains":
        return {"contains": [{"get_param": "env"}, ["prod", "stage"]]}
    if k == "yaql":
        return {
            "yaql": {
                "expression": rng.choice(["$.data.e = 'prod'", "$.data.n > 2", "len($.data.l) > 0"]),
                "data": {"e": {"get_param": "env"}, "n": 3, "l": [1]},
            }
        }
    others = [c for c in b.conditions if c != "_self"]
    return rng.choice(others) if others else True


def fam_conditions(b: Builder) -> tuple[str, str]:
    rng = b.rng
    b.parameters["env"] = {"type": "string", "default": rng.choice(["prod", "dev"])}
    if rng.random() < 0.3:
        b.cli["env"] = rng.choice(["prod", "dev", "stage"])
    intent = "valid"
    label = "conditions"
    for i in range(rng.randint(1, 3)):
        b.conditions[f"c{i}"] = cond_expr(b)
    r = rng.random()
    if r < 0.15:
        bad = rng.choice(
            [
                {"equals": [1]},
                {"not": [True, False]},
                {"and": [True]},
                {"or": "x"},
                {"get_attr": ["v", "value"]},
                {"list_join": [",", ["a"]]},
                "undefined_cond",
                {"yaql": {"expression": "1/0", "data": {}}},
                {"equals": [{"get_param": "nope"}, 1]},
            ]
        )
        cname = "bad"
        b.conditions[cname] = bad
        if rng.random() < 0.5:
            b.output(1, condition=cname)
            intent = "invalid-condition"
        else:
            intent = "unused-bad-condition"
        label = "conditions/bad"
    names = list(b.conditions)
    v = b.value_res(rng.choice(["val", 1, [1]]))
    b.resources[v]["condition"] = rng.choice(names + [True, False] if b.at_least("2017-09-01") else names)
    b.output({"get_attr": [v, "value"]}, condition=rng.choice(names))
    b.output({"get_attr": [v, "value"]})  # a reference to a possibly disabled resource
    if rng.random() < 0.4:
        b.output({"if": [rng.choice(names), {"get_attr": [v, "value"]}, "other"]})
    if rng.random() < 0.3:
        b.output({"get_resource": v}, condition=rng.choice(names))
    return label, intent


# ----------------------------------------------------------------------------- parameters


def param_case(rng: random.Random, version: str) -> tuple[dict[str, Any], Any, str]:
    """A parameter definition, a value to pass (or the marker ``...`` for none), and an intent."""
    ptype = rng.choice(["string", "number", "json", "comma_delimited_list", "boolean"])
    d: dict[str, Any] = {"type": ptype}
    intent = "valid"
    good_vals: dict[str, list[Any]] = {
        "string": ["abc", "", "12", "a,b"],
        "number": [3, "7", "2.5", 0, "-1"],
        "json": [{"a": 1}, '{"a": [1]}', "[1,2]", [1, 2]],
        "comma_delimited_list": ["a,b", ["x", "y"], "", "a, b ,c"],
        "boolean": [True, "false", "yes", "0", "on", "t"],
    }
    bad_vals: dict[str, list[Any]] = {
        "string": [["a"], {"a": 1}],
        "number": ["abc", "1e", "", [1]],
        "json": ["{bad", "x"],
        "comma_delimited_list": [{"a": 1}, 5],
        "boolean": ["maybe", "2", ""],
    }
    r = rng.random()
    if r < 0.75:
        default = rng.choice(good_vals[ptype])
    else:
        default = rng.choice(bad_vals[ptype])
        intent = "bad-default"
    if rng.random() < 0.8:
        d["default"] = default
    elif intent == "bad-default":
        intent = "valid"
    if rng.random() < 0.15:
        d["hidden"] = True
    if rng.random() < 0.3:
        d["label"] = "L"
        d["description"] = "D"
    cons: list[dict[str, Any]] = []
    if rng.random() < 0.6:
        if ptype == "string":
            cons.append(
                rng.choice(
                    [
                        {"length": {"min": 1}},
                        {"length": {"min": 2, "max": 3}},
                        {"allowed_values": ["abc", "12", "x"]},
                        {"allowed_pattern": "[a-z]+"},
                        {"allowed_pattern": "[0-9]*"},
                    ]
                )
            )
        elif ptype == "number":
            c = rng.choice(
                [{"range": {"min": 0}}, {"range": {"min": 1, "max": 5}}, {"allowed_values": [3, 7, 1]}]
            )
            if date_of(version) >= "2017-02-24" and rng.random() < 0.3:
                c = {"modulo": {"step": 2, "offset": 1}}
            cons.append(c)
        elif ptype == "comma_delimited_list":
            cons.append(rng.choice([{"length": {"min": 2}}, {"allowed_values": ["a", "b", "x", "y"]}]))
        elif ptype == "json":
            cons.append(rng.choice([{"length": {"max": 1}}, {"length": {"min": 1}}]))
        else:
            cons.append(rng.choice([{"allowed_values": [True]}, {"length": {"min": 1}}]))
        if rng.random() < 0.3:
            cons[0]["description"] = "must fit"
    if rng.random() < 0.05:
        cons.append(
            rng.choice(
                [
                    {"range": {"min": "a"}},
                    {"nosuch": 1},
                    {"length": {"min": 5, "max": 1}},
                    {"allowed_values": "x"},
                ]
            )
        )
        intent = "bad-constraint"
    if cons:
        d["constraints"] = cons
    r = rng.random()
    val: Any = ...
    if r < 0.45:
        val = rng.choice(good_vals[ptype] + bad_vals[ptype][:1])
    return d, val, intent


def as_cli(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return ",".join(v)
    return json.dumps(v)


def fam_parameters(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intents = []
    types = []
    for i in range(rng.randint(1, 3)):
        d, val, intent = param_case(rng, b.version)
        name = f"p{i}"
        b.parameters[name] = d
        intents.append(intent)
        types.append(d["type"])
        if val is not ...:
            where = rng.random()
            if where < 0.5:
                b.cli[name] = as_cli(val)
            elif where < 0.75:
                b.env_docs.append({"parameters": {name: val}})
            else:
                b.env_docs.append({"parameter_defaults": {name: val}})
        b.output({"get_param": name})
        if rng.random() < 0.3:
            b.resources[f"r{i}"] = {"type": "OS::Heat::Value", "properties": {"value": {"get_param": name}}}
            b.outputs[f"ro{i}"] = {"value": {"get_attr": [f"r{i}", "value"]}}
    if rng.random() < 0.1:
        b.cli["undeclared"] = "x"
        intents.append("undeclared-parameter")
    if rng.random() < 0.1 and date_of(b.version) >= "2013-05-23":
        b.parameters["pg"] = (
            {"type": "string", "default": "x", "immutable": True}
            if b.at_least("2017-09-01")
            else {"type": "string"}
        )
    bad = [i for i in intents if i != "valid"]
    return "param:" + types[0], (bad[0] if bad else "valid")


# ----------------------------------------------------------------------------- environments


def fam_environment(b: Builder) -> tuple[str, str]:
    """Several environment files: parameters, parameter_defaults and parameter_merge_strategies."""
    rng = b.rng
    ptype = rng.choice(["json", "comma_delimited_list", "string", "number"])
    b.parameters["pm"] = {"type": ptype}
    if rng.random() < 0.5:
        b.parameters["pm"]["default"] = {
            "json": {"d": 0},
            "comma_delimited_list": "d0",
            "string": "d",
            "number": 0,
        }[ptype]
    vals = {
        "json": [{"a": 1}, {"b": [1]}, {"a": {"x": 1}}, {"a": {"y": 2}}],
        "comma_delimited_list": ["a,b", "c", ["x", "y"]],
        "string": ["s1", "s2"],
        "number": [1, 2, "3"],
    }[ptype]
    intent = "valid"
    n = rng.randint(2, 3)
    for _ in range(n):
        env: dict[str, Any] = {}
        section = rng.choice(["parameters", "parameter_defaults"])
        env[section] = {"pm": rng.choice(vals)}
        if rng.random() < 0.5:
            strat = rng.choice(["merge", "overwrite", "deep_merge", "bogus"])
            if strat == "bogus":
                intent = "bad-merge-strategy"
            env["parameter_merge_strategies"] = rng.choice([{"pm": strat}, {"default": strat}])
        b.env_docs.append(env)
    if rng.random() < 0.2:
        b.env_docs.append({"parameters": {"undeclared_env": 1}})
    if rng.random() < 0.1:
        b.env_docs.append({"nosuch_section": {}})
        intent = "bad-environment"
    b.output({"get_param": "pm"})
    return "env:" + ptype, intent


# ----------------------------------------------------------------------------- nested templates


def nested_doc(rng: random.Random, version: str, depth: int, files: dict[str, str], tag: str) -> str:
    """A nested template (and its own nested ones, ``depth`` levels more); returns its file name."""
    name = f"nest_{tag}_{depth}.yaml"
    doc: dict[str, Any] = {
        "heat_template_version": rng.choice([version, "2018-08-31", "2016-10-14"])
        if date_of(version) in VERSIONS
        else "2018-08-31",
        "parameters": {"x": {"type": "string", "default": "dx"}, "n": {"type": "number", "default": 1}},
        "resources": {
            "inner": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"list_join": ["-", [{"get_param": "x"}, "in"]]}},
            }
        },
        "outputs": {"out": {"value": {"get_attr": ["inner", "value"]}}, "nm": {"value": {"get_param": "n"}}},
    }
    r = rng.random()
    if r < 0.1:
        doc["parameters"]["x"]["constraints"] = [{"allowed_values": ["ok"]}]  # the default violates it
    elif r < 0.15:
        doc["resources"]["weird"] = {"type": "OS::Nova::NoSuchType"}
    elif r < 0.2:
        doc["outputs"]["bad"] = {"value": {"get_attr": ["inner", "nosuch"]}}
    elif r < 0.25:
        doc["resources"]["inner"]["properties"]["value"] = (
            {"str_split": [",", 5]}
            if date_of(doc["heat_template_version"]) >= "2015-10-15"
            else {"list_join": [",", 5]}
        )
    if rng.random() < 0.3:
        doc["outputs"]["facade"] = {
            "value": {"resource_facade": rng.choice(["metadata", "deletion_policy", "update_policy"])}
        }
    if rng.random() < 0.2:
        doc["outputs"]["OS::stack_id"] = {"value": {"get_resource": "inner"}}
    if depth > 1:
        child = nested_doc(rng, version, depth - 1, files, tag)
        doc["resources"]["deeper"] = {"type": child, "properties": {"x": {"get_param": "x"}}}
        doc["outputs"]["deep"] = {"value": {"get_attr": ["deeper", "out"]}}
    files[name] = dump(doc)
    return name


def fam_nested(b: Builder) -> tuple[str, str]:
    rng = b.rng
    depth = rng.randint(1, 3)
    nfile = nested_doc(rng, b.version, depth, b.files, "a")
    intent = "valid"
    use_registry = rng.random() < 0.5
    rtype = nfile
    if use_registry:
        rtype = "My::Nested"
        b.env_docs.append({"resource_registry": {"My::Nested": nfile}})
    props: dict[str, Any] = {}
    r = rng.random()
    if r < 0.6:
        props = {"x": b.runtime(rng.choice(["px", "ok", ""]))}
        if rng.random() < 0.3:
            props["n"] = rng.choice([2, "3"])
    elif r < 0.8:
        props = rng.choice([{"nosuch": 1}, {"n": "abc"}, {"x": ["a"]}])
        intent = "bad-nested-property"
    res: dict[str, Any] = {"type": rtype, "properties": props}
    if rng.random() < 0.3:
        res["metadata"] = {"m": 1}
        res["deletion_policy"] = rng.choice(["Delete", "Retain"])
    b.resources["nested"] = res
    b.output({"get_attr": ["nested", "out"]})
    if rng.random() < 0.5:
        b.output({"get_attr": ["nested", rng.choice(["nm", "deep", "facade", "nosuch", "OS::stack_id"])]})
    if rng.random() < 0.3:
        b.output({"get_resource": "nested"})
    if b.at_least("2015-10-15") and rng.random() < 0.2:
        b.output({"get_attr": ["nested"]})
    if rng.random() < 0.15:
        b.resources["missing"] = {"type": "nope.yaml"}
        intent = "missing-template"
    return f"nested:{depth}", intent


# ----------------------------------------------------------------------------- ResourceGroup


def fam_group(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    count: Any = rng.choice([0, 1, 2, 3, "2"])
    if rng.random() < 0.3:
        b.parameters["cnt"] = {"type": "number", "default": rng.choice([0, 2, 3])}
        count = {"get_param": "cnt"}
    member: dict[str, Any] = {
        "type": "OS::Heat::Value",
        "properties": {"value": rng.choice(["m%index%", "%index%", {"i": "%index%"}, 5])},
    }
    if rng.random() < 0.3:
        nfile = nested_doc(rng, b.version, 1, b.files, "g")
        member = {"type": nfile, "properties": {"x": "g%index%"}}
    r = rng.random()
    props: dict[str, Any] = {"count": count, "resource_def": member}
    if rng.random() < 0.2:
        props["index_var"] = "%ix%"
        member["properties"] = (
            {"value": "%ix%-%index%"} if member["type"] == "OS::Heat::Value" else {"x": "%ix%"}
        )
    if rng.random() < 0.15:
        props["removal_policies"] = [{"resource_list": ["0"]}]
    if r < 0.1:
        props["count"] = rng.choice([-1, "x"])
        intent = "bad-group"
    b.resources["grp"] = {"type": "OS::Heat::ResourceGroup", "properties": props}
    attr = "out" if member["type"] != "OS::Heat::Value" else "value"
    for _ in range(rng.randint(1, 3)):
        choice = rng.choice(
            [
                [attr],
                ["refs"],
                ["resource.0", attr],
                ["resource.1"],
                ["refs_map"],
                ["resource.5", attr],
                ["removed_rsrc_list"],
                ["nosuch"],
            ]
        )
        b.output({"get_attr": ["grp", *choice]})
    if b.at_least("2015-10-15") and rng.random() < 0.2:
        b.output({"get_attr": ["grp"]})
    if rng.random() < 0.3:
        b.output({"get_resource": "grp"})
    return "ResourceGroup", intent


# ----------------------------------------------------------------------------- resources


def fam_resources(b: Builder) -> tuple[str, str]:
    rng = b.rng
    intent = "valid"
    kind = rng.choice(["value", "random", "test", "none", "deps"])
    if kind == "value":
        vtype = rng.choice([None, "string", "number", "json", "comma_delimited_list", "boolean"])
        val = rng.choice(["5", 5, "a,b", ["a", "b"], {"a": 1}, "true", True, "x", None, 2.5])
        v = b.value_res(val, vtype)
        b.output({"get_attr": [v, "value"]})
        if rng.random() < 0.3:
            b.output({"get_resource": v})
        return "OS::Heat::Value", "maybe-runtime-error" if vtype else intent
    if kind == "random":
        props: dict[str, Any] = {}
        r = rng.random()
        if r < 0.3:
            props["length"] = rng.choice([1, 8, 32, 0])
        elif r < 0.6:
            props["character_classes"] = [
                {
                    "class": rng.choice(
                        ["lowercase", "digits", "uppercase", "octdigits", "hexdigits", "letters"]
                    ),
                    "min": rng.choice([1, 2]),
                }
            ]
            props["length"] = rng.choice([4, 10])
        elif r < 0.8:
            props["character_sequences"] = [{"sequence": "ab", "min": 2}]
            props["length"] = 6
        else:
            props = rng.choice(
                [
                    {"length": -1},
                    {"length": "x"},
                    {"character_classes": [{"class": "nosuch"}]},
                    {"length": 2, "character_classes": [{"class": "digits", "min": 5}]},
                ]
            )
            intent = "bad-property"
        if rng.random() < 0.2:
            props["salt"] = "s"
        n = b.name("rs")
        b.resources[n] = {"type": "OS::Heat::RandomString", "properties": props}
        if b.at_least("2016-10-14"):
            b.output({"yaql": {"expression": "$.data.len()", "data": {"get_attr": [n, "value"]}}})
            if rng.random() < 0.4:
                b.output({"yaql": {"expression": "$.data.len()", "data": {"get_resource": n}}})
        else:
            b.output({"list_join": ["", []]})
        return "OS::Heat::RandomString", intent
    if kind == "test":
        props = {"value": rng.choice(["tv", 5, ""])}
        if rng.random() < 0.25:
            props["fail"] = True
            intent = "create-fails"
        if rng.random() < 0.1:
            props["nosuch"] = 1
            intent = "bad-property"
        n = b.name("tr")
        b.resources[n] = {"type": "OS::Heat::TestResource", "properties": props}
        b.output({"get_attr": [n, rng.choice(["output", "output", "nosuch"])]})
        return "OS::Heat::TestResource", intent
    if kind == "none":
        n = b.name("nn")
        props = rng.choice(
            [{}, {"anything": [1, 2]}, {"x": {"list_join": [",", 5]}}, {"y": {"get_attr": ["nores", "a"]}}]
        )
        b.resources[n] = {"type": "OS::Heat::None", "properties": props}
        b.output({"get_attr": [n, rng.choice(["anything", "value"])]})
        if rng.random() < 0.5:
            b.output({"get_resource": n})
        return "OS::Heat::None", intent
    a = b.value_res("A")
    c = b.value_res({"get_attr": [a, "value"]})
    b.resources[c]["depends_on"] = rng.choice([a, [a], "nores", [a, a]])
    if rng.random() < 0.2:
        b.resources[a]["depends_on"] = c
        intent = "cycle"
    if b.resources[c]["depends_on"] == "nores":
        intent = "invalid-template"
    b.output({"get_attr": [c, "value"]})
    return "depends_on", intent


# ----------------------------------------------------------------------------- structure


def fam_structure(b: Builder) -> tuple[str, str]:
    rng = b.rng
    v = b.value_res("x")
    choice = rng.choice(
        [
            "bad_section",
            "bad_res_key",
            "bad_out_key",
            "no_type",
            "output_no_value",
            "description",
            "bad_type",
            "empty",
        ]
    )
    intent = "invalid-template"
    if choice == "bad_section":
        b.resources[v]["properties"] = {"value": 1}
        b.conditions = {}
        b.outputs["o"] = {"value": 1}
        b.parameters = {}
        b.files["__extra__"] = "nosuch_section: {}"
    elif choice == "bad_res_key":
        b.resources[v]["nosuch"] = 1
    elif choice == "bad_out_key":
        b.outputs["o"] = {"value": 1, "nosuch": 2}
    elif choice == "no_type":
        b.resources["nt"] = {"properties": {}}
    elif choice == "output_no_value":
        b.outputs["o"] = {"description": "x"}
    elif choice == "description":
        b.outputs["o"] = {"value": 1, "description": "d"}
        intent = "valid"
    elif choice == "bad_type":
        b.resources["bt"] = {"type": "OS::Heat::NoSuch"}
    elif choice == "empty":
        b.resources.clear()
        b.outputs["o"] = {"value": {"get_param": "OS::stack_name"}}
        intent = "valid"
    return "structure:" + choice, intent


FAMILIES: list[tuple[str, float]] = [
    ("function", 0.45),
    ("cfn", 0.04),
    ("unknown_function", 0.03),
    ("conditions", 0.1),
    ("parameters", 0.1),
    ("environment", 0.06),
    ("nested", 0.09),
    ("group", 0.06),
    ("resources", 0.05),
    ("structure", 0.02),
]


def generate_one(seed: int, index: int) -> Case:
    if index >= WIDE_START:
        return _wide_one(seed, index)
    rng = random.Random(f"{seed}:{index}")
    r = rng.random()
    if r < 0.04:
        version = rng.choice(BAD_VERSIONS)
    elif r < 0.24:
        version = rng.choice(sorted(ALIASES))
    else:
        version = rng.choice(VERSIONS)
    b = Builder(rng, version)
    x = rng.random()
    acc = 0.0
    family = FAMILIES[-1][0]
    for name, w in FAMILIES:
        acc += w
        if x < acc:
            family = name
            break
    if family == "function":
        usable = [
            f
            for f, since in FAMILY_SINCE.items()
            if date_of(version) not in VERSIONS or date_of(version) >= since
        ]
        fname = rng.choice(usable)
        function, intent = FUNCTION_FAMILIES[fname](b)
        if rng.random() < 0.3:  # a second, independent output of another function
            other = rng.choice(usable)
            FUNCTION_FAMILIES[other](b)
    else:
        function, intent = {
            "cfn": fam_cfn,
            "unknown_function": fam_unknown_function,
            "conditions": fam_conditions,
            "parameters": fam_parameters,
            "environment": fam_environment,
            "nested": fam_nested,
            "group": fam_group,
            "resources": fam_resources,
            "structure": fam_structure,
        }[family](b)
    if version in BAD_VERSIONS:
        intent = "bad-version"
    return _case(b, index, family, function, intent)


def _wide_one(seed: int, index: int) -> Case:
    """A case of the wide families (:mod:`tests.oracle.wide`): they take turns, so any run of consecutive
    indexes covers each of them."""
    rng = random.Random(f"{seed}:{index}")
    family, fam = WIDE_FAMILIES[(index - WIDE_START) % len(WIDE_FAMILIES)]
    b = Builder(rng, wide_version(rng, family))
    function, intent = fam(b)
    # a value used twice is written out twice (YAML anchors and aliases are no part of what is tested)
    for part in (b.parameters, b.conditions, b.resources, b.outputs):
        for k in part:
            part[k] = _unshared(part[k])
    b.env_docs = [_unshared(e) for e in b.env_docs]
    return _case(b, index, family, function, intent)


def _unshared(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unshared(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unshared(v) for v in value]
    return value


def _case(b: Builder, index: int, family: str, function: str, intent: str) -> Case:
    version = b.version
    text = b.text()
    extra = b.files.pop("__extra__", None)
    if extra:
        text += extra + "\n"
    env_files = []
    for i, env in enumerate(b.env_docs):
        fname = f"env{i}.yaml"
        b.files[fname] = dump(env)
        env_files.append(fname)
    return Case(
        index=index,
        family=family,
        function=function,
        intent=intent,
        version=version,
        template=text,
        files=dict(b.files),
        env_files=tuple(env_files),
        parameters=dict(b.cli),
    )


def generate(seed: int, count: int, start: int = 0) -> list[Case]:
    return [generate_one(seed, i) for i in range(start, start + count)]
