"""The oracle's wide families: cases that reach the parts of Heat's behaviour the first families do not.

Their indexes start at :data:`WIDE_START`, so the first families' cases (and Heat's cached answers for them)
stay as they are. Each family is a pure function of ``(seed, index)`` like the rest of the generator, and,
like it, knows nothing of hotc:

- ``w:values``: every JSON type (``true``, ``1``, ``1.0``, ``"1"``, ``null``, ``[]``, ``{}``, ``''``...) in
  the arguments of the functions that compare values (``map_replace`` values, ``contains``,
  ``list_concat_unique``, ``filter``, ``equals``, yaql's ``distinct``), where Python's ``True == 1`` shows;
- ``w:params``: every parameter type with edge values (``''``, ``null``, numbers and booleans as strings,
  empty lists and maps) as default, as command-line value or environment value, against each constraint;
- ``w:order``: maps that functions build (``map_replace`` renames, ``map_merge``, yaql maps), observed
  through outputs that expose key order (the map itself, ``list_join`` and ``str_replace`` of it as JSON
  text, yaql's ``items()``);
- ``w:conditions``: conditions of every wrong shape, used and unused;
- ``w:yaql``: expressions drawn from yaql's grammar (operators, keyword arguments, ``=>``, lambdas, indexing,
  method chains, literals)."""

from __future__ import annotations

import random
from typing import Any

#: The first index of the wide families (the first families' indexes stay below it).
WIDE_START = 1_000_000

#: Values of every JSON type, with the ones Python's equality confuses (True == 1 == 1.0, False == 0).
EDGE = [True, False, 1, 0, 1.0, 0.0, 2, "1", "0", "true", "", None, [], {}, "a", [1], {"a": 1}]
SCALARS = [True, False, 1, 0, 1.0, 0.0, 2, "1", "0", "true", "", None, "a"]
HASHABLE = [True, False, 1, 0, 1.0, 0.0, 2, "1", "0", "true", "", "a"]

RECENT = ("2017-09-01", "2018-03-02", "2018-08-31", "2021-04-16", "rocky", "wallaby", "queens", "pike")


def _pick(rng: random.Random, items: list[Any], lo: int, hi: int) -> list[Any]:
    return [rng.choice(items) for _ in range(rng.randint(lo, hi))]


def _runtime(b: Any, value: Any) -> Any:
    return b.runtime(value)


# ----------------------------------------------------------------------------- w:values


