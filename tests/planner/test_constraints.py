"""Custom constraints at plan time: parameters and properties checked against a (fake) cloud,
pure ones without a cloud, positions, one report per problem, hidden values never shown, and the CLI's
behaviour with and without a configured cloud."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.app import main
from hotc.parser.api import load_stack
from hotc.planner.api import (
    PlanOptions,
    build_desired,
    check_constraints,
    cloud_constraints_needed,
    make_plan,
)
from hotc.providers.checks import type_checks
from hotc.providers.openstack import constraints as RULES
from hotc.state.document import ResourceState, StackState

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  image:
    type: string
    default: cirros
    constraints:
      - custom_constraint: glance.image
  token:
    type: string
    hidden: true
    default: sekrit-image
    constraints:
      - custom_constraint: glance.image
  cidr:
    type: string
    default: 10.0.0.0/24
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: {get_param: cidr}
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: m1.huge
      networks: [{network: {get_resource: net}}]
  other:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.tiny
      networks: [{network: private}]
"""


class NotFoundException(Exception):  # noqa: N818 -- openstacksdk's name, which the provider recognises
    status_code = 404


@dataclass(frozen=True)
class Obj:
    id: str
    name: str


class _Service:
    def __init__(self, calls: Counter[str], kind: str, objs: list[Obj]) -> None:
        self.calls, self.kind, self.objs = calls, kind, objs

    def get(self, value: str) -> Obj:
        self.calls[f"get {self.kind} {value}"] += 1
        for o in self.objs:
            if o.id == value:
                return o
        raise NotFoundException(f"No {self.kind} found for {value}")

    def by_name(self, name: str | None = None, **_: Any) -> Any:
        self.calls[f"list {self.kind} {name}"] += 1
        return iter([o for o in self.objs if name is None or o.name == name])


