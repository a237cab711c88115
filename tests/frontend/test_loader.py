"""load_stack: files, environments, types, nested templates, get_file, parameter values."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hotc.errors import Diagnostic, Severity
from hotc.parser.api import LoadedStack, load_stack
from hotc.providers.checks import type_checks


def _w(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def _load(
    tmpl: Path, envs: list[Path] | None = None, **kw: object
) -> tuple[LoadedStack | None, list[Diagnostic]]:
    params = kw.pop("params", {})
    pfiles = kw.pop("pfiles", {})
    require = bool(kw.pop("require_values", False))
    return load_stack(
        str(tmpl), [str(e) for e in envs or []], params, pfiles, require_values=require, checks=type_checks()
    )  # type: ignore[arg-type]


def _errs(diags: list[Diagnostic]) -> list[str]:
    return [d.message for d in diags if d.severity is Severity.ERROR]


def test_simple_stack(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        parameters:
          count: {type: number, default: 2}
          key: {type: string}
        resources:
          r: {type: OS::Heat::RandomString}
        """,
    )
    st, diags = _load(t)
    assert _errs(diags) == []
    assert st is not None
    assert st.parameter_values == {"count": 2}  # no value needed for `key` in validate
    assert st.types["r"].kind == "builtin" and st.types["r"].type_name == "OS::Heat::RandomString"
    assert str(t) in st.sources


def test_require_values(tmp_path: Path) -> None:
    t = _w(tmp_path / "t.yaml", "heat_template_version: 2018-08-31\nparameters:\n  key: {type: string}\n")
    _, diags = _load(t, require_values=True)
    assert any("The Parameter (key) was not provided" in m for m in _errs(diags))
    st, diags = _load(t, require_values=True, params={"key": "abc"})
    assert _errs(diags) == [] and st is not None and st.parameter_values["key"] == "abc"


def test_parameter_sources_order(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        parameters:
          a: {type: string, default: tmpl}
          b: {type: string, default: tmpl}
          c: {type: comma_delimited_list}
          d: {type: string}
        """,
    )
    e = _w(tmp_path / "e.yaml", "parameters: {a: env}\nparameter_defaults: {b: envdefault, c: 'x,y'}\n")
    pf = _w(tmp_path / "d.txt", "from a file")
    st, diags = _load(t, [e], params={"a": "cli"}, pfiles={"d": str(pf)})
    assert _errs(diags) == []
    assert st is not None
    assert st.parameter_values == {"a": "cli", "b": "envdefault", "c": ["x", "y"], "d": "from a file"}


def test_unknown_parameter_value_is_an_error_at_its_position(tmp_path: Path) -> None:
    t = _w(tmp_path / "t.yaml", "heat_template_version: 2018-08-31\n")
    e = _w(tmp_path / "e.yaml", "parameters:\n  nope: 1\n")
    _, diags = _load(t, [e])
    d = next(d for d in diags if "The Parameter (nope) was not defined" in d.message)
    assert d.pos is not None and d.pos.file == str(e) and d.pos.line == 2


def test_unknown_type_is_an_error_at_the_type(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        "heat_template_version: 2018-08-31\nresources:\n  r:\n    type: OS::Bogus::Thing\n",
    )
    _, diags = _load(t)
    d = next(d for d in diags if "The Resource Type (OS::Bogus::Thing) could not be found" in d.message)
    assert d.pos is not None and (d.pos.line, d.pos.col) == (4, 11)


def test_environment_maps_custom_type(tmp_path: Path) -> None:
    t = _w(tmp_path / "t.yaml", "heat_template_version: 2018-08-31\nresources:\n  r:\n    type: My::Thing\n")
    e = _w(tmp_path / "e.yaml", 'resource_registry:\n  "My::Thing": OS::Heat::None\n')
    st, diags = _load(t, [e])
    assert _errs(diags) == [] and st is not None and st.types["r"].kind == "none"


def test_hidden_type_is_a_warning(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        "heat_template_version: 2018-08-31\nresources:\n  r:\n    type: OS::Neutron::RouterGateway\n",
    )
    _, diags = _load(t)
    assert _errs(diags) == []
    # hidden in Heat but still implemented (not a do-nothing placeholder): the warning names the replacement
    (w,) = [d for d in diags if d.severity is Severity.WARNING and d.code == "hidden-type"]
    assert (
        "deprecated" in w.message and "external_gateway_info" in w.message and "placeholder" not in w.message
    )


def test_global_alias_is_built_in(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        "heat_template_version: 2018-08-31\nresources:\n  a:\n    type: OS::Ceilometer::Alarm\n",
    )
    st, diags = _load(t)
    assert _errs(diags) == [] and st is not None and st.types["a"].type_name == "OS::Aodh::Alarm"


def test_snapshot_policy_needs_a_snapshot_type(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2016-10-14
        resources:
          vol: {type: OS::Cinder::Volume, deletion_policy: Snapshot, properties: {size: 1}}
          snap: {type: OS::Heat::None, deletion_policy: Snapshot}
        """,
    )
    _, diags = _load(t)
    errs = [d for d in diags if '"Snapshot" deletion policy not supported' in d.message]
    assert len(errs) == 1 and errs[0].pos is not None and errs[0].pos.line == 4