def fam_values(b: Any) -> tuple[str, str]:
    rng = b.rng
    kind = rng.choice(
        [
            "map_replace",
            "contains",
            "list_concat_unique",
            "filter",
            "equals",
            "yaql",
            "list_join",
            "map_merge",
            "str_replace",
            "sets",
            "str_split",
        ]
    )
    if kind == "map_replace":
        src = {f"k{i}": rng.choice(EDGE) for i in range(rng.randint(1, 4))}
        values: dict[Any, Any] = {}
        for _ in range(rng.randint(1, 3)):
            values[rng.choice(HASHABLE)] = rng.choice(["one", "zero", 7, None, True])
        spec: dict[str, Any] = {"values": values}
        if rng.random() < 0.4:
            keys: dict[Any, Any] = {rng.choice(list(src)): rng.choice(["n", "k0", "k1"])}
            spec["keys"] = keys
        b.output({"map_replace": [_runtime(b, src), spec]})
    elif kind == "contains":
        b.output({"contains": [rng.choice(EDGE), _runtime(b, _pick(rng, EDGE, 0, 4))]})
    elif kind == "list_concat_unique":
        b.output({"list_concat_unique": [_runtime(b, _pick(rng, EDGE, 0, 4)), _pick(rng, EDGE, 0, 3)]})
    elif kind == "filter":
        b.output({"filter": [_pick(rng, EDGE, 0, 3), _runtime(b, _pick(rng, EDGE, 0, 5))]})
    elif kind == "equals":
        b.conditions["c"] = {"equals": [rng.choice(EDGE), rng.choice(EDGE)]}
        b.output({"if": ["c", "yes", "no"]})
        if rng.random() < 0.5:
            b.conditions["d"] = {"not": {"equals": [rng.choice(SCALARS), rng.choice(SCALARS)]}}
            b.output("shown", condition="d")
    elif kind == "yaql":
        expr = rng.choice(
            [
                "$.data.l.distinct()",
                "$.data.l.toSet().len()",
                "$.data.x in $.data.l",
                "$.data.l.contains($.data.x)",
                "$.data.x = $.data.y",
                "$.data.l.indexOf($.data.x)",
                "$.data.l.where($ = $.data.x)",
                "$.data.l.len()",
                "$.data.l",
                "$.data.x",
                "dict($.data.l.select([$, 1]))",
                "$.data.l.orderBy($)",
            ]
        )
        data = {"l": _pick(rng, SCALARS, 0, 5), "x": rng.choice(SCALARS), "y": rng.choice(SCALARS)}
        b.output({"yaql": {"expression": expr, "data": _runtime(b, data)}})
    elif kind == "list_join":
        b.output({"list_join": [rng.choice([",", "", 1, None]), _runtime(b, _pick(rng, EDGE, 0, 3))]})
    elif kind == "str_replace":
        fn = rng.choice(["str_replace", "str_replace_strict", "str_replace_vstrict"])
        params = {"$x": rng.choice(EDGE)}
        if rng.random() < 0.4:
            params["$y"] = rng.choice(EDGE)
        b.output({fn: {"template": rng.choice(["a$x$y", "$x", "none"]), "params": _runtime(b, params)}})
    elif kind == "sets":
        s = {
            "yaql": {
                "expression": rng.choice(["$.data.toSet()", "$.data.distinct()", "set($.data)"]),
                "data": _pick(rng, [1, 2, 3, 10, 7, 33, 0, True], 1, 5),
            }
        }
        consumer = rng.choice(
            [
                {"list_join": [",", s]},
                {"str_replace_strict": {"template": "x$s", "params": {"$s": s}}},
                {"str_replace_vstrict": {"template": "x$s", "params": {"$s": s}}},
                {"str_replace": {"template": "x$s", "params": {"$s": s}}},
                {"list_concat": [s, [1]]},
                {"contains": [1, s]},
                {"length": s},
                s,
            ]
        )
        if "length" in consumer:
            consumer = {"get_attr": [b.value_res(s), "value"]}
        b.output(consumer)
    elif kind == "str_split":
        b.output(
            {
                "str_split": [
                    rng.choice([",", "", 1, None, [","], "ab"]),
                    _runtime(b, rng.choice(["a,b", "", "aab", 5])),
                ]
            }
        )
    else:
        b.output({"map_merge": [{"a": rng.choice(EDGE)}, _runtime(b, {"a": rng.choice(EDGE)})]})
    if rng.random() < 0.3:  # the value as a resource stores and reads it
        b.output({"get_attr": [b.value_res(rng.choice(EDGE)), "value"]})
    return "w:values/" + kind, "maybe-runtime-error"


# ----------------------------------------------------------------------------- w:params

PARAM_EDGE = ["", None, "0", "1", "1.5", "-1", "true", "false", "yes", "no", "t", "on", "off", "0.0", " "]
PARAM_EDGE_NATIVE = [
    0,
    1,
    1.5,
    -1,
    True,
    False,
    [],
    {},
    [""],
    ["a"],
    "[]",
    "{}",
    "a,b",
    ",",
    " a , b ",
    "a,,b",
]

CONSTRAINTS = [
    {"length": {"min": 1}},
    {"length": {"max": 1}},
    {"length": {"min": 0, "max": 0}},
    {"range": {"min": 0}},
    {"range": {"min": 1, "max": 1}},
    {"range": {"max": 0}},
    {"allowed_values": ["", "0", "1", "true", "a"]},
    {"allowed_values": [0, 1, True]},
    {"allowed_values": ["a", "b"]},
    {"allowed_pattern": "[0-9]*"},
    {"allowed_pattern": ".+"},
    {"modulo": {"step": 2, "offset": 0}},
]


