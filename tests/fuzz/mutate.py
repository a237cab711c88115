"""A seeded mutator over HOT templates: the seeds below (templates the tests write) and the shared corpus.

Every case is a pure function of ``(seed, index)``: :func:`make_case` returns the files of the case (the
template, maybe an environment and a nested template) as bytes, so a finding is replayed exactly with
``python -m tests.fuzz --replay INDEX --seed SEED``. Mutations work on the decoded tree (replace, delete,
duplicate, retype a node; plant intrinsic functions with wrong arguments; hostile ``get_file`` targets and
resource types) and on the text (byte flips, truncation, alias bombs, deep nesting).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

SEEDS: tuple[str, ...] = (
    """heat_template_version: 2018-08-31
description: quickstart-like
parameters:
  name: {type: string, default: shop, constraints: [{length: {min: 1, max: 20}}]}
  count: {type: number, default: 2, constraints: [{range: {min: 0, max: 5}}]}
  flag: {type: boolean, default: true}
  pw: {type: string, hidden: true, default: s3cret}
parameter_groups:
- label: main
  parameters: [name, count]
conditions:
  on: {equals: [{get_param: flag}, true]}
resources:
  rnd:
    type: OS::Heat::RandomString
    properties: {length: 8}
  web:
    type: OS::Heat::TestResource
    condition: on
    properties:
      value: {str_replace: {template: "web for $N-$S", params: {$N: {get_param: name}, $S: {get_attr: [rnd, value]}}}}
  grp:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: OS::Heat::Value
        properties: {value: "member %index%"}
  val:
    type: OS::Heat::Value
    depends_on: [web]
    properties:
      value: {list_join: [",", {get_attr: [grp, value]}]}
outputs:
  out: {value: {get_attr: [web, output]}}
  all: {value: {get_attr: [grp, value]}}
""",
    """heat_template_version: 2021-04-16
parameters:
  net: {type: string, default: hotc-private}
  image: {type: string, default: hotc-tiny}
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules: [{protocol: tcp, port_range_min: 22, port_range_max: 22}]
  port:
    type: OS::Neutron::Port
    properties: {network: {get_param: net}, security_groups: [{get_resource: sg}]}
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: m1.tiny
      networks: [{port: {get_resource: port}}]
      user_data_format: RAW
      user_data: {get_file: data.txt}
  vol:
    type: OS::Cinder::Volume
    deletion_policy: Snapshot
    properties: {size: 1}
  att:
    type: OS::Cinder::VolumeAttachment
    properties: {instance_uuid: {get_resource: server}, volume_id: {get_resource: vol}}
  child:
    type: child.yaml
    properties: {label: {get_attr: [server, first_address]}}
outputs:
  ip: {value: {get_attr: [server, first_address]}}
  child: {value: {get_attr: [child, joined]}}
""",
    """heat_template_version: 2016-10-14
parameters:
  env: {type: string, default: dev, constraints: [{allowed_values: [dev, prod]}]}
  items: {type: comma_delimited_list, default: "a,b,c"}
  blob: {type: json, default: {k: v}}
conditions:
  prod: {equals: [{get_param: env}, prod]}
  not_prod: {not: prod}
resources:
  v1:
    type: OS::Heat::Value
    properties:
      value: {if: [prod, {repeat: {for_each: {<%x%>: {get_param: items}}, template: "item-<%x%>"}}, []]}
  v2:
    type: OS::Heat::Value
    condition: not_prod
    properties:
      value: {map_merge: [{get_param: blob}, {extra: {get_param: env}}]}
  v3:
    type: OS::Heat::Value
    properties:
      value: {yaql: {expression: "$.data.l.select($ * 2)", data: {l: [1, 2, 3]}}}
  cfg:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: {get_file: data.txt}}
  none:
    type: OS::Heat::None
outputs:
  o1: {value: {get_attr: [v1, value]}, condition: prod}
  o2: {value: {str_split: [",", "x,y,z", 1]}}
""",
)

CHILD = """heat_template_version: 2018-08-31
parameters:
  label: {type: string}
