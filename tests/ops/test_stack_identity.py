"""A stack's identity is explicit: two templates with the same file name are not taken for one stack, a
STACK argument that is a file is refused, and a project file's pinned stacks work from anywhere in the
project (their state beside hotc.toml)."""

from __future__ import annotations

from pathlib import Path

from tests.clirun import run_hotc as hotc

T = """
heat_template_version: 2018-08-31
resources:
  {name}: {{type: OS::Heat::TestResource, properties: {{value: {name}}}}}
"""


def _two_templates(tmp_path: Path) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "template.yaml").write_text(T.format(name=f"r_{d}"))


def test_a_second_file_with_the_same_name_is_refused(tmp_path: Path) -> None:
    _two_templates(tmp_path)
    r = hotc(tmp_path, "apply", "-t", "a/template.yaml", "--auto-approve")
    assert r.returncode == 0, r.stderr
    for command in (("plan",), ("apply", "--auto-approve")):
        r = hotc(tmp_path, command[0], "-t", "b/template.yaml", *command[1:])
        assert r.returncode == 1, (command, r.stdout)
        assert "a/template.yaml" in r.stderr and "b/template.yaml" in r.stderr and "NAME" in r.stderr
    r = hotc(tmp_path, "state", "list", "template")
    assert r.stdout.split() == ["r_a"]  # nothing was deleted
    # named explicitly: a warning, and the plan goes on
    r = hotc(tmp_path, "plan", "-t", "b/template.yaml", "template")
    assert r.returncode == 0 and "warning:" in r.stderr and "a/template.yaml" in r.stderr
    # the same file, from another directory, is the same stack
    r = hotc(tmp_path / "a", "plan", "-t", "template.yaml", "--backend", str(tmp_path / ".hotc"))
    assert r.returncode == 0 and "No changes" in r.stdout, r.stderr


def test_a_stack_argument_that_is_a_file_is_refused(tmp_path: Path) -> None:
    _two_templates(tmp_path)
    assert hotc(tmp_path, "plan", "-t", "a/template.yaml", "a", "-o", "p3.json").returncode == 0
    r = hotc(tmp_path, "apply", "p3.json", "-t", "a/template.yaml", "--auto-approve")
    assert r.returncode == 1 and "is a file, not a stack name" in r.stderr
    assert not (tmp_path / ".hotc" / "p3.json.json").exists()
    r = hotc(tmp_path, "plan", "-t", "a/template.yaml", "p3.json")
    assert r.returncode == 1 and "is a file" in r.stderr


def test_pinned_stacks_work_from_anywhere_in_the_project(tmp_path: Path) -> None:
    _two_templates(tmp_path)
    (tmp_path / "hotc.toml").write_text(
        '[stacks.alpha]\ntemplate = "a/template.yaml"\n\n[stacks.beta]\ntemplate = "b/template.yaml"\n'
    )
    sub = tmp_path / "b"
    r = hotc(sub, "apply", "alpha", "--auto-approve")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / ".hotc" / "alpha.json").exists()  # beside hotc.toml, not in b/
    r = hotc(sub, "output", "alpha")
    assert r.returncode == 0, r.stderr
    # plan with no argument: every stack of the project, the worst exit code
    r = hotc(tmp_path, "plan", "--detailed-exitcode")
    assert r.returncode == 2, r.stderr
    assert "==> alpha" in r.stderr and "==> beta" in r.stderr
    assert "No changes" in r.stdout and "1 to create" in r.stdout
    # the state records the template relative to the project root
    doc = (tmp_path / ".hotc" / "alpha.json").read_text()
    assert '"path":"a/template.yaml"' in doc
