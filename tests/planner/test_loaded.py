"""Planning real files through the front end's load_stack: template resources, groups of templates,
OS::Heat::Stack with get_file, registry aliases and parameter_defaults reaching nested stacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.parser.api import load_stack
from hotc.planner.api import PlanOptions, StateResolver, build_desired, make_plan
from hotc.providers.checks import type_checks

MAIN = """\
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 2}
resources:
  net:
    type: OS::Neutron::Net
  db:
    type: My::DB
    properties:
      net: {get_resource: net}
  web:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: member.yaml
        properties:
          name: web-%index%
          net: {get_resource: net}
  remote:
    type: OS::Heat::Stack
    properties:
      template: {get_file: remote.yaml}
      parameters: {greeting: hi}
  use:
    type: OS::Heat::Value
    properties:
      value:
        - {get_attr: [db, port_id]}
        - {get_attr: [web, name]}
        - {get_attr: [remote, outputs, said]}
outputs:
  db_port: {value: {get_attr: [db, port_id]}}
"""

DB = """\
heat_template_version: 2018-08-31
parameters:
  net: {type: string}
  size: {type: number}
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: {get_param: net}}
  vol:
    type: OS::Cinder::Volume
    properties: {size: {get_param: size}}
outputs:
  port_id: {value: {get_resource: port}}
"""

MEMBER = """\
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  net: {type: string}
resources:
  port:
    type: OS::Neutron::Port
    properties: {name: {get_param: name}, network: {get_param: net}}
outputs:
  name: {value: {get_attr: [port, name]}}
"""

REMOTE = """\
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string}
resources:
  v:
    type: OS::Heat::Value
    properties: {value: {get_param: greeting}}
outputs:
  said: {value: {get_attr: [v, value]}}
"""

ENV = """\
resource_registry:
  My::DB: db.yaml
parameter_defaults:
  size: 7
"""


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    for name, text in {
        "main.yaml": MAIN,
        "db.yaml": DB,
        "member.yaml": MEMBER,
        "remote.yaml": REMOTE,
        "env.yaml": ENV,
    }.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _load(files: Path, **params: str):  # type: ignore[no-untyped-def]
    loaded, diags = load_stack(
        str(files / "main.yaml"),
        [str(files / "env.yaml")],
        params,
        {},
        require_values=True,
        checks=type_checks(),
    )
    assert loaded is not None, diags
    assert not [d for d in diags if d.severity.value == "error"], diags
    return loaded


def test_nested_groups_and_stacks_expand_to_addresses(files: Path) -> None:
    d = build_desired(_load(files), "main", None)
    assert set(d.resources) == {"net", "db.port", "db.vol", "web[0].port", "web[1].port", "remote.v", "use"}
    plan = make_plan(d, None, PlanOptions())
    ch = {c.address: c for c in plan.changes}
    assert ch["db.vol"].after == {"size": 7}  # parameter_defaults reach the nested stack
    assert ch["web[1].port"].after["name"] == "web-1"
    assert ch["remote.v"].after == {"value": "hi"}
    assert set(ch["use"].depends_on) >= {"db.port", "web[0].port", "web[1].port", "remote.v"}
    assert ch["web[0].port"].depends_on == ("net",)


def test_apply_time_resolution_through_nested_scopes(files: Path) -> None:
    d = build_desired(_load(files), "main", "lin-1")
    live = {
        "net": {"physical_id": "NET"},
        "db.port": {"physical_id": "PORT-DB"},
        "web[0].port": {"physical_id": "P0", "attributes": {"name": "web-0"}},
        "web[1].port": {"physical_id": "P1", "attributes": {"name": "web-1"}},
        "remote.v": {"physical_id": "V", "attributes": {"value": "hi"}},
    }
    r = StateResolver(live)
    assert d.resolve_properties("db.port", r) == {"network": "NET"}
    assert d.resolve_properties("use", r) == {"value": ["PORT-DB", ["web-0", "web-1"], "hi"]}
    assert d.resolve_outputs(r) == {"db_port": "PORT-DB"}


def test_group_count_change_through_parameter(files: Path) -> None:
    d = build_desired(_load(files, count="3"), "main", None)
    assert "web[2].port" in d.resources


def test_saved_plan_is_self_contained_with_nested_templates_and_environment(
    files: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import shutil

    from hotc.planner.api import load_plan, loaded_stack_from_plan, plan_inputs, save_plan, template_digest

    loaded = _load(files)
    d = build_desired(loaded, "main", None)
    plan = make_plan(d, None, PlanOptions())
    from dataclasses import replace

    plan = replace(
        plan,
        template_digest=template_digest(loaded),
        inputs=plan_inputs(loaded, files / "main.yaml", [files / "env.yaml"], {}, {}),
    )
    out = tmp_path_factory.mktemp("elsewhere") / "p.json"
    save_plan(plan, out)
    shutil.rmtree(files)  # the plan must not need the original files any more
    again = loaded_stack_from_plan(load_plan(out), checks=type_checks())
    assert template_digest(again) == plan.template_digest
    d2 = build_desired(again, "main", None)
    assert set(d2.resources) == set(d.resources)
    assert [c.address for c in make_plan(d2, None, PlanOptions()).changes] == [
        c.address for c in plan.changes
    ]
