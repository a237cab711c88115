"""Start-up imports only what the command uses (start-up speed): ``hotc validate`` of a template of native types loads
no driver, no OpenStack module, no thread pool and no grammar file reader; ``hotc check`` of a stack loads neither
the parser (nor YAML, nor lark) nor the planner's plan-making modules; the native drivers' table still gives every
driver, each made on first look-up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

VALIDATE = """
import sys
from hotc.cli.app import main
try:
    main(["validate", "-t", sys.argv[1]])
except SystemExit as exc:
    print("exit", exc.code)
print(",".join(sorted(sys.modules)))
"""

TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  r:
    type: OS::Heat::RandomString
  w:
    type: OS::Heat::WaitConditionHandle
  d:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: abc
"""

# what a validate of native types needs none of (each was imported at start-up before)
NOT_NEEDED = (
    "hotc.providers.native.",  # the drivers themselves: validate asks only whether a type has one
    "hotc.providers.openstack",  # the OpenStack constraints and the cloud's authentication (plan/apply)
    "hotc.planner",
    "hotc.state",
    "hotc.apply",
    "concurrent.futures",  # the deployment group driver's thread pool
    "secrets",  # RandomString's generator
    "importlib.resources",  # the grammar's files are read through pkgutil (tomllib parses one of them)
    "tempfile",
    "hashlib",  # digest's, when a template digests
    "lark",
)


def test_validate_of_native_types_imports_no_driver_and_no_cloud(tmp_path: Path) -> None:
    template = tmp_path / "native.yaml"
    template.write_text(TEMPLATE)
    r = subprocess.run(
        [sys.executable, "-c", VALIDATE, str(template)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "OK" in lines and "exit 0" in lines, r.stdout
    modules = lines[-1].split(",")
    assert "hotc.providers.checks" in modules and "hotc.parser.loader" in modules  # it did validate
    loaded = [
        m for m in modules if m.startswith(tuple(p if p.endswith(".") else p + "." for p in NOT_NEEDED))
    ]
    loaded += [m for m in modules if m in NOT_NEEDED]
    assert loaded == [], loaded


CHECK = """
import sys
from hotc.cli.app import main
try:
    main(["check", "st"])
except SystemExit as exc:
    print("exit", exc.code)
print(",".join(sorted(sys.modules)))
"""


def test_check_of_a_stack_imports_no_parser_and_no_plan_making(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  r:\n    type: OS::Heat::RandomString\n"
        "  v:\n    type: OS::Heat::Value\n    properties:\n      value: {get_attr: [r, value]}\n"
    )
    applied = subprocess.run(
        [sys.executable, "-m", "hotc", "apply", "-t", "t.yaml", "st", "--auto-approve"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert applied.returncode == 0, applied.stderr
    r = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "exit 0" in lines and any("r: CHECK_COMPLETE" in line for line in lines), r.stdout
    modules = lines[-1].split(",")
    assert "hotc.apply.lifecycle" in modules and "hotc.state" in modules  # it did check, reading the state
    heavy = (
        "hotc.parser",
        "yaml",
        "lark",
        # hotc.planner.api imports each name when it is first used: the plan making is expand and make
        "hotc.planner.expand",
        "hotc.planner.make",
        "hotc.providers.registry",
    )
    loaded = [m for m in modules if m in heavy or m.startswith(tuple(h + "." for h in heavy))]
    assert loaded == [], loaded


def test_the_native_table_gives_every_driver_once_made() -> None:
    from hotc.providers import native
    from hotc.providers.drivers import driver_for, support_problem

    names = list(native.DRIVERS)
    assert len(names) == len(native.DRIVERS) == 24
    assert "OS::Heat::RandomString" in native.DRIVERS and "OS::Nova::Server" not in native.DRIVERS
    assert native.DRIVERS.get("OS::Nova::Server") is None
    for name in names:
        d = native.DRIVERS[name]
        assert all(callable(getattr(d, m, None)) for m in ("create", "read", "update", "delete")), name
        assert native.DRIVERS[name] is d and driver_for(name) is d  # made once, then kept
        assert support_problem(name) is None
    # types that share a driver class still get a driver each, as the table always gave
    assert type(native.DRIVERS["OS::Heat::SoftwareDeployments"]).__name__ == "SoftwareDeploymentGroupDriver"
    assert (
        native.DRIVERS["OS::Heat::SoftwareDeployments"]
        is not native.DRIVERS["OS::Heat::SoftwareDeploymentGroup"]
    )
    assert (
        type(native.DRIVERS["OS::Heat::UpdateWaitConditionHandle"]).__name__ == "AwsWaitConditionHandleDriver"
    )