def test_false_condition_skips_type_check(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2016-10-14
        conditions:
          never: false
        resources:
          r: {type: Not::A::Type, condition: never}
        """,
    )
    _, diags = _load(t)
    assert _errs(diags) == []


def _get_file_parsed(st: LoadedStack) -> bool:
    from hotc.parser.evaluate import references

    props = st.template.resources["c"].properties
    return props is not None and any(k == "file" for k, _, _ in references(props))


def test_get_file_relative_to_the_template(tmp_path: Path) -> None:
    _w(tmp_path / "sub" / "scripts" / "boot.sh", "#!/bin/sh\necho hi\n")
    t = _w(
        tmp_path / "sub" / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          c:
            type: OS::Heat::SoftwareConfig
            properties: {config: {get_file: scripts/boot.sh}}
        """,
    )
    st, diags = _load(t)
    assert st is not None
    assert _get_file_parsed(st), "get_file must be parsed as a function (a file reference), not kept as data"
    assert _errs(diags) == []
    assert st is not None and st.files == {"scripts/boot.sh": "#!/bin/sh\necho hi\n"}


def test_missing_get_file_is_an_error(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          c:
            type: OS::Heat::SoftwareConfig
            properties: {config: {get_file: nothere.sh}}
        """,
    )
    st, diags = _load(t)
    assert st is not None
    assert _get_file_parsed(st), "get_file must be parsed as a function (a file reference), not kept as data"
    d = next(d for d in diags if "nothere.sh" in d.message)
    assert d.severity is Severity.ERROR and d.pos is not None and d.pos.line == 5


NESTED = """
heat_template_version: 2018-08-31
parameters:
  size: {type: number}
  name: {type: string, default: x}
resources:
  inner: {type: OS::Heat::RandomString}
outputs:
  value: {value: {get_attr: [inner, value]}}
"""


def test_template_resource_relative_and_validated(tmp_path: Path) -> None:
    _w(tmp_path / "lib" / "thing.yaml", NESTED)
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          t1:
            type: lib/thing.yaml
            properties: {size: 3, colour: red}
          use:
            type: OS::Heat::Value
            properties:
              value: {get_attr: [t1, value]}
              other: {get_attr: [t1, nosuch]}
        """,
    )
    st, diags = _load(t)
    errs = _errs(diags)
    assert any("Unknown Property colour" in m for m in errs), errs
    # Heat's template validate accepts any attribute of a template resource (checked on Heat 27): a warning
    # that says why, not an error
    assert not any("t1" in m and "nosuch" in m for m in errs), errs
    warns = [d.message for d in diags if d.code == "attribute"]
    assert len(warns) == 1 and "get_attr [t1, nosuch]" in warns[0] and "no output 'nosuch'" in warns[0]
    assert "Heat's template validate cannot know" in warns[0]
    assert st is not None
    key = st.types["t1"].template_key
    assert st.types["t1"].kind == "template" and key == str(tmp_path / "lib" / "thing.yaml")
    assert key in st.nested and "inner" in st.nested[key].template.resources
    assert st.nested[key].types["inner"].type_name == "OS::Heat::RandomString"