def fam_params(b: Any) -> tuple[str, str]:
    rng = b.rng
    ptype = rng.choice(["string", "number", "json", "comma_delimited_list", "boolean"])
    d: dict[str, Any] = {"type": ptype}
    value = "" if rng.random() < 0.15 else rng.choice(PARAM_EDGE + PARAM_EDGE_NATIVE)
    where = rng.choice(["default", "default", "cli", "env", "env_defaults"])
    if where == "default":
        d["default"] = value
    if rng.random() < 0.7:
        d["constraints"] = [rng.choice(CONSTRAINTS)]
    b.parameters["p"] = d
    if where == "cli":
        b.cli["p"] = value if isinstance(value, str) else _cli_text(value)
    elif where == "env":
        b.env_docs.append({"parameters": {"p": value}})
    elif where == "env_defaults":
        b.env_docs.append({"parameter_defaults": {"p": value}})
    b.output({"get_param": "p"})
    r = rng.random()
    if r < 0.3:
        b.output({"get_attr": [b.value_res({"get_param": "p"}), "value"]})
    elif r < 0.5:
        b.output({"yaql": {"expression": "$.data.p", "data": {"p": {"get_param": "p"}}}})
    elif r < 0.6:
        b.output(
            {
                "list_join": [
                    "-",
                    [{"str_replace": {"template": "<$p>", "params": {"$p": {"get_param": "p"}}}}],
                ]
            }
        )
    cons = next(iter(d["constraints"][0])) if "constraints" in d else "none"
    return f"w:params/{ptype}/{cons}", "maybe-bad-value"


def _cli_text(v: Any) -> str:
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return ",".join(v)
    return json.dumps(v)


# ----------------------------------------------------------------------------- w:order

ORDER_KEYS = ["b", "a", "c", "z", "m", "k1", "k10", "k2", "B", "_"]


def _omap(rng: random.Random, lo: int = 2, hi: int = 5) -> dict[str, Any]:
    keys = rng.sample(ORDER_KEYS, rng.randint(lo, hi))
    return {k: rng.choice([1, "x", True, None, [1], {"q": 1, "p": 2}]) for k in keys}


def _observe(b: Any, expr: Any) -> None:
    rng = b.rng
    how = rng.choice(["plain", "list_join", "str_replace", "yaql_items", "yaql_values", "value"])
    if how == "plain":
        b.output(expr)
    elif how == "list_join":
        b.output({"list_join": [";", [expr, expr]]})
    elif how == "str_replace":
        b.output({"str_replace": {"template": "M=$m", "params": {"$m": expr}}})
    elif how == "yaql_items":
        b.output({"yaql": {"expression": "$.data.m.items().select($[0])", "data": {"m": expr}}})
    elif how == "yaql_values":
        b.output({"yaql": {"expression": "$.data.m.values()", "data": {"m": expr}}})
    else:
        b.output({"get_attr": [b.value_res(expr), "value"]})


def fam_order(b: Any) -> tuple[str, str]:
    rng = b.rng
    kind = rng.choice(["map_replace", "map_merge", "yaql", "param", "literal", "repeat"])
    if kind == "map_replace":
        src = _omap(rng, 2, 5)
        ks = list(src)
        keys = {k: rng.choice(["a", "z", "new", "b", "aa"]) for k in rng.sample(ks, rng.randint(1, len(ks)))}
        expr: Any = {"map_replace": [_runtime(b, src), {"keys": keys}]}
    elif kind == "map_merge":
        expr = {"map_merge": [_runtime(b, _omap(rng)) for _ in range(rng.randint(2, 3))]}
    elif kind == "yaql":
        e = rng.choice(
            [
                "$.data.m.set('added' => 1)",
                "$.data.m.set($.data.n)",
                "dict($.data.m.items().reverse())",
                "$.data.m.delete('a')",
                "dict($.data.m.items().orderBy($[0]))",
                "$.data.m.mergeWith($.data.n)",
                "dict(z => 1, a => 2, m => 3)",
                "$.data.m.selectMany([$])",
                "$.data.n",
            ]
        )
        expr = {"yaql": {"expression": e, "data": {"m": _runtime(b, _omap(rng)), "n": _omap(rng, 1, 3)}}}
    elif kind == "param":
        b.parameters["j"] = {"type": "json", "default": _omap(rng)}
        expr = {"get_param": "j"}
    elif kind == "repeat":
        expr = {
            "map_merge": {
                "repeat": {"template": {"<%k%>": 1}, "for_each": {"<%k%>": rng.sample(ORDER_KEYS, 3)}}
            }
        }
    else:
        expr = _runtime(b, _omap(rng))
    _observe(b, expr)
    if rng.random() < 0.4:
        _observe(b, expr)
    return "w:order/" + kind, "valid"


