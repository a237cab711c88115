"""Every HOT function, per version: input text -> expected value, evaluation error or parse error.

Semantics follow Heat's heat/engine/hot/functions.py (see heat-hot.md §1.5)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import pytest

from hotc.parser.evaluate import EvalError
from tests.frontend.test_functions_support import ctx, ev, parse


@dataclass(frozen=True)
class Err:
    """Evaluation fails with a message containing ``text``."""

    text: str


@dataclass(frozen=True)
class ParseErr:
    """Parsing reports an error containing ``text``."""

    text: str


ROCKY = "rocky"

CASES: list[tuple[str, str, Any]] = [
    # ------------------------------------------------------------------------------------- get_param
    (ROCKY, "{get_param: name}", "web"),
    (ROCKY, "{get_param: count}", 3),
    (ROCKY, "{get_param: flag}", True),
    (ROCKY, "{get_param: [cfg, a, b, 1]}", 20),
    (ROCKY, "{get_param: [cfg, a, b, '0']}", 10),  # str index on a list is int()-converted
    (ROCKY, "{get_param: [cfg, missing]}", ""),  # a bad path gives ''
    (ROCKY, "{get_param: [cfg, a, b, x]}", ""),
    (ROCKY, "{get_param: [nets, 5]}", ""),
    (ROCKY, "{get_param: [name, 0]}", "w"),  # a string is a sequence
    (ROCKY, "{get_param: 'OS::stack_name'}", "mystack"),
    (ROCKY, "{get_param: 'OS::project_id'}", "p1"),
    (ROCKY, "{get_param: {get_param: csv}}", Err('"a,b,c" is not declared')),
    (ROCKY, "{get_param: nope}", Err('"nope" is not declared')),
    (ROCKY, "{get_param: [{list_join: ['', [na, me]]}]}", "web"),
    (ROCKY, "{get_param: {a: b}}", ParseErr('invalid arguments to "get_param"')),
    (ROCKY, "{get_param: 3}", ParseErr('invalid arguments to "get_param"')),
    ("2013-05-23", "{get_param: [nets, 1]}", "public"),
    # --------------------------------------------------------------------------------------- get_file
    (ROCKY, "{get_file: a.sh}", "#!/bin/sh\n"),
    (ROCKY, "{get_file: nope.sh}", Err('No content found in the "files" section for get_file path: nope.sh')),
    (ROCKY, "{get_file: [a]}", ParseErr('invalid arguments to "get_file"')),
    # -------------------------------------------------------------------------------------- list_join
    (ROCKY, "{list_join: [',', [a, b, c]]}", "a,b,c"),
    (ROCKY, "{list_join: [',', [a, b], [c], []]}", "a,b,c"),
    (ROCKY, "{list_join: ['-', [a, null, b]]}", "a--b"),
    (ROCKY, "{list_join: [',', [a, {x: 1, a: [2]}, [1, 2]]]}", 'a,{"a": [2], "x": 1},[1, 2]'),
    (ROCKY, "{list_join: [',', [a, 1]]}", Err("Items to join must be string, map or list not 1")),
    (ROCKY, "{list_join: [',', {get_param: nets}]}", "private,public"),
    (ROCKY, "{list_join: [',', null, [a]]}", "a"),
    (ROCKY, "{list_join: [',']}", ParseErr("too few arguments")),
    (ROCKY, "{list_join: [',', abc]}", ParseErr('invalid arguments to "list_join"')),
    (ROCKY, "{list_join: [',', {get_param: name}]}", Err("must operate on a list")),
    (ROCKY, "{list_join: [1, [a]]}", ParseErr('invalid arguments to "list_join"')),
    ("2015-04-30", "{list_join: [',', [a, b]]}", "a,b"),
    ("2015-04-30", "{list_join: [',', [a], [b]]}", ParseErr("too many arguments")),
    ("2015-04-30", "{list_join: [',', [a, {x: 1}]]}", Err("Items to join must be strings")),
    ("2013-05-23", "{'Fn::Join': [',', [a, b]]}", "a,b"),
    # ------------------------------------------------------------------------------------ str_replace
    (ROCKY, "{str_replace: {template: 'Hello $name!', params: {$name: {get_param: name}}}}", "Hello web!"),
    (ROCKY, "{str_replace: {template: 'abc', params: {a: x, ab: y}}}", "yc"),  # longest key first
    (ROCKY, "{str_replace: {template: 'aXb', params: {a: b, b: c}}}", "bXc"),  # never re-scanned
    (ROCKY, "{str_replace: {template: 'v=V', params: {V: {k: [1, 2]}}}}", 'v={"k": [1, 2]}'),
    (ROCKY, "{str_replace: {template: 'v=V', params: {V: true}}}", "v=True"),
    (ROCKY, "{str_replace: {template: 'v=V', params: {V: 1.5}}}", "v=1.5"),
    (ROCKY, "{str_replace: {template: 'v=V', params: {V: null}}}", "v="),
    (ROCKY, "{str_replace: {template: 'v', params: {X: 1}}}", "v"),
    (ROCKY, "{str_replace: {template: 'v=V', params: {V: 1}, extra: ignored}}", "v=1"),
    (ROCKY, "{str_replace: {template: x}}", ParseErr("missing 'params'")),
    (ROCKY, "{str_replace: {params: {a: b}}}", ParseErr("missing 'template'")),
    (ROCKY, "{str_replace: [a, b]}", ParseErr('invalid arguments to "str_replace"')),
    (ROCKY, "{str_replace: {template: x, params: [a]}}", ParseErr('invalid arguments to "str_replace"')),
    (ROCKY, "{str_replace: {template: 'a', params: {get_param: cfg}}}", '{"b": [10, 20]}'),
    (
        "2015-04-30",
        "{str_replace: {template: 'v=V', params: {V: [1]}}}",
        Err("params must be strings or numbers"),
    ),
    ("2015-04-30", "{str_replace: {template: 'v=V', params: {V: 2}}}", "v=2"),
    (
        ROCKY,
        "{str_replace_strict: {template: 'v=V', params: {V: 1, W: 2}}}",
        Err("not found in the template: W"),
    ),
    (ROCKY, "{str_replace_strict: {template: 'v=V', params: {V: 1}}}", "v=1"),
    (
        ROCKY,
        "{str_replace_vstrict: {template: 'v=V', params: {V: ''}}}",
        Err("undefined or empty value for param V"),
    ),
    (ROCKY, "{str_replace_vstrict: {template: 'v=V', params: {V: []}}}", Err("undefined or empty value")),
    (ROCKY, "{str_replace_vstrict: {template: 'v=V', params: {V: x}}}", "v=x"),
    (
        "2017-02-24",
        "{str_replace_vstrict: {template: 'v', params: {}}}",
        {"str_replace_vstrict": {"template": "v", "params": {}}},
    ),
    (
        "2016-10-14",
        "{str_replace_strict: {template: 'v', params: {}}}",
        {"str_replace_strict": {"template": "v", "params": {}}},
    ),
    ("2013-05-23", "{'Fn::Replace': [{$a: x}, 'v=$a']}", "v=x"),
    # ---------------------------------------------------------------------------------------- repeat
    (ROCKY, "{repeat: {template: 'port-%p%', for_each: {'%p%': [80, 443]}}}", Err("must be strings")),
    (ROCKY, "{repeat: {template: 'port-%p%', for_each: {'%p%': ['80', '443']}}}", ["port-80", "port-443"]),
    (
        ROCKY,
        "{repeat: {template: {'%k%': '%v%'}, for_each: {'%k%': [a, b], '%v%': [x, y]}}}",
        [{"a": "x"}, {"a": "y"}, {"b": "x"}, {"b": "y"}],
    ),
    (
        ROCKY,
        "{repeat: {template: '%k%-%v%', for_each: {'%k%': [a, b], '%v%': [x, y]}, permutations: false}}",
        ["a-x", "b-y"],
    ),
    (
        ROCKY,
        "{repeat: {template: '%k%-%v%', for_each: {'%k%': [a, b], '%v%': [x]}, permutations: false}}",
        Err("length of for_each values should be equal"),
    ),
    (ROCKY, "{repeat: {template: '%k%', for_each: {'%k%': {a: 1, b: 2}}}}", ["a", "b"]),
    (
        ROCKY,
        "{repeat: {template: '%k%', for_each: {'%k%': {a: 1}}, permutations: false}}",
        Err("must be lists"),
    ),
    (ROCKY, "{repeat: {template: '%k%', for_each: {'%k%': {get_param: nets}}}}", ["private", "public"]),
    (ROCKY, "{repeat: {template: '%k%', for_each: {'%k%': null}}}", []),
    (ROCKY, "{repeat: {template: '%k%', for_each: {'%k%': abc}}}", Err("must be lists or maps")),
    (
        ROCKY,
        "{repeat: {template: x, for_each: {x: [a]}, permutations: 'no'}}",
        ParseErr('invalid arguments to "repeat"'),
    ),
    (ROCKY, "{repeat: {template: x}}", ParseErr("missing 'for_each'")),
    ("2016-10-14", "{repeat: {template: '%k%', for_each: {'%k%': {a: 1}}}}", ["a"]),
    (
        "2016-10-14",
        "{repeat: {template: '%k%-%v%', for_each: {'%k%': [a], '%v%': [x]}, permutations: false}}",
        ["a-x"],
    ),  # permutations is an ignored extra key before pike
    ("2015-04-30", "{repeat: {template: '%k%', for_each: {'%k%': {a: 1}}}}", Err("must be lists")),
    ("2015-04-30", "{repeat: {template: '%k%', for_each: {'%k%': [a]}}}", ["a"]),
    (
        "2014-10-16",
        "{repeat: {template: '%k%', for_each: {'%k%': [a]}}}",
        {"repeat": {"template": "%k%", "for_each": {"%k%": ["a"]}}},
    ),
    # ---------------------------------------------------------------------------------------- digest
    (ROCKY, "{digest: [sha256, abc]}", hashlib.sha256(b"abc").hexdigest()),
    (ROCKY, "{digest: [md5, {get_param: name}]}", hashlib.md5(b"web").hexdigest()),
    (ROCKY, "{digest: [SHA512, abc]}", hashlib.sha512(b"abc").hexdigest()),
    (ROCKY, "{digest: [nope, abc]}", Err("Algorithm must be one of")),
    (ROCKY, "{digest: [sha256]}", ParseErr("too few arguments")),
    ("2015-04-30", "{digest: [sha1, abc]}", hashlib.sha1(b"abc").hexdigest()),
    # ------------------------------------------------------------------------------------- str_split
    (ROCKY, "{str_split: [',', 'a,b,c']}", ["a", "b", "c"]),
    (ROCKY, "{str_split: [',', 'a,b,c', 1]}", "b"),
    (ROCKY, "{str_split: [',', 'a,b,c', '2']}", "c"),
    (ROCKY, "{str_split: [',', 'a,b,c', 3]}", Err("should be between 0 and 2")),
    (ROCKY, "{str_split: [',', null]}", None),
    (ROCKY, "{str_split: [',', {get_param: csv}, 0]}", "a"),
    (ROCKY, "{str_split: ','}", ParseErr('invalid arguments to "str_split"')),
    ("2015-10-15", "{str_split: [',', 'a,b']}", ["a", "b"]),
    ("2015-04-30", "{str_split: [',', 'a,b']}", {"str_split": [",", "a,b"]}),
    # ------------------------------------------------------------------------------------- map_merge
    (ROCKY, "{map_merge: [{a: 1, b: 2}, {b: 3}, null]}", {"a": 1, "b": 3}),
    (ROCKY, "{map_merge: [{get_param: cfg}, {k: w}]}", {"a": {"b": [10, 20]}, "k": "w"}),
    (ROCKY, "{map_merge: [{a: 1}, [b]]}", ParseErr('invalid arguments to "map_merge"')),
    (ROCKY, "{map_merge: [{a: 1}, {get_param: nets}]}", Err("Items to merge must be maps")),
    ("2016-04-08", "{map_merge: [{a: 1}, {b: 2}]}", {"a": 1, "b": 2}),
    ("2015-10-15", "{map_merge: [{a: 1}]}", {"map_merge": [{"a": 1}]}),
    # ----------------------------------------------------------------------------------- map_replace
    (ROCKY, "{map_replace: [{a: 1, b: 2}, {keys: {a: x}, values: {2: two}}]}", {"x": 1, "b": 2}),
    # keys are JSON strings in Heat (its stored template): the key 2 replaces the string "2", not the integer
    (ROCKY, "{map_replace: [{a: '2', 1: b}, {keys: {1: one}, values: {2: two}}]}", {"a": "two", "one": "b"}),
    (ROCKY, "{map_replace: [{a: 1, b: 2}, {keys: {a: b}}]}", Err("collides with a key in the input map")),
    (
        ROCKY,
        "{map_replace: [{a: 1, b: 2}, {keys: {a: c, b: c}}]}",
        Err("collides with a key in the output map"),
    ),
    (ROCKY, "{map_replace: [{a: [1]}, {values: {x: y}}]}", {"a": [1]}),  # unhashable values untouched
    (ROCKY, "{map_replace: [{a: 1}, {other: {}}]}", ParseErr('invalid arguments to "map_replace"')),
    (ROCKY, "{map_replace: [{a: 1}]}", ParseErr('invalid arguments to "map_replace"')),
    (ROCKY, "{map_replace: [{get_param: cfg}, {keys: {k: K}}]}", {"a": {"b": [10, 20]}, "K": "v"}),
    (ROCKY, "{map_replace: [{f1: b1, f2: b2}, {keys: {f2: f2}}]}", {"f1": "b1", "f2": "b2"}),
    (ROCKY, "{map_replace: [{f1: b1, f2: b2}, {values: null, keys: null}]}", {"f1": "b1", "f2": "b2"}),
    (ROCKY, "{map_replace: [{f1: b1}, ab]}", ParseErr('invalid arguments to "map_replace"')),
    (ROCKY, "{map_replace: ab}", ParseErr('invalid arguments to "map_replace"')),
    (ROCKY, "{map_replace: [{get_param: cfg}, {get_param: name}]}", Err("arguments must be a list of maps")),
    # ------------------------------------------------------------------------------------------ yaql
    (ROCKY, "{yaql: {expression: '$.data.l.sum()', data: {l: [1, 2, 3]}}}", 6),
    (ROCKY, "{yaql: {expression: '$.data.l.select($ * 2)', data: {l: [1, 2]}}}", [2, 4]),
    (ROCKY, "{yaql: {expression: '$.data.n', data: {n: {get_param: name}}}}", "web"),
    (ROCKY, "{yaql: {expression: '1 + 2'}}", 3),
    (ROCKY, "{yaql: {expression: '$.data.('}}", ParseErr("bad expression")),
    (ROCKY, "{yaql: {expression: 'x', other: 1}}", ParseErr('unknown key "other"')),
    (ROCKY, "{yaql: {data: {}}}", ParseErr("missing 'expression'")),
    ("2016-10-14", "{yaql: {expression: '$.data', data: 5}}", 5),
    # --------------------------------------------------------------------------------------------- if
    (ROCKY, "{if: [yes_cond, a, b]}", "a"),
    (ROCKY, "{if: [no_cond, a, b]}", "b"),
    (ROCKY, "{if: [true, a, b]}", "a"),
    (ROCKY, "{if: [{equals: [{get_param: name}, web]}, a, b]}", "a"),
    (ROCKY, "{if: [{not: yes_cond}, a, b]}", "b"),
    (ROCKY, "{if: [no_cond, {get_param: nope}, b]}", "b"),  # only the taken branch is evaluated
    (ROCKY, "{if: [missing, a, b]}", Err('Invalid condition "missing"')),
    (ROCKY, "{if: [yes_cond, a]}", ParseErr("too few arguments")),
    (ROCKY, "{if: [{get_attr: [r, a]}, a, b]}", ParseErr('"get_attr" is invalid in this context')),
    ("wallaby", "{if: [no_cond, a]}", None),
    ("wallaby", "[x, {if: [no_cond, a]}, {if: [yes_cond, b]}]", ["x", "b"]),
    ("wallaby", "{k: {if: [no_cond, a]}, j: 1}", {"j": 1}),
    ("wallaby", "{if: [no_cond, a, b]}", "b"),
    # Heat's test_if_nullable
    (
        "wallaby",
        "{single: {if: [false, v]}, nested_true: {if: [true, {if: [false, foo]}, bar]},"
        " nested_false: {if: [false, baz, {if: [false, quux]}]}, control: {if: [false, true, null]}}",
        {"control": None},
    ),
    ("wallaby", "{if: [no_cond]}", ParseErr("too few arguments")),
    ("wallaby", "{if: [no_cond, a, b, c]}", ParseErr("too many arguments")),
    ("2016-10-14", "{if: [yes_cond, a, b]}", "a"),
    ("2016-04-08", "{if: [yes_cond, a, b]}", {"if": ["yes_cond", "a", "b"]}),
    # ----------------------------------------------------------------------------------------- filter
    (ROCKY, "{filter: [[a], [a, b, a, c]]}", ["b", "c"]),
    (ROCKY, "{filter: [null, [a, b]]}", ["a", "b"]),
    (ROCKY, "{filter: [[a], []]}", []),
    (ROCKY, "{filter: [[private], {get_param: nets}]}", ["public"]),
    (ROCKY, "{filter: [[a], abc]}", Err("only works with lists")),
    (ROCKY, "{filter: [a, [a, b]]}", Err("filters a list of values")),
    (ROCKY, "{filter: [[a]]}", ParseErr("too few arguments")),
    ("2017-02-24", "{filter: [[1], [1, 2]]}", [2]),
    # --------------------------------------------------------------------------------------- make_url
    (
        ROCKY,
        "{make_url: {scheme: http, host: example.com, port: 8080, path: /a b, query: {q: 'x/y z'}, fragment: f}}",
        "http://example.com:8080/a%20b?q=x/y+z#f",
    ),
    (
        ROCKY,
        "{make_url: {scheme: https, username: 'u@x', password: 'p:w', host: '::1'}}",
        "https://u%40x:p%3Aw@[::1]",
    ),
    (ROCKY, "{make_url: {scheme: https, host: '[fe80::1]', port: '443'}}", "https://[fe80::1]:443"),
    (ROCKY, "{make_url: {host: h, port: 0}}", ParseErr("must be in the range 1-65535")),
    # Heat's test_make_url_* cases
    (
        ROCKY,
        "{make_url: {scheme: http, host: example.com, path: '/foo/?bar', query: {'foo#': 'bar & baz',"
        " blarg: '/wib=ble/'}}}",
        "http://example.com/foo/%3Fbar?foo%23=bar+%26+baz&blarg=/wib%3Dble/",
    ),
    (
        ROCKY,
        "{make_url: {scheme: http, host: example.com, path: foo/bar, fragment: baz}}",
        "http://example.com/foo/bar#baz",
    ),
    (
        ROCKY,
        "{make_url: {scheme: http, username: wibble, host: example.com, path: /foo/bar}}",
        "http://wibble@example.com/foo/bar",
    ),
    (
        ROCKY,
        "{make_url: {scheme: https, host: example.com, port: '1.1'}}",
        ParseErr('invalid URL port "1.1"'),
    ),
    (ROCKY, "{make_url: {scheme: https, host: example.com, port: 100000}}", ParseErr("range 1-65535")),
    (
        ROCKY,
        "{make_url: {scheme: https, host: example.com, port: {get_param: count}}}",
        "https://example.com:3",
    ),
    # Heat's test_str_split_none_delim
    (ROCKY, "{str_split: [null, 'check']}", ["check"]),
    (ROCKY, "{str_split: [null, 'a  b c']}", ["a", "b", "c"]),
    (ROCKY, "{str_split: [',', 'a,b', 1.0]}", "b"),
    (ROCKY, "{str_split: [[], 'a,b']}", ParseErr('invalid arguments to "str_split"')),
    (ROCKY, "{make_url: {host: h, bogus: 1}}", ParseErr('unknown key "bogus"')),
    (ROCKY, "{make_url: {scheme: 'ht:tp', host: h}}", Err("should not contain ':'")),
    (ROCKY, "{make_url: {host: h, query: [a]}}", ParseErr('invalid arguments to "make_url"')),
    # ------------------------------------------------------------------------------------ list_concat
    (ROCKY, "{list_concat: [[a, b], [c], null]}", ["a", "b", "c"]),
    (ROCKY, "{list_concat: [[a], {get_param: nets}]}", ["a", "private", "public"]),
    (ROCKY, "{list_concat_unique: [[a, b], [b, a, c]]}", ["a", "b", "c"]),
    (ROCKY, "{list_concat_unique: [[{x: 1}], [{x: 1}]]}", [{"x": 1}]),
    (ROCKY, "{list_concat: [[a], b]}", ParseErr('invalid arguments to "list_concat"')),
    (ROCKY, "{list_concat: [[a], {get_param: name}]}", Err("Items to concat must be lists")),
    ("2017-02-24", "{list_concat: [[a]]}", {"list_concat": [["a"]]}),
    # --------------------------------------------------------------------------------------- contains
    (ROCKY, "{contains: [a, [a, b]]}", True),
    (ROCKY, "{contains: [x, [a, b]]}", False),
    (ROCKY, "{contains: [at, cat]}", True),  # a string is a sequence
    (ROCKY, "{contains: [1, {get_param: nets}]}", False),
    (ROCKY, "{contains: [a, {k: v}]}", Err("should be a sequence")),
    (ROCKY, "{contains: [a]}", ParseErr("too few arguments")),
    # -------------------------------------------------------------------------------------- get_attr
    (ROCKY, "{get_attr: [web, first_address]}", "UNKNOWN:web.first_address"),
    (ROCKY, "{get_attr: [web, networks, private, 0]}", "UNKNOWN:web.networks.private.0"),
    (ROCKY, "{get_attr: [web]}", "UNKNOWN:web.*"),
    (ROCKY, "{get_attr: web}", ParseErr('invalid arguments to "get_attr"')),
    (ROCKY, "{get_attr: []}", ParseErr('invalid arguments to "get_attr"')),
    ("2015-04-30", "{get_attr: [web]}", ParseErr("too few arguments")),
    ("2013-05-23", "{get_attr: [web]}", ParseErr("too few arguments")),
    ("2013-05-23", "{get_attr: [web, addr, 0]}", "UNKNOWN:web.addr.0"),
    (ROCKY, "{get_resource: web}", "UNKNOWN:web.id"),
    (ROCKY, "{get_resource: [web]}", ParseErr('invalid arguments to "get_resource"')),
    # ------------------------------------------------------------------------------- resource_facade
    (ROCKY, "{resource_facade: metadata}", {"role": "db"}),
    (ROCKY, "{resource_facade: deletion_policy}", "Delete"),
    (ROCKY, "{resource_facade: bogus}", ParseErr("must be one of: metadata, deletion_policy, update_policy")),
    ("2013-05-23", "{'Fn::ResourceFacade': Metadata}", {"role": "db"}),
    # ------------------------------------------------------------------------------- CFN in 2013-05-23
    ("2013-05-23", "{'Fn::Select': [1, [a, b]]}", "b"),
    ("2013-05-23", "{'Fn::Select': ['1', [a, b]]}", "b"),
    ("2013-05-23", "{'Fn::Select': [5, [a, b]]}", ""),
    ("2013-05-23", "{'Fn::Select': [k, {k: v}]}", "v"),
    ("2013-05-23", "{'Fn::Select': [0, '[\"x\"]']}", "x"),
    ("2014-10-16", "{'Fn::Select': [0, [a]]}", "a"),
    ("2015-04-30", "{'Fn::Select': [0, [a]]}", "a"),
    (
        "2015-10-15",
        "{'Fn::Select': [0, [a]]}",
        ParseErr('"Fn::Select" is not supported in heat_template_version 2015-10-15'),
    ),
    ("2013-05-23", "{'Fn::Split': [',', 'a,b']}", ["a", "b"]),
    ("2013-05-23", "{'Fn::Base64': abc}", "abc"),
    (
        "2013-05-23",
        "{'Fn::MemberListToMap': [Name, Value, ['.member.0.Name=k', '.member.0.Value=v', '.member.1.Name=k2', '.member.1.Value=v2']]}",
        {"k": "v", "k2": "v2"},
    ),
    ("2013-05-23", "{Ref: name}", "web"),
    ("2013-05-23", "{Ref: web}", "UNKNOWN:web.id"),
    ("2013-05-23", "{'Fn::GetAZs': ''}", "UNKNOWN:cloud.availability_zones"),
    ("2014-10-16", "{Ref: name}", ParseErr('"Ref" is not supported in heat_template_version 2014-10-16')),
    ("2014-10-16", "{'Fn::Join': [',', [a]]}", ParseErr('"Fn::Join" is not supported')),
    ("wallaby", "{'Fn::GetAZs': ''}", ParseErr('"Fn::GetAZs" is not supported')),
    ("wallaby", "{'Fn::Base64': x}", ParseErr("the last version with it is 2013-05-23")),
    # ------------------------------------------------------------------- not functions: plain data
    (ROCKY, "{equals: [a, a]}", {"equals": ["a", "a"]}),  # condition functions only in conditions
    (ROCKY, "{get_params: x}", {"get_params": "x"}),
    (ROCKY, "{get_param: name, other: 1}", {"get_param": "name", "other": 1}),
    (ROCKY, "{'Fn::If': [a, b, c]}", {"Fn::If": ["a", "b", "c"]}),
]


def _ids() -> list[str]:
    return [f"{v}:{t[:60]}" for v, t, _ in CASES]


@pytest.mark.parametrize(("version", "text", "expected"), CASES, ids=_ids())
def test_function_table(version: str, text: str, expected: Any) -> None:
    expr, errors, _warnings = parse(text, version)
    if isinstance(expected, ParseErr):
        assert errors, f"expected a parse error containing {expected.text!r}"
        assert any(expected.text in e for e in errors), errors
        return
    assert not errors, errors
    assert expr is not None

    from hotc.parser.evaluate import evaluate

    context = ctx(
        version,
        conditions={"yes_cond": True, "no_cond": False},
        files={"a.sh": "#!/bin/sh\n"},
        resource_names=frozenset({"web", "db", "r"}),
        facade={"metadata": {"role": "db"}},
    )
    if isinstance(expected, Err):
        with pytest.raises(EvalError) as info:
            evaluate(expr, context)
        assert expected.text in str(info.value)
        assert info.value.diagnostic.pos is not None
        assert info.value.diagnostic.pos.file == "t.yaml"
        return
    value = evaluate(expr, context)
    if isinstance(expected, str) and expected.startswith("UNKNOWN:"):
        from hotc.values import Unknown

        assert isinstance(value, Unknown), value
        assert sorted(str(w) for w in value.waits_on) == [expected[len("UNKNOWN:") :]]
        return
    assert value == expected
    assert type(value) is type(expected)


def test_numbers_and_booleans_keep_yaml_types() -> None:
    assert ev("{a: 1, b: 1.5, c: true, d: null, e: '1'}") == {
        "a": 1,
        "b": 1.5,
        "c": True,
        "d": None,
        "e": "1",
    }
    assert type(ev("{k: 1.0}")["k"]) is float