def test_nested_template_errors_reported_in_its_file(tmp_path: Path) -> None:
    nested = _w(
        tmp_path / "bad.yaml", "heat_template_version: 2018-08-31\nresources:\n  x:\n    type: Bad::Type\n"
    )
    t = _w(tmp_path / "t.yaml", "heat_template_version: 2018-08-31\nresources:\n  n:\n    type: bad.yaml\n")
    _, diags = _load(t)
    d = next(d for d in diags if "Bad::Type" in d.message)
    assert d.pos is not None and d.pos.file == str(nested) and d.pos.line == 4


def test_missing_nested_template(tmp_path: Path) -> None:
    t = _w(tmp_path / "t.yaml", "heat_template_version: 2018-08-31\nresources:\n  n:\n    type: gone.yaml\n")
    _, diags = _load(t)
    d = next(d for d in diags if "gone.yaml" in d.message)
    assert "no such file" in d.message and d.pos is not None and d.pos.line == 4


def test_self_including_template(tmp_path: Path) -> None:
    t = _w(tmp_path / "t.yaml", "heat_template_version: 2018-08-31\nresources:\n  n:\n    type: t.yaml\n")
    _, diags = _load(t)
    assert any("includes itself" in m for m in _errs(diags))


def test_registry_template_replacing_builtin_may_use_the_builtin(tmp_path: Path) -> None:
    _w(
        tmp_path / "server.yaml",
        "heat_template_version: 2018-08-31\nparameters:\n  flavor: {type: string}\nresources:\n"
        "  real: {type: OS::Nova::Server, properties: {flavor: {get_param: flavor}, image: x}}\n",
    )
    e = _w(tmp_path / "env.yaml", 'resource_registry:\n  "OS::Nova::Server": server.yaml\n')
    t = _w(
        tmp_path / "t.yaml",
        "heat_template_version: 2018-08-31\nresources:\n  s:\n    type: OS::Nova::Server\n    properties: {flavor: m1}\n",
    )
    st, diags = _load(t, [e])
    assert not any("includes itself" in m for m in _errs(diags))
    assert st is not None and st.types["s"].kind == "template"
    nested = st.nested[str(tmp_path / "server.yaml")]
    assert nested.types["real"].kind == "builtin"


def test_unreadable_template(tmp_path: Path) -> None:
    st, diags = _load(tmp_path / "none.yaml")
    assert st is None and any("no such file" in m for m in _errs(diags))


def test_too_large_template(tmp_path: Path) -> None:
    t = _w(tmp_path / "t.yaml", "heat_template_version: 2018-08-31\ndescription: " + "x" * 200 + "\n")
    st, diags = load_stack(str(t), [], {}, {}, require_values=False, checks=type_checks(), max_size=100)
    assert st is None and any("exceeds the maximum" in m for m in _errs(diags))


