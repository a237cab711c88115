"""Environment files: sections, resource_registry resolution rules, merging several -e files."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.errors import Severity
from hotc.parser.environment import (
    GLOBAL_REGISTRY,
    EnvironmentFile,
    TypeNotFound,
    load_registry,
    merge_environments,
    parse_environment,
)
from hotc.parser.yamlload import load_document


def _env(text: str, path: str = "/work/envs/env.yaml") -> tuple[EnvironmentFile | None, list[str]]:
    data, diags = load_document(text, path, what="environment")
    assert data is not None, diags
    ef, d = parse_environment(data, path)
    return ef, [x.message for x in d if x.severity is Severity.ERROR]


def _registry(text: str, path: str = "/work/envs/env.yaml"):  # type: ignore[no-untyped-def]
    ef, errs = _env(text, path)
    assert ef is not None and not errs, errs
    env, d = merge_environments([ef], {})
    assert not d
    return env.registry


# --------------------------------------------------------------------------------------------- sections


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("resources: {}\n", 'environment has wrong section "resources"'),
        ("parameters:\n", 'environment has empty section "parameters"'),
        ("parameters: [a]\n", "section parameters must be a mapping"),
        ("encrypted_param_names: a\n", "section encrypted_param_names must be a list"),
        ("event_sinks: [{target: x}]\n", "each event sink must be a mapping with a type"),
        (
            "resource_registry:\n  resources:\n    srv:\n      hooks: pre-boot\n",
            'Invalid hook type "pre-boot"',
        ),
        (
            "resource_registry:\n  resources:\n    srv:\n      restricted_actions: delete\n",
            'Invalid restricted_action type "delete"',
        ),
        ("resource_registry:\n  OS::Foo: 5\n", "must be a type name or a template file"),
    ],
)
def test_section_errors(text: str, fragment: str) -> None:
    _, errs = _env(text)
    assert any(fragment in e for e in errs), errs


def test_all_sections_accepted() -> None:
    ef, errs = _env(
        """
parameters: {a: 1}
parameter_defaults: {b: 2}
resource_registry: {"My::Type": OS::Heat::None}
encrypted_param_names: [a]
event_sinks: [{type: zaqar-queue, target: q}]
parameter_merge_strategies: {default: merge}
"""
    )
    assert ef is not None and errs == []
    env, d = merge_environments([ef], {"a": "number", "b": "number"})
    assert d == []
    assert env.parameters == {"a": 1}
    assert env.parameter_defaults == {"b": 2}
    assert env.encrypted_param_names == ("a",)
    assert env.event_sinks[0]["type"] == "zaqar-queue"


def test_error_position_of_wrong_section() -> None:
    data, _ = load_document("parameters: {}\nresource_regstry: {}\n", "e.yaml", what="environment")
    _, diags = parse_environment(data, "e.yaml")
    assert diags[0].pos is not None and (diags[0].pos.line, diags[0].pos.col) == (2, 1)


# --------------------------------------------------------------------------------------------- registry


def test_alias() -> None:
    r = _registry('resource_registry:\n  "My::Server": "OS::Nova::Server"\n')
    res = r.resolve("My::Server", "srv")
    assert (res.kind, res.type_name) == ("builtin", "OS::Nova::Server")


def test_alias_chain() -> None:
    r = _registry('resource_registry:\n  "A::B": "C::D"\n  "C::D": "OS::Neutron::Net"\n')
    assert r.resolve("A::B").type_name == "OS::Neutron::Net"


def test_alias_loop_is_an_error() -> None:
    r = _registry('resource_registry:\n  "A::B": "C::D"\n  "C::D": "A::B"\n')
    with pytest.raises(TypeNotFound, match="loop"):
        r.resolve("A::B")


def test_glob() -> None:
    r = _registry('resource_registry:\n  "OS::Networking::*": "OS::Neutron::*"\n')
    assert r.resolve("OS::Networking::Port").type_name == "OS::Neutron::Port"


def test_many_to_one_glob_does_not_recurse() -> None:
    r = _registry('resource_registry:\n  "OS::*": "OS::Heat::None"\n')
    res = r.resolve("OS::Nova::Server")
    assert res.kind == "none"


def test_template_file_relative_to_environment(tmp_path: Path) -> None:
    env_path = str(tmp_path / "envs" / "env.yaml")
    r = _registry('resource_registry:\n  "My::Thing": ../templates/thing.yaml\n', env_path)
    res = r.resolve("My::Thing")
    assert res.kind == "template"
    assert res.template == str(tmp_path / "templates" / "thing.yaml")


def test_base_url(tmp_path: Path) -> None:
    r = _registry(
        'resource_registry:\n  base_url: /opt/tmpl\n  "My::Thing": thing.yaml\n', str(tmp_path / "e.yaml")
    )
    assert r.resolve("My::Thing").template == "/opt/tmpl/thing.yaml"


def test_per_resource_override_beats_top_level() -> None:
    r = _registry(
        """