# ----------------------------------------------------------------------------- w:conditions

BAD_CONDITIONS: list[Any] = [
    {"not": [True, False]},
    {"not": []},
    {"not": {}},
    {"equals": [1]},
    {"equals": 1},
    {"equals": [1, 2, 3]},
    {"and": [True]},
    {"and": True},
    {"and": []},
    {"or": "x"},
    {"or": [True, "maybe"]},
    {"contains": [1]},
    {"contains": [1, "abc"]},
    {"yaql": "x"},
    {"yaql": {"expression": "$.data.x"}},
    {"get_attr": ["v", "value"]},
    {"nosuch": 1},
    {"equals": [{"get_param": "nope"}, 1]},
    {"equals": [{"get_resource": "r"}, 1]},
    "undefined_cond",
    1,
    0,
    [True],
    None,
    "maybe",
    {"equals": [{"get_param": "e"}, "x"], "not": True},
    {"if": ["c", True, False]},
]


def fam_conditions(b: Any) -> tuple[str, str]:
    rng = b.rng
    b.parameters["e"] = {"type": "string", "default": rng.choice(["x", "y"])}
    b.conditions["good"] = {"equals": [{"get_param": "e"}, "x"]}
    bad = rng.choice(BAD_CONDITIONS)
    b.conditions["bad"] = bad
    use = rng.choice(["unused", "unused", "output", "resource", "if", "referenced"])
    if use == "output":
        b.output("o", condition="bad")
    elif use == "resource":
        b.resources["r2"] = {"type": "OS::Heat::Value", "properties": {"value": 1}, "condition": "bad"}
    elif use == "if":
        b.output({"if": ["bad", 1, 2]})
    elif use == "referenced":
        b.conditions["uses"] = {"not": "bad"}
        if rng.random() < 0.5:
            b.output("u", condition="uses")
    v = b.value_res("val")
    b.resources[v]["condition"] = "good"
    b.output({"get_attr": [v, "value"]}, condition="good")
    b.output({"if": ["good", "g", "ng"]})
    return f"w:conditions/{use}", "maybe-invalid-condition"


# ----------------------------------------------------------------------------- w:yaql