class FakeConn:
    """Just the look-ups the constraint checks make: images, flavors, networks, subnets."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        images = _Service(self.calls, "image", [Obj("img-1", "cirros")])
        flavors = _Service(self.calls, "flavor", [Obj("fl-1", "m1.tiny")])
        nets = _Service(self.calls, "network", [Obj("net-1", "private")])
        subnets = _Service(self.calls, "subnet", [])
        self.image = type(
            "I", (), {"get_image": staticmethod(images.get), "images": staticmethod(images.by_name)}
        )()
        self.compute = type(
            "C", (), {"get_flavor": staticmethod(flavors.get), "flavors": staticmethod(flavors.by_name)}
        )()
        self.network = type(
            "N",
            (),
            {
                "get_network": staticmethod(nets.get),
                "networks": staticmethod(nets.by_name),
                "get_subnet": staticmethod(subnets.get),
                "subnets": staticmethod(subnets.by_name),
            },
        )()


def _plan(
    tmp_path: Path,
    text: str = TEMPLATE,
    params: dict[str, str] | None = None,
    state: StackState | None = None,
) -> tuple[Any, Any]:
    path = tmp_path / "stack.yaml"
    path.write_text(text)
    loaded, diags = load_stack(str(path), [], params or {}, {}, require_values=True, checks=type_checks())
    assert loaded is not None, diags
    desired = build_desired(loaded, "stack", state.lineage if state else None, state=state)
    return desired, make_plan(desired, state, PlanOptions())


def _lines(report: Any) -> list[str]:
    return [f"{d.pos.line}:{d.pos.col}: {d.message}" if d.pos else d.message for d in report.diagnostics]


def test_cloud_constraints_checked_with_positions(tmp_path: Path) -> None:
    desired, plan = _plan(tmp_path, params={"image": "no-such-image"})
    conn = FakeConn()
    report = check_constraints(desired, plan, conn, rules=RULES)
    lines = _lines(report)
    # the parameter fails where its constraint is written; the server property it feeds is not reported again
    assert (
        "7:9: parameter 'image' is invalid: image 'no-such-image' not found (neither an id nor the name of one)"
        in lines
    )
    # a literal property value fails where the template writes it, with the resource's address
    assert any(
        line.startswith("29:15: server: property flavor: flavor 'm1.huge' not found") for line in lines
    ), lines
    assert not any("server: property image" in line for line in lines), lines
    # a hidden parameter's value never appears
    hidden = [line for line in lines if "token" in line]
    assert hidden and all("sekrit" not in line for line in hidden), hidden
    assert "value (hidden)" in hidden[0]
    # names and ids that exist pass: 'other' (cirros, m1.tiny, private) gives nothing
    assert not any("other" in line for line in lines), lines
    assert len(lines) == 3, lines
    assert all(d.pos is not None and d.pos.file.endswith("stack.yaml") for d in report.diagnostics)
    assert report.checked_cloud and report.unchecked == ()


def test_each_lookup_is_made_once(tmp_path: Path) -> None:
    desired, plan = _plan(tmp_path)
    conn = FakeConn()
    check_constraints(desired, plan, conn, rules=RULES)
    # 'cirros' is the image parameter, the server's image and other's image: looked up once
    assert conn.calls["get image cirros"] == 1
    assert conn.calls["list image cirros"] == 1
    assert all(n == 1 for n in conn.calls.values()), conn.calls


def test_without_a_cloud_only_pure_constraints_are_checked(tmp_path: Path) -> None:
    desired, plan = _plan(tmp_path, params={"image": "no-such-image", "cidr": "10.0.0.300/24"})
    report = check_constraints(desired, plan, None, rules=RULES)
    lines = _lines(report)
    assert len(lines) == 1, lines
    assert lines[0].startswith("24:13: subnet: property cidr: '10.0.0.300/24' is not a valid CIDR"), lines
    assert report.unchecked == ("glance.image", "neutron.network", "nova.flavor")
    assert cloud_constraints_needed(desired, plan, rules=RULES) == report.unchecked


def test_resources_left_alone_are_not_checked(tmp_path: Path) -> None:
    """A no-op plan looks nothing up (apply does not touch those resources); an in-place update checks only
    the properties that change."""
    text = (
        TEMPLATE.split("resources:")[0]
        + """resources:
  other:
    type: OS::Nova::Server
    properties:
      image: gone-image
      flavor: m1.tiny
      name: {get_param: cidr}
"""
    )
    st = StackState.new("stack").with_resource(
        ResourceState(
            "other",
            "OS::Nova::Server",
            "srv-1",
            "CREATE_COMPLETE",
            {"image": "gone-image", "flavor": "m1.tiny", "name": "10.0.0.0/24"},
        )
    )
    desired, plan = _plan(tmp_path, text, state=st, params={"image": "cirros", "token": "cirros"})
    conn = FakeConn()
    report = check_constraints(desired, plan, conn, rules=RULES)
    assert report.diagnostics == ()
    assert not any("gone-image" in k or "m1.tiny" in k for k in conn.calls), conn.calls
    # an update of the name only: still nothing about the image
    desired, plan = _plan(
        tmp_path, text, state=st, params={"image": "cirros", "token": "cirros", "cidr": "10.1.0.0/24"}
    )
    assert [c.action.value for c in plan.changes] == ["update"]
    conn = FakeConn()
    assert check_constraints(desired, plan, conn, rules=RULES).diagnostics == ()
    assert not any("gone-image" in k for k in conn.calls), conn.calls


NESTED_CHILD = """\
heat_template_version: 2018-08-31
parameters:
  image:
    type: string
    constraints:
      - custom_constraint: glance.image
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: m1.tiny
      networks: [{network: private}]
"""

NESTED_PARENT = """\
heat_template_version: 2018-08-31
parameters:
  image: {type: string, default: cirros}
resources:
  app1:
    type: child.yaml
    properties: {image: {get_param: image}}
  app2:
    type: child.yaml
    properties: {image: {get_param: image}}