resource_registry:
  "OS::Nova::Server": OS::Heat::None
  resources:
    special:
      "OS::Nova::Server": /t/special.yaml
"""
    )
    assert r.resolve("OS::Nova::Server", "special").kind == "template"
    assert r.resolve("OS::Nova::Server", "special").template == "/t/special.yaml"
    assert r.resolve("OS::Nova::Server", "other").kind == "none"


def test_same_length_paths_sort_by_name_as_in_heat() -> None:
    # Heat sorts candidates by (user first, longer path first, path): "OS::*" < "OS::Nova::Server", so a
    # matching glob is tried before an exact top-level mapping ('*' sorts before letters)
    r = _registry('resource_registry:\n  "OS::*": OS::Heat::None\n  "OS::Nova::Server": /t/s.yaml\n')
    assert r.resolve("OS::Nova::Server").kind == "none"
    r = _registry('resource_registry:\n  "My::*": OS::Heat::None\n  "OS::Nova::Server": /t/s.yaml\n')
    assert r.resolve("OS::Nova::Server").kind == "template"
    assert r.resolve("My::Thing").kind == "none"


def test_per_resource_override_beats_glob() -> None:
    r = _registry(
        'resource_registry:\n  "OS::*": OS::Heat::None\n  resources:\n    web:\n      "OS::Nova::Server": /t/s.yaml\n'
    )
    assert r.resolve("OS::Nova::Server", "web").kind == "template"
    assert r.resolve("OS::Nova::Server", "db").kind == "none"


def test_user_beats_builtin() -> None:
    r = _registry('resource_registry:\n  "OS::Nova::Server": /t/server.yaml\n')
    assert r.resolve("OS::Nova::Server").kind == "template"


def test_null_mapping_removes_earlier_entry_in_same_registry() -> None:
    reg = load_registry({"My::A": "OS::Heat::None", "My::*": None})
    with pytest.raises(TypeNotFound):
        reg.resolve("My::A")


def test_unknown_type() -> None:
    r = _registry("resource_registry: {}\n")
    with pytest.raises(
        TypeNotFound, match=r"The Resource Type \(Rackspace::Cloud::Server\) could not be found"
    ):
        r.resolve("Rackspace::Cloud::Server")


@pytest.mark.parametrize("alias", sorted(k for k in GLOBAL_REGISTRY if not k.endswith("*")))
def test_global_environment_aliases(alias: str) -> None:
    r = _registry("resource_registry: {}\n")
    res = r.resolve(alias)
    assert res.kind == "builtin" and res.type_name.startswith("OS::Aodh::")


def test_global_quantum_glob() -> None:
    r = _registry("resource_registry: {}\n")
    assert r.resolve("OS::Quantum::Net").type_name == "OS::Neutron::Net"


def test_hooks_are_read_per_resource_pattern() -> None:
    r = _registry(
        'resource_registry:\n  resources:\n    "web*":\n      hooks: [pre-create, pre-update]\n      restricted_actions: replace\n'
    )
    assert r.hooks_for("web1") == ("pre-create", "pre-update")
    assert r.restricted_actions("web2") == frozenset({"replace"})
    assert r.resolve("OS::Nova::Server", "web1").kind == "builtin"


def test_child_environment_removes_the_mapping_that_led_there() -> None:
    ef, _ = _env('resource_registry:\n  "OS::Nova::Server": /t/server.yaml\n')
    assert ef is not None
    env, _ = merge_environments([ef], {})
    res = env.registry.resolve("OS::Nova::Server", "srv")
    child = env.child("srv", res.entry)
    assert child.registry.resolve("OS::Nova::Server", "x").kind == "builtin"
    assert child.parameters == {}


# --------------------------------------------------------------------------------------------- merging


def _files(*texts: str) -> list[EnvironmentFile]:
    out = []
    for i, t in enumerate(texts):
        ef, errs = _env(t, f"/e/env{i}.yaml")
        assert ef is not None and not errs
        out.append(ef)
    return out


def test_merge_overwrite_by_default() -> None:
    env, d = merge_environments(_files("parameters: {a: x}\n", "parameters: {a: y}\n"), {"a": "string"})
    assert env.parameters == {"a": "y"} and d == []


def test_merge_strategy_merge_per_type() -> None:
    files = _files(
        "parameter_merge_strategies: {default: merge}\nparameters: {s: ab, l: 'x', j: {k1: 1}}\n",
        "parameters: {s: cd, l: 'y', j: {k2: 2}}\n",
    )
    env, d = merge_environments(files, {"s": "string", "l": "comma_delimited_list", "j": "json"})
    assert d == [], d
    assert env.parameters == {"s": "abcd", "l": "x,y", "j": {"k1": 1, "k2": 2}}


def test_merge_strategy_errors_where_heat_does() -> None:
    # Heat 27 (the differential oracle's cases): a number merges only as a string or a list (its parse_param),
    # so merging numbers is a 400; a list does not join a string; an unknown strategy falls back to the
    # file's default, and an unknown default then conflicts with a later file's overwrite
    for texts, types in (
        (
            ("parameter_merge_strategies: {default: merge}\nparameters: {n: 1}\n", "parameters: {n: 2}\n"),
            {"n": "number"},
        ),
        (
            ("parameter_merge_strategies: {l: merge}\nparameters: {l: [x, y]}\n", "parameters: {l: c}\n"),
            {"l": "comma_delimited_list"},
        ),
        (
            (
                "parameter_merge_strategies: {default: bogus}\nparameters: {l: 'a,b'}\n",
                "parameter_defaults: {l: 'a,b'}\n",
            ),
            {"l": "comma_delimited_list"},
        ),
    ):
        _, d = merge_environments(_files(*texts), types)
        assert d and d[0].severity.value == "error", texts


def test_merge_deep_merge_json() -> None:
    files = _files(
        "parameter_merge_strategies: {j: deep_merge}\nparameters: {j: {a: {x: 1}, l: [1]}}\n",
        "parameter_merge_strategies: {j: deep_merge}\nparameters: {j: {a: {y: 2}, l: [2]}}\n",
    )
    env, d = merge_environments(files, {"j": "json"})
    assert env.parameters["j"] == {"a": {"x": 1, "y": 2}, "l": [1, 2]}


def test_later_default_strategy_does_not_change_an_earlier_choice() -> None:
    # Heat keeps the strategy a parameter got first; a later file's `default` does not change it
    files = _files(
        "parameters: {s: ab}\n", "parameter_merge_strategies: {default: merge}\nparameters: {s: cd}\n"
    )
    env, d = merge_environments(files, {"s": "string"})
    assert env.parameters == {"s": "cd"} and d == []


def test_conflicting_strategies_are_an_error() -> None:
    files = _files(
        "parameter_merge_strategies: {a: merge}\nparameters: {a: x}\n",
        "parameter_merge_strategies: {a: overwrite}\nparameters: {a: y}\n",
    )
    _, d = merge_environments(files, {"a": "string"})
    assert any("Conflicting merge strategy" in x.message for x in d)


def test_registry_merges_shallowly() -> None:
    files = _files(
        'resource_registry:\n  "A::X": OS::Heat::None\n  resources:\n    r1: {"OS::Nova::Server": OS::Heat::None}\n',
        'resource_registry:\n  "B::Y": OS::Heat::None\n  resources:\n    r2: {"OS::Nova::Server": OS::Heat::None}\n',
    )
    env, _ = merge_environments(files, {})
    assert env.registry.resolve("A::X").kind == "none"
    assert env.registry.resolve("B::Y").kind == "none"
    # the later file's `resources` replaced the earlier one wholesale (Heat's server-side merge)
    assert env.registry.resolve("OS::Nova::Server", "r1").kind == "builtin"
    assert env.registry.resolve("OS::Nova::Server", "r2").kind == "none"


def test_parameter_defaults_for_undeclared_names_kept_for_nested_templates() -> None:
    files = _files("parameter_defaults: {a: 1}\n", "parameter_defaults: {zz: 2, a: 5}\n")
    env, _ = merge_environments(files, {"a": "number"})
    assert env.parameter_defaults == {"a": 5, "zz": 2}


def test_valid_hooks_are_accepted_without_a_diagnostic() -> None:
    """The apply pauses at them (tests/apply/test_hooks.py): no "ignored" warning any more."""
    data, _ = load_document(
        "resource_registry:\n  resources:\n    web:\n      hooks: pre-create\n", "e.yaml", what="environment"
    )
    ef, diags = parse_environment(data, "e.yaml")
    assert ef is not None
    assert diags == []