def test_group_member_template_loaded_and_checked_as_warnings(tmp_path: Path) -> None:
    _w(tmp_path / "member.yaml", NESTED)
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          grp:
            type: OS::Heat::ResourceGroup
            properties:
              count: 2
              resource_def:
                type: member.yaml
                properties: {size: 1, bogus: 2}
          asg:
            type: OS::Heat::AutoScalingGroup
            properties:
              min_size: 1
              max_size: 2
              resource: {type: OS::Nova::Server, properties: {image: x, flavor: y}}
          odd:
            type: OS::Heat::ResourceGroup
            properties:
              resource_def: {type: No::Such::Type}
        """,
    )
    st, diags = _load(t)
    assert _errs(diags) == []
    warns = [d.message for d in diags if d.severity is Severity.WARNING]
    assert any("Unknown Property bogus" in m for m in warns), warns
    assert any("No::Such::Type" in m for m in warns), warns
    assert st is not None
    key = str(tmp_path / "member.yaml")
    assert st.member_types["grp"].kind == "template" and st.member_types["grp"].template_key == key
    assert key in st.nested
    assert st.member_types["asg"].type_name == "OS::Nova::Server"
    assert "odd" not in st.member_types


def test_heat_stack_with_get_file_template(tmp_path: Path) -> None:
    _w(tmp_path / "inner.yaml", NESTED)
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          st:
            type: OS::Heat::Stack
            properties:
              template: {get_file: inner.yaml}
              parameters: {size: 4}
        """,
    )
    st, diags = _load(t)
    assert _errs(diags) == []
    assert st is not None and st.member_types["st"].kind == "template"
    assert st.nested[str(tmp_path / "inner.yaml")].template.parameters["size"].type == "number"
    assert "inner.yaml" in st.files


def test_get_attr_unknown_builtin_attribute_is_an_error_as_in_heat(tmp_path: Path) -> None:
    """Heat 27: "outputs.bad.value.get_attr: The Referenced Attribute (r colour) is incorrect." (GetAtt.validate
    against the type's attributes schema). Not checked: types whose class answers any attribute (groups,
    OS::Heat::None), a resource or an output whose condition is false, an ``if`` branch not taken."""
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        conditions:
          never: false
        resources:
          r: {type: OS::Heat::RandomString}
          g:
            type: OS::Heat::ResourceGroup
            properties: {resource_def: {type: OS::Heat::RandomString}}
          n: {type: OS::Heat::None}
          off:
            type: OS::Heat::Value
            condition: never
            properties: {value: {get_attr: [r, nope1]}}
          branch:
            type: OS::Heat::Value
            properties: {value: {if: [never, {get_attr: [r, nope2]}, {get_attr: [r, value]}]}}
        outputs:
          good: {value: {get_attr: [r, value]}}
          shown: {value: {get_attr: [r, show]}}
          bad: {value: {get_attr: [r, colour]}}
          member: {value: {get_attr: [g, resource.0.value]}}
          none: {value: {get_attr: [n, anything]}}
          disabled: {value: {get_attr: [r, nope3]}, condition: never}
        """,
    )
    _, diags = _load(t)
    errs = [d for d in diags if d.severity.value == "error"]
    assert len(errs) == 1, [d.message for d in diags]
    assert errs[0].message.startswith("The Referenced Attribute (r colour) is incorrect")
    assert "OS::Heat::RandomString has no attribute 'colour'" in errs[0].message
    assert errs[0].pos is not None and errs[0].pos.line == 20
    assert not [d for d in diags if d.code == "attribute"]


def test_get_attr_of_os_heat_stack_names_its_own_attributes_not_the_outputs(tmp_path: Path) -> None:
    """OS::Heat::Stack has the attributes stack_name, outputs and show (Heat 27 rejects
    ``get_attr: [st, an_output]``); a nested output is read through ``outputs``."""
    _w(tmp_path / "inner.yaml", "heat_template_version: 2018-08-31\noutputs:\n  real: {value: 1}\n")
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          st:
            type: OS::Heat::Stack
            properties: {template: {get_file: inner.yaml}}
        outputs:
          ok: {value: {get_attr: [st, outputs, real]}}
          bad: {value: {get_attr: [st, real]}}
        """,
    )
    _, diags = _load(t)
    errs = [d.message for d in diags if d.severity.value == "error"]
    assert len(errs) == 1 and errs[0].startswith("The Referenced Attribute (st real) is incorrect"), errs