resources:
  val:
    type: OS::Heat::Value
    properties: {value: {get_param: label}}
outputs:
  joined: {value: {get_attr: [val, value]}}
"""

ENV = """parameters:
  name: fuzz
parameter_defaults:
  count: 1
resource_registry:
  My::Thing: child.yaml
"""

FUNCTIONS = (
    "get_param", "get_resource", "get_attr", "get_file", "str_replace", "list_join", "repeat", "digest",
    "resource_facade", "str_split", "map_merge", "map_replace", "yaql", "equals", "if", "not", "and", "or",
    "filter", "make_url", "list_concat", "list_concat_unique", "contains", "str_replace_strict",
    "str_replace_vstrict", "Fn::GetAZs", "Ref", "Fn::Join", "Fn::Select", "Fn::Split", "Fn::Base64",
)  # fmt: skip
KEYS = (
    "heat_template_version", "description", "parameters", "parameter_groups", "conditions", "resources",
    "outputs", "type", "properties", "depends_on", "condition", "deletion_policy", "update_policy",
    "metadata", "external_id", "value", "default", "constraints", "hidden", "label", "resource_def", "count",
    "template", "params", "for_each", "expression", "data", "resource_registry", "parameter_defaults",
)  # fmt: skip
WEIRD_STRINGS = (
    "", " ", "\x00", "a\x00b", "%index%", "$%&", "../../../../etc/passwd", "/etc/passwd", "/dev/zero",
    "/dev/null", "/dev/stdin", "fifo", "zero", "dir", "child.yaml", "missing.yaml", "data.txt", "x" * 300,
    "OS::Heat::None", "OS::Nova::Server", "OS::Heat::ResourceGroup", "OS::Heat::Stack", "AWS::EC2::Instance",
    "My::Thing", "OS::Heat::AutoScalingGroup", "OS::Heat::WaitCondition", "file:///etc/passwd",
    "http://example.invalid/t.yaml", "2013-05-23", "2015-04-30", "2016-10-14", "2018-08-31", "2021-04-16",
    "newton", "wallaby", "2099-01-01", "{{", "]]", "&a", "*a", "\udcff", "é", "\t", "%", "<%x%>", "$x",
    "Delete", "Retain", "Snapshot", "snapshot", "1e309", "-0", "0x10", "yes", "~", "null",
)  # fmt: skip
NUMBERS = (0, 1, -1, 2, 7, 10**6, 10**30, -(10**30), 3.5, float("nan"), float("inf"), True, False)


def _corpus_templates() -> list[Path]:
    try:
        from tests.corpus.corpus import find_corpus, read_verdicts
    except ImportError:
        return []
    from tests.inputs import inputs_required

    root = find_corpus()
    if root is None:
        if inputs_required():  # under CI the corpus seeds are required, as for every corpus test
            raise RuntimeError(
                "the shared HOT corpus is required (CI / HOTC_REQUIRE_CORPUS) but was not found"
            )
        return []
    out = []
    for row in read_verdicts(root):
        p = root / row.path
        if p.suffix in (".yaml", ".yml", ".template", ".json") and p.is_file():
            out.append(p)
    return sorted(out)


@dataclass(frozen=True)
class Case:
    index: int
    seed_name: str
    mutations: tuple[str, ...]
    files: dict[str, bytes]  # relative name -> content; "t.yaml" is the template, "env.yaml" an environment
    environments: tuple[str, ...] = ()


class Mutator:
    def __init__(self, seed: int, use_corpus: bool = True) -> None:
        self.seed = seed
        self.seeds: list[tuple[str, str]] = [(f"seed{i}", s) for i, s in enumerate(SEEDS)]
        self._cache: dict[int, Any] = {}
        if use_corpus:
            for p in _corpus_templates():
                try:
                    text = p.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                if len(text) <= 30_000:
                    self.seeds.append((str(p.name), text))

    def _parsed(self, which: int) -> Any:
        """Seed ``which`` decoded once (cases get a deep copy)."""
        if which not in self._cache:
            try:
                self._cache[which] = yaml.load(self.seeds[which][1], Loader=_LOADER)
            except yaml.YAMLError:
                self._cache[which] = None
        return self._cache[which]

    def cases(self, count: int, start: int = 0) -> Iterator[Case]:
        for i in range(start, start + count):
            yield self.make_case(i)

    def make_case(self, index: int) -> Case:
        rng = random.Random(self.seed * 1_000_003 + index)
        if rng.random() < HOSTILE_SHARE:
            name, text = hostile(rng)
            files = {
                "t.yaml": text.encode("utf-8", "surrogatepass"),
                "child.yaml": CHILD.encode(),
                "data.txt": b"#!/bin/sh\necho hello\n",
            }
            return Case(index, "hostile", (name,), files)
        which = rng.randrange(len(self.seeds))
        name, text = self.seeds[which]
        applied: list[str] = []
        data: Any = copy.deepcopy(self._parsed(which))
        if isinstance(data, dict) and rng.random() < 0.85:
            for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 5))):
                applied.append(self._mutate_tree(rng, data))
            out = self._dump(rng, data)
        else:
            out = text
        if rng.random() < 0.25:
            what, out = self._mutate_text(rng, out)
            applied.append(what)
        files = {
            "t.yaml": out.encode("utf-8", "surrogatepass"),
            "child.yaml": CHILD.encode(),
            "data.txt": b"#!/bin/sh\necho hello\n",
        }
        envs: tuple[str, ...] = ()
        if rng.random() < 0.15:
            env_text = ENV
            if rng.random() < 0.5:
                env_text = self._mutate_text(rng, env_text)[1]
                applied.append("env-text")
            files["env.yaml"] = env_text.encode("utf-8", "surrogatepass")
            envs = ("env.yaml",)
        return Case(index, name, tuple(applied), files, envs)

    # ------------------------------------------------------------------------------------------- tree

    def _dump(self, rng: random.Random, data: Any) -> str:
        try:
            if rng.random() < 0.1:
                return json.dumps(data, default=str)
            return yaml.dump(data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=10_000)
        except (yaml.YAMLError, ValueError, TypeError, RecursionError):
            return yaml.safe_dump({"heat_template_version": "2018-08-31", "resources": {}})

    def _nodes(self, data: Any) -> list[tuple[Any, Any]]:
        """Every (container, key) pair of the tree."""
        out: list[tuple[Any, Any]] = []
        stack = [data]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, dict):
                for k, v in list(node.items()):
                    out.append((node, k))
                    if isinstance(v, dict | list):
                        stack.append(v)
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    out.append((node, i))
                    if isinstance(v, dict | list):
                        stack.append(v)
        return out

    def _value(self, rng: random.Random, depth: int = 0) -> Any:
        r = rng.random()
        if r < 0.3:
            return rng.choice(WEIRD_STRINGS)
        if r < 0.45:
            return rng.choice(NUMBERS)
        if r < 0.5:
            return None
        if r < 0.75 and depth < 3:
            fn = rng.choice(FUNCTIONS)
            return {fn: self._value(rng, depth + 1)}
        if r < 0.87 and depth < 3:
            return [self._value(rng, depth + 1) for _ in range(rng.randrange(4))]
        if depth < 3:
            return {rng.choice(KEYS): self._value(rng, depth + 1) for _ in range(rng.randrange(3))}
        return rng.choice(WEIRD_STRINGS)

    def _mutate_tree(self, rng: random.Random, data: dict[str, Any]) -> str:
        nodes = self._nodes(data)
        if not nodes:
            data["resources"] = {"x": {"type": rng.choice(WEIRD_STRINGS)}}
            return "new-resource"
        parent, key = rng.choice(nodes)
        op = rng.randrange(14)
        if op == 12:
            res = data.setdefault("resources", {})
            if isinstance(res, dict):
                inner = rng.choice(("OS::Heat::None", "child.yaml", "OS::Heat::ResourceGroup"))
                rdef: dict[str, Any] = {"type": inner}
                if inner == "OS::Heat::ResourceGroup":
                    rdef["properties"] = {
                        "count": rng.choice((100, 1000)),
                        "resource_def": {"type": "OS::Heat::None"},
                    }
                res[f"g{rng.randrange(10)}"] = {
                    "type": "OS::Heat::ResourceGroup",
                    "properties": {
                        "count": rng.choice((3, 500, 10**4, 10**6, 10**9, -5, "7")),
                        "resource_def": rdef,
                    },
                }
            return "big-group"
        if op == 13:
            big = [rng.randrange(100) for _ in range(rng.choice((10, 30, 60)))]
            parent[key] = rng.choice(
                (
                    {
                        "repeat": {
                            "for_each": {"<%a%>": big, "<%b%>": big, "<%c%>": big},
                            "template": "<%a%><%b%><%c%>",
                        }
                    },
                    {
                        "list_join": [
                            ",",
                            {"repeat": {"for_each": {"<%a%>": big}, "template": "<%a%>" * 1000}},
                        ]
                    },
                    {"str_replace": {"template": "$a" * 5000, "params": {"$a": "$a$a"}}},
                    {"yaql": {"expression": "range(0, 100000000).sum()", "data": {}}},
                    {"yaql": {"expression": "$.data.l.select($.data.l)", "data": {"l": big}}},
                    {"digest": ["sha512", "x" * 100000]},
                )
            )
            return "expensive-function"
        if op <= 3:
            parent[key] = self._value(rng)
            return "replace"
        if op == 4:
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
            return "delete"
        if op == 5:
            other_parent, other_key = rng.choice(nodes)
            parent[key] = copy.deepcopy(other_parent[other_key])
            return "copy"
        if op == 6:
            v = parent[key]
            parent[key] = [v] if not isinstance(v, list) else {"k": v}
            return "retype"
        if op == 7:
            fn = rng.choice(FUNCTIONS)
            parent[key] = {fn: parent[key]}
            return f"wrap-{fn}"
        if op == 8:
            res = data.setdefault("resources", {})
            if isinstance(res, dict):
                res[f"r{rng.randrange(100)}"] = {
                    "type": rng.choice(WEIRD_STRINGS[18:26] + ("child.yaml", "fifo", "zero", "a\x00.yaml")),
                    "properties": {rng.choice(KEYS): self._value(rng)},
                }
            return "add-resource"
        if op == 9:
            parent[key] = {"get_file": rng.choice(("fifo", "zero", "dir", "/dev/zero", "a\x00b", "data.txt"))}
            return "get_file"
        if op == 10:
            data["parameter_groups"] = [
                {"label": self._value(rng), "parameters": [self._value(rng), "name", {"p": 1}]}
            ]
            return "parameter_groups"
        if isinstance(parent, dict):
            parent[rng.choice(KEYS)] = self._value(rng)
        else:
            parent.insert(key, self._value(rng))
        return "insert"

    # ------------------------------------------------------------------------------------------- text

    def _mutate_text(self, rng: random.Random, text: str) -> tuple[str, str]:
        op = rng.randrange(8)
        if op == 0 and text:
            cut = rng.randrange(len(text))
            return "truncate", text[:cut]
        if op == 1 and text:
            chars = list(text)
            for _ in range(rng.randrange(1, 6)):
                i = rng.randrange(len(chars))
                chars[i] = rng.choice(("\x00", "\t", ":", "{", "[", "&", "*", "!", "'", '"', "\n", "-", "#"))
            return "flip", "".join(chars)
        if op == 2:
            n, width = rng.choice(((9, 9), (6, 12), (4, 40)))
            lines = [f"x0: &a0 [{', '.join(['lol'] * width)}]"]
            for i in range(1, n):
                lines.append(f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
            bomb = "\n".join(lines)
            body = (
                "heat_template_version: 2018-08-31\nparameters:\n  p:\n    type: json\n    default:\n"
                + "\n".join("      " + line for line in bomb.splitlines())
                + f"\nresources:\n  v:\n    type: OS::Heat::Value\n    properties: {{value: *a{n - 1}}}\n"
            )
            return "alias-bomb", body
        if op == 3:
            depth = rng.choice((50, 500, 990, 5000))
            return "deep", text + f"\nzz: {'[' * depth}{']' * depth}\n"
        if op == 4 and text:
            i = rng.randrange(len(text))
            return "dup", text[:i] + text[i : i + rng.randrange(1, 200)] * rng.randrange(2, 5) + text[i:]
        if op == 5:
            return "recursive-alias", "heat_template_version: 2018-08-31\nresources: &r {x: *r}\n"
        if op == 6:
            return (
                "json-deep",
                '{"heat_template_version": "2018-08-31", "x": ' + "[" * 20000 + "]" * 20000 + "}",
            )
        return "unicode", text.replace("e", "\u00e9", 3) + "\n# \ufeff \u202e\n"


# ------------------------------------------------------------------------------------------- hostile classes
# Whole templates of the classes that must end in a positioned error (or work), never a traceback, a hang or a
# blow-up: YAML tags on every kind of node, nesting at and past each bound of hotc.parser.limits, regular
# expressions with nested quantifiers, and functions whose value multiplies the template's size.

HOSTILE_SHARE = 0.2  # of the cases
TAGS = ("str", "int", "float", "bool", "null", "map", "seq", "binary", "timestamp", "set", "omap", "pairs")
TAG_NODES = ("x1", "''", "{a: 1}", "[{a: 1}]", "[1, 2]", "{? a}", "aGVsbG8=", "2018-08-31", "1.5", "")
EVIL_PATTERNS = (
    "(a+)+$", "(a|a)+$", "(a|aa)+$", "(.*a){25}$", "^(a+)+b", "(\\w+\\s?)+$", "((a+)+)+$", "(a*)*$",
    "(x+x+)+y", "^([a-z0-9]+\\.)*[a-z]+$", "(ab|a)*c", "(a?){30}a{30}", "a?" * 30 + "a" * 30, ".*.*.*.*=",
)  # fmt: skip
HEAD = "heat_template_version: 2018-08-31\n"


def _nest(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "1" + "]" * depth
    if kind == "map":
        return "{a: " * depth + "1" + "}" * depth
    return "{not: " * depth + "true" + "}" * depth


def _tag_case(rng: random.Random) -> tuple[str, str]:
    tag, node = rng.choice(TAGS), rng.choice(TAG_NODES)
    tagged = f"!!{tag} {node}"
    where = rng.randrange(7)
    if where == 0:
        text = HEAD + f"resources: {tagged}\n"
    elif where == 1:
        text = HEAD + f"resources:\n  v: {{type: OS::Heat::Value, properties: {{value: {tagged}}}}}\n"
    elif where == 2:
        text = HEAD + f"parameters:\n  p: {{type: json, default: {tagged}}}\nresources: {{}}\n"
    elif where == 3:
        text = HEAD + f"resources:\n  v: {{type: {tagged}}}\n"
    elif where == 4:
        text = f"heat_template_version: {tagged}\nresources: {{}}\n"
    elif where == 5:
        text = HEAD + f"resources:\n  v: {{type: OS::Heat::Value, properties: {{value: {{{tagged}: 1}}}}}}\n"
    else:
        text = HEAD + f"resources: {{}}\noutputs:\n  o: {{value: {{str_replace: {tagged}}}}}\n"
    return f"tag-!!{tag}", text


def _depth_case(rng: random.Random) -> tuple[str, str]:
    from hotc.parser.limits import MAX_CONDITION_DEPTH, MAX_NESTING_DEPTH

    what = rng.randrange(4)
    if what == 0:  # a value in a resource: 4 levels above it
        depth = MAX_NESTING_DEPTH - 4 + rng.choice((-1, 0, 1, 2, 200, 3000))
        kind = rng.choice(("list", "map"))
        text = (
            HEAD
            + f"resources:\n  v: {{type: OS::Heat::Value, properties: {{value: {_nest(depth, kind)}}}}}\n"
        )
        return f"depth-value-{depth}", text
    if what == 1:  # a json parameter's default (a string: read by json.loads)
        depth = MAX_NESTING_DEPTH + rng.choice((-1, 0, 1, 3000))
        text = HEAD + (
            f"parameters:\n  p: {{type: json, default: '{_nest(depth, 'list')}'}}\n"
            "resources:\n  v: {type: OS::Heat::Value, properties: {value: {get_param: p}}}\n"
        )
        return f"depth-json-{depth}", text
    if what == 2:  # a chain of conditions: c0 is 2 deep, each {not: c} adds 4
        links = (MAX_CONDITION_DEPTH - 2) // 4 + rng.choice((-1, 0, 1, 2, 3000))
        lines = [HEAD.rstrip(), "conditions:", "  c0: true"]
        lines += [f"  c{i}: {{not: c{i - 1}}}" for i in range(1, links + 1)]
        lines += [
            "resources:",
            f"  v: {{type: OS::Heat::Value, condition: c{links}, properties: {{value: 1}}}}",
        ]
        return f"depth-conditions-{links}", "\n".join(lines) + "\n"
    depth = rng.choice((50, 100, 150, 199, 300))  # functions nested in a condition or a value
    if rng.random() < 0.5:
        text = (
            HEAD
            + f"conditions:\n  c: {_nest(depth, 'not')}\nresources:\n  v: {{type: OS::Heat::None, condition: c}}\n"
        )
    else:
        v = "x"
        for _ in range(depth // 3):
            v = "{list_join: [',', [" + v + "]]}"
        text = HEAD + f"resources:\n  v: {{type: OS::Heat::Value, properties: {{value: {v}}}}}\n"
    return f"depth-functions-{depth}", text


def _regex_case(rng: random.Random) -> tuple[str, str]:
    pattern = rng.choice(EVIL_PATTERNS)
    value = rng.choice(("a" * 40 + "b", "a" * 30, "x" * 40, "ab" * 20 + "!", "aaaa.bbbb.cccc!"))
    text = HEAD + (
        f"parameters:\n  p:\n    type: string\n    default: '{value}'\n"
        f"    constraints:\n      - allowed_pattern: '{pattern}'\n"
        "resources:\n  v: {type: OS::Heat::Value, properties: {value: {get_param: p}}}\n"
    )
    return "regex-nested-quantifiers", text


def _amplify_case(rng: random.Random) -> tuple[str, str]:
    big = "parameters:\n  p: {type: string, default: '" + "y" * rng.choice((10, 1000, 5000)) + "'}\n"
    n = rng.choice((10, 1000, 20000))
    what = rng.randrange(6)
    if what == 0:
        expr = "{str_replace: {template: '" + "$a" * n + "', params: {$a: {get_param: p}}}}"
    elif what == 1:
        inner = "{str_replace: {template: '" + "$a" * 100 + "', params: {$a: {get_param: p}}}}"
        expr = "{str_replace: {template: '" + "$b" * 100 + "', params: {$b: " + inner + "}}}"
    elif what == 2:
        expr = "{list_join: ['', [" + ", ".join(["{get_param: p}"] * min(n, 3000)) + "]]}"
    elif what == 3:
        items = str(list(range(rng.choice((10, 100, 300)))))
        expr = "{repeat: {for_each: {<%a%>: " + items + ", <%b%>: " + items + ", <%c%>: " + items + "}, "
        expr += "template: '<%a%><%b%><%c%>'}}"
    elif what == 4:
        big = "parameters:\n  l: {type: json, default: " + str(list(range(rng.choice((10, 3000))))) + "}\n"
        expr = "{list_concat_unique: [" + ", ".join(["{get_param: l}"] * rng.choice((2, 200))) + "]}"
    else:
        expr = "{list_join: [',', [" + ", ".join(["{get_file: data.txt}"] * min(n, 3000)) + "]]}"
    text = HEAD + big + f"resources:\n  v:\n    type: OS::Heat::Value\n    properties:\n      value: {expr}\n"
    return (
        f"amplify-{('str_replace', 'nested-str_replace', 'list_join', 'repeat', 'list_concat_unique', 'get_file')[what]}",
        text,
    )


def hostile(rng: random.Random) -> tuple[str, str]:
    """One template of a hostile class: (its class and detail, the text)."""
    return rng.choice((_tag_case, _depth_case, _regex_case, _amplify_case))(rng)