"""


def test_nested_template_parameters_are_checked_once(tmp_path: Path) -> None:
    (tmp_path / "child.yaml").write_text(NESTED_CHILD)
    desired, plan = _plan(tmp_path, NESTED_PARENT, params={"image": "bogus"})
    report = check_constraints(desired, plan, FakeConn(), rules=RULES)
    lines = _lines(report)
    # both instances get the same bad value: one report, at the nested template's constraint, naming the first
    assert lines == [
        "6:9: app1: parameter 'image' is invalid: image 'bogus' not found (neither an id nor the name of one)"
    ], lines
    assert report.diagnostics[0].pos is not None and report.diagnostics[0].pos.file.endswith("child.yaml")
    desired, plan = _plan(tmp_path, NESTED_PARENT)
    assert check_constraints(desired, plan, FakeConn(), rules=RULES).diagnostics == ()
    assert check_constraints(desired, plan, None, rules=RULES).unchecked == (
        "glance.image",
        "neutron.network",
        "nova.flavor",
    )


# ------------------------------------------------------------------------------------------------ the CLI


NATIVE = """\
heat_template_version: 2018-08-31
resources:
  v:
    type: OS::Heat::Value
    properties: {value: 1}
"""


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for var in ("HOTC_BACKEND", "OS_CLOUD", "OS_AUTH_URL", "OS_AUTH_TYPE"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "stack.yaml").write_text(TEMPLATE)
    (tmp_path / "native.yaml").write_text(NATIVE)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_without_a_cloud_says_once_what_was_not_checked(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "plan", "-t", "stack.yaml", "--parameter", "image=whatever")
    assert code == 0, err
    assert err.count("note:") == 1, err
    assert "glance.image, neutron.network, nova.flavor were not checked" in err
    assert "Plan:" in out or "create" in out
    code, out, err = run(capsys, "plan", "-t", "native.yaml")
    assert code == 0, err
    assert "note" not in err  # nothing cloud-backed: nothing to say


def test_cli_pure_constraint_fails_without_a_cloud(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "plan", "-t", "stack.yaml", "--parameter", "cidr=10.0.0.0")
    assert code == 1
    assert out == ""
    assert "stack.yaml:24:13: error: subnet: property cidr: '10.0.0.0' is not a valid CIDR" in err
    assert str(work) not in err  # the path as given


def test_cli_with_a_configured_cloud(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = FakeConn()
    seen: list[Any] = []

    def connect(cloud: str | None = None, **_: Any) -> FakeConn:
        seen.append(cloud)
        return conn

    monkeypatch.setattr("hotc.providers.openstack.auth.connect", connect)
    code, out, err = run(
        capsys, "plan", "-t", "stack.yaml", "--os-cloud", "mycloud", "--parameter", "image=nope"
    )
    assert code == 1
    assert seen == ["mycloud"]
    assert out == ""
    assert "stack.yaml:7:9: error: parameter 'image' is invalid: image 'nope' not found" in err
    assert "stack.yaml:29:15: error: server: property flavor: flavor 'm1.huge' not found" in err
    assert "note" not in err
    # OS_CLOUD configures it too; a template whose values all exist plans
    monkeypatch.setenv("OS_CLOUD", "envcloud")
    good = TEMPLATE.replace("flavor: m1.huge", "flavor: m1.tiny").replace(
        "default: sekrit-image", "default: cirros"
    )
    (work / "good.yaml").write_text(good)
    code, out, err = run(capsys, "plan", "-t", "good.yaml")
    assert code == 0, err
    assert seen[-1] is None and "note" not in err
    # no look-up at all for a native template, not even a connection
    n = len(seen)
    assert run(capsys, "plan", "-t", "native.yaml")[0] == 0
    assert len(seen) == n


def test_cli_unreachable_cloud_is_a_note_not_a_verdict(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hotc.errors import HotcError

    def connect(cloud: str | None = None, **_: Any) -> Any:
        raise HotcError("cannot authenticate to mycloud: bad password")

    monkeypatch.setattr("hotc.providers.openstack.auth.connect", connect)
    code, out, err = run(capsys, "plan", "-t", "stack.yaml", "--os-cloud", "mycloud")
    assert code == 0, err
    assert "were not checked against the cloud: cannot authenticate to mycloud: bad password" in err


# ------------------------------------------------------------------------------------- error output (task)


BAD = """\
heat_template_version: 2018-08-31
parameters:
  size: {type: number, default: 0, constraints: [{range: {min: 1}, description: at least one}]}