def test_update_policy_keys_per_type(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          g:
            type: OS::Heat::ResourceGroup
            properties: {resource_def: {type: OS::Heat::None}}
            update_policy: {rolling_update: {max_batch_size: 1}, batch_create: {max_batch_size: 2}}
          s:
            type: OS::Heat::RandomString
            update_policy: {rolling_update: {}}
          a:
            type: OS::Heat::AutoScalingGroup
            properties: {min_size: 0, max_size: 1, resource: {type: OS::Heat::None}}
            update_policy: {rolling_update: {}}
        """,
    )
    _, diags = _load(t)
    errs = [d for d in diags if "update_policy: Unknown Property" in d.message]
    assert [(d.pos.line if d.pos else 0) for d in errs] == [9, 13]
    assert "rolling_updates property" in errs[1].message


def test_conditions_evaluated_in_dependency_order(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2016-10-14
        parameters:
          env: {type: string, default: dev}
          unset: {type: string}
        conditions:
          off: {not: is_dev}
          is_dev: {equals: [{get_param: env}, dev]}
          unknown: {equals: [{get_param: unset}, x]}
          still_true: {or: [unknown, is_dev]}
          unknown_off: {and: [unknown, off]}
        resources:
          a: {type: Not::A::Type, condition: off}
          b: {type: Not::A::Type, condition: unknown_off}
          c: {type: Not::A::TypeEither, condition: still_true}
          d: {type: Not::A::TypeToo, condition: unknown}
        """,
    )
    _, diags = _load(t)
    errs = " | ".join(_errs(diags))
    # off and unknown_off are false (and short-circuits on a known false): not checked
    assert "(Not::A::Type)" not in errs
    # still_true is true; unknown may be true: both checked
    assert "Not::A::TypeEither" in errs and "Not::A::TypeToo" in errs


def test_parameter_defaults_reach_nested_templates(tmp_path: Path) -> None:
    _w(tmp_path / "thing.yaml", NESTED)
    t = _w(tmp_path / "t.yaml", "heat_template_version: 2018-08-31\nresources:\n  n:\n    type: thing.yaml\n")
    e1 = _w(tmp_path / "e1.yaml", "parameter_defaults: {other: 1}\n")
    e2 = _w(tmp_path / "e2.yaml", "parameter_defaults: {size: 7}\n")
    st, diags = _load(t, [e1, e2])
    assert _errs(diags) == []
    assert not any("needs parameter 'size'" in d.message for d in diags)
    _, diags = _load(t, [e1])
    assert any("needs parameter 'size'" in d.message for d in diags)


def test_template_resource_property_values_checked_against_parameter_types(tmp_path: Path) -> None:
    _w(
        tmp_path / "thing.yaml",
        """
        heat_template_version: 2018-08-31
        parameters:
          size: {type: number}
          mode: {type: string, constraints: [{allowed_values: [a, b]}]}
        """,
    )
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          ok: {type: thing.yaml, properties: {size: "3", mode: a}}
          bad: {type: thing.yaml, properties: {size: lots, mode: c}}
        """,
    )
    _, diags = _load(t)
    assert _errs(diags) == []
    warns = [d for d in diags if d.code == "property" and "is not valid for parameter" in d.message]
    assert len(warns) == 2 and all(w.pos is not None and w.pos.line == 4 for w in warns)


def test_get_attr_on_a_type_without_provider_schema_is_checked_against_heats_attribute_names(
    tmp_path: Path,
) -> None:
    """OS::Trove::Instance has no provider schema in hotc; its attribute names come from Heat's plugin."""
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        resources:
          db:
            type: OS::Trove::Instance
            properties: {flavor: f, size: 1}
        outputs:
          ok: {value: {get_attr: [db, hostname]}}
          bad: {value: {get_attr: [db, hostnme]}}
        """,
    )
    _, diags = _load(t)
    errs = [d for d in diags if d.severity.value == "error"]
    assert len(errs) == 1 and errs[0].message.startswith("The Referenced Attribute (db hostnme) is incorrect")
    assert "hostname, href, show" in errs[0].message and errs[0].pos is not None and errs[0].pos.line == 8