YAQL_GRAMMAR = [
    # keyword arguments, =>, dict literals
    "$.data.m.set('added' => 1)",
    "$.data.m.set(added => 1)",
    "dict(a => 1, b => 2)",
    "{'a' => 1, 'b' => [2]}",
    "{a => 1}.get(a)",
    "let(x => 2) -> $x * $.data.a",
    "$.data.m.get('nope', 'dflt')",
    "$.data.m.containsKey('a')",
    # operators
    "$.data.a + 2 * 3",
    "($.data.a + 2) * 3",
    "$.data.a / 2",
    "$.data.a mod 3",
    "-$.data.a",
    "$.data.a > 1 and $.data.a < 4",
    "not $.data.b or $.data.a = 2",
    "$.data.a != 3",
    "$.data.s + '-' + str($.data.a)",
    "$.data.l + [7]",
    "[1, 2] + $.data.l",
    "2 in $.data.l",
    "$.data.s in [a, b]",
    "$.data.a >= 2 and true",
    "null = $.data.n",
    "$.data.n",
    # lambdas and method chains
    "$.data.l.select($ * 2).where($ > 2)",
    "$.data.l.where($ > 1).select(str($))",
    "$.data.l.select([$, $ * $])",
    "$.data.l.aggregate($1 + $2, 0)",
    "$.data.l.any($ > 2)",
    "$.data.l.all($ > 0)",
    "$.data.l.orderByDescending($)",
    "$.data.l.groupBy($ mod 2)",
    "$.data.l.enumerate().select($[0])",
    "$.data.l.sum() / max(1, $.data.l.len())",
    "$.data.l.max()",
    "max($.data.a, 3)",
    "$.data.l.indexOf(2)",
    "$.data.l.reverse()",
    "$.data.l.sequence()",
    "$.data.l.zip($.data.l)",
    "$.data.l.selectMany([$, $])",
    "$.data.l.count()",
    "$.data.l.concat([9], [8])",
    "$.data.l.first(null)",
    "$.data.l.last()",
    "$.data.l.single()",
    "$.data.l.skipWhile($ < 2)",
    "$.data.l.takeWhile($ < 3)",
    "$.data.l.slice(1, 2)",
    "$.data.l.join('-')",
    "$.data.l.toList().len()",
    "$.data.l.toSet().len()",
    "range(1, 4).select($ * $.data.a)",
    # indexing and slicing
    "$.data.l[0]",
    "$.data.l[-1]",
    "$.data.m['a']",
    "$.data.m.a",
    "$.data.s[0]",
    # strings
    "$.data.s.toUpper()",
    "$.data.s.replace(',', ';')",
    "$.data.s.split(',').len()",
    "$.data.s.substring(1)",
    "$.data.s.indexOf('b')",
    "$.data.s.startsWith('a')",
    "$.data.s.trim()",
    "'{0}-{1}'.format($.data.a, $.data.s)",
    "concat($.data.s, 'x', 'y')",
    "$.data.s.characters()",
    "$.data.s.matches('^a')",
    "regex('a').matches($.data.s)",
    "$.data.s * 2",
    # conversions and types
    "int('3') + float('1.5')",
    "str(true)",
    "bool(0)",
    "isString($.data.s)",
    "isList($.data.l)",
    "isDict($.data.m)",
    "int($.data.a) = $.data.a",
    "float($.data.a)",
    "$.data.a.isInteger()",
    # switch, coalesce
    "switch($.data.a > 2 => big, true => small)",
    "coalesce($.data.n, $.data.a)",
    "$.data.m.keys().len()",
    "$.data.m.values().sum()",
    "$.data.m.items().select($[1])",
    "$.data.m.items().orderBy($[0]).select($[0])",
    "$.data",
    "$",
    "#",
    "$.data.l.",
    "$.data.a +",
    "$.data.m.set('a')",
    "$.data.l.select(",
    "$x",
    "1 2",
]


def fam_yaql(b: Any) -> tuple[str, str]:
    rng = b.rng
    expr = rng.choice(YAQL_GRAMMAR)
    data = {
        "a": rng.choice([0, 1, 2, 3, 2.5]),
        "b": rng.choice([True, False]),
        "l": rng.choice([[1, 2, 3], [3, 1, 2, 1], [], [2], [1, True, 1.0]]),
        "s": rng.choice(["a,b", "", "abc"]),
        "m": {"a": 1, "b": 2},
        "n": None,
    }
    b.output({"yaql": {"expression": expr, "data": _runtime(b, data)}})
    if rng.random() < 0.2:
        b.output({"list_join": [",", {"yaql": {"expression": "$.data.l.select(str($))", "data": data}}]})
    return "w:yaql", "maybe-runtime-error"


WIDE_FAMILIES: list[tuple[str, Any]] = [
    ("w:values", fam_values),
    ("w:params", fam_params),
    ("w:order", fam_order),
    ("w:conditions", fam_conditions),
    ("w:yaql", fam_yaql),
]


def version_for(rng: random.Random, family: str) -> str:
    if family == "w:params":
        return rng.choice(RECENT + ("2013-05-23", "2016-10-14"))
    return rng.choice(RECENT)