resources:
  v: {type: OS::Heat::Value, properties: {value: {get_param: size}}}
"""


def _diag_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if ": error: " in line or ": warning: " in line]


@pytest.mark.parametrize("given", [None, "0"])
def test_plan_prints_template_errors_like_validate(
    work: Path, capsys: pytest.CaptureFixture[str], given: str | None
) -> None:
    (work / "bad.yaml").write_text(BAD)
    extra = ["--parameter", f"size={given}"] if given is not None else []
    vcode, vout, verr = run(capsys, "validate", "-t", "bad.yaml", *extra)
    pcode, pout, perr = run(capsys, "plan", "-t", "bad.yaml", *extra)
    assert vcode == 1 and pcode == 1
    expected = _diag_lines(vout)
    assert expected and all(line.startswith("bad.yaml:") for line in expected)
    # a given value is checked by validate as Heat's template validate does not check values: a warning
    # there ("creating the stack would fail"), the same problem as an error in plan
    assert _diag_lines(perr) == [
        line.replace(": warning: ", ": error: ").removesuffix("; creating the stack would fail")
        for line in expected
    ]
    if given is None:
        assert expected == [
            "bad.yaml:3:33: error: Parameter 'size' is invalid: Invalid default 0 (at least one)"
        ]
    else:  # a bad value given and a bad default: two problems, each once
        assert len(expected) == 2
    assert str(work) not in perr


def test_plan_errors_from_planning_use_the_path_as_given(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error found while planning (here: evaluating a property) is shown with the path as given too."""
    (work / "sub").mkdir()
    (work / "sub" / "ev.yaml").write_text("""\
heat_template_version: 2018-08-31
resources:
  b: {type: OS::Heat::Value, properties: {value: {str_split: [",", 3]}}}
""")
    code, out, err = run(capsys, "plan", "-t", "sub/ev.yaml")
    assert code == 1
    assert out == ""
    assert err.startswith('sub/ev.yaml:3:50: error: Incorrect arguments to "str_split"'), err
    assert str(work) not in err, err


@pytest.mark.parametrize(
    ("env", "flag", "want"),
    [
        ({}, None, False),
        ({"OS_CLOUD": "c"}, None, True),
        ({"OS_AUTH_URL": "http://k:5000/v3"}, None, True),
        ({}, "named", True),
        ({"OS_CLIENT_CONFIG_FILE": "/x/clouds.yaml"}, None, False),
    ],
)
def test_cloud_configured(env: dict[str, str], flag: str | None, want: bool) -> None:
    from hotc.planner.api import cloud_configured

    assert cloud_configured(flag, env) is want


def test_the_look_ups_are_made_in_parallel_and_once(tmp_path: Path) -> None:
    """The checks' cloud look-ups go out at once (in the time of the slowest, not of all in a row): the first
    image and the first flavor look-up each wait until the other one is in flight too, which a one-after-another
    check would never reach (the barrier would time out and the check would fail); each is still made once."""
    import threading

    desired, plan = _plan(tmp_path)
    conn = FakeConn()
    barrier = threading.Barrier(2, timeout=30)
    met: list[str] = []

    def meeting(fn: Any, what: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if what not in met:
                met.append(what)
                barrier.wait()
            return fn(*args, **kwargs)

        return staticmethod(call)

    type(conn.image).get_image = meeting(type(conn.image).get_image, "image")
    type(conn.compute).get_flavor = meeting(type(conn.compute).get_flavor, "flavor")
    report = check_constraints(desired, plan, conn, rules=RULES)
    assert sorted(met) == ["flavor", "image"]
    assert any("m1.huge" in line for line in _lines(report))
    assert all(n == 1 for n in conn.calls.values()), conn.calls
