"""The example CI pipelines apply exactly the plan a pull request showed (examples/ci/hotc-ci.sh with HOTC_PR).

A local git repository plays the project: pull requests are branches, merging is ``git merge``. The script runs
each CI step in order, against a local state directory and against an S3 state (moto's server): the pull
request's plan is stored beside the state, holds the stack against another pull request, and is what the apply
after the merge runs, byte for byte, even when main's template moved since; the apply's comment shows the counts
and the outputs with secrets masked; a plan made stale by another change is refused with "plan again"."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "examples" / "ci" / "hotc-ci.sh"
SECRET = "hunter2-kept-apart"
STACK = "stack"

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  db_password:
    type: string
    hidden: true
  size:
    type: number
    default: 1
resources:
  conf:
    type: OS::Heat::Value
    properties:
      value:
        str_replace: {template: "size=$S", params: {$S: {get_param: size}}}
  dsn:
    type: OS::Heat::Value
    properties:
      value:
        str_replace: {template: "db://app:$P@db", params: {$P: {get_param: db_password}}}
outputs:
  conf:
    value: {get_attr: [conf, value]}
  dsn:
    value: {get_attr: [dsn, value]}
"""


def _with_resource(text: str, name: str) -> str:
    """``text`` with an OS::Heat::None resource added after the last one (before ``outputs:``)."""
    return text.replace("outputs:\n", f"  {name}:\n    type: OS::Heat::None\noutputs:\n")


class Project:
    """A git repository with the stack's template, and the CI steps run in it."""

    def __init__(self, root: Path, backend: str) -> None:
        self.root = root
        self.backend = backend
        self.env = {
            **os.environ,
            "HOTC": f"{sys.executable} -m hotc",
            "HOTC_PYTHON": sys.executable,
            "HOTC_TEMPLATE": "stack.yaml",
            "HOTC_ENV_FILES": "prod.env.yaml",
            "HOTC_BACKEND": backend,
            "HOTC_STATE_KEY": "ci reviewed plan test key",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.org",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.org",
        }
        self.git("init", "-q", "-b", "main")
        (root / ".gitignore").write_text("out*/\n")
        (root / "prod.env.yaml").write_text(f"parameters:\n  db_password: {SECRET}\n")
        self.commit("stack.yaml", TEMPLATE, "the stack")

    def git(self, *args: str) -> str:
        r = subprocess.run(["git", *args], cwd=self.root, env=self.env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def commit(self, path: str, text: str, message: str) -> None:
        (self.root / path).write_text(text)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def template(self) -> str:
        return (self.root / "stack.yaml").read_text()

    def ci(self, cmd: str, pr: int | None, out: str) -> subprocess.CompletedProcess[str]:
        env = {**self.env, "OUT": out}
        if pr is not None:
            env["HOTC_PR"] = str(pr)
        return subprocess.run(
            ["bash", str(SCRIPT), cmd], cwd=self.root, env=env, capture_output=True, text=True, timeout=300
        )

    def hotc(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hotc", *args], cwd=self.root, env=self.env, capture_output=True, text=True
        )

    def pending(self) -> list[int]:
        r = self.hotc("plan-store", "list", STACK, "--format", "json")
        assert r.returncode == 0, r.stderr
        return [p["pr"] for p in json.loads(r.stdout)["pending"]]

    def outputs(self) -> dict[str, Any]:
        r = self.hotc("output", STACK, "--format", "json")
        assert r.returncode == 0, r.stderr
        doc: dict[str, Any] = json.loads(r.stdout)
        return doc

    def resources(self) -> set[str]:
        r = self.hotc("state", "list", STACK, "--format", "json")
        assert r.returncode == 0, r.stderr
        return {x["address"] for x in json.loads(r.stdout)["resources"]}

    def serial(self) -> int:
        r = self.hotc("state", "list", STACK, "--format", "json")
        assert r.returncode == 0, r.stderr
        return int(json.loads(r.stdout)["serial"])


@pytest.fixture(params=["local", "s3"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Project:
    if request.param == "local":
        backend = str(tmp_path / "state")
    else:
        backend = request.getfixturevalue("s3_bucket").url
    root = tmp_path / "repo"
    root.mkdir()
    p = Project(root, backend)
    r = p.hotc("apply", "-t", "stack.yaml", "-e", "prod.env.yaml", "--auto-approve")
    assert r.returncode == 0, r.stderr  # the stack as main has it, before any pull request
    return p


def test_the_apply_after_the_merge_runs_the_reviewed_plan(project: Project) -> None:
    p = project
    # PR 1 adds a resource; its plan job stores the plan
    p.git("checkout", "-q", "-b", "pr1")
    p.commit("stack.yaml", _with_resource(p.template(), "cache"), "PR 1: a cache")
    r = p.ci("plan", 1, "out1")
    assert r.returncode == 2, r.stderr
    md = (p.root / "out1" / "plan.md").read_text()
    assert md.startswith(f"<!-- hotc-plan-comment stack={STACK} -->")
    assert "Stored as the reviewed plan of PR #1" in md and "Held" not in md
    reviewed = (p.root / "out1" / "plan.json").read_bytes()
    reviewed_serial = json.loads(reviewed)["plan"]["state_serial"]
    assert SECRET.encode() not in reviewed
    assert p.pending() == [1]
    # PR 2 plans while PR 1's plan is pending: it is planned, not stored, and its comment says who holds it
    p.git("checkout", "-q", "main")
    p.git("checkout", "-q", "-b", "pr2")
    p.commit("stack.yaml", _with_resource(p.template(), "queue"), "PR 2: a queue")
    r = p.ci("plan", 2, "out2")
    assert r.returncode == 4, r.stderr
    md2 = (p.root / "out2" / "plan.md").read_text()
    assert md2.startswith(f"<!-- hotc-plan-comment stack={STACK} -->")
    assert "**Held:**" in md2 and "PR #1" in md2 and "queue" in md2  # planned all the same
    assert "held by the pending plan of PR #1" in r.stderr
    assert p.pending() == [1]
    # PR 1 re-planning replaces its own pending plan (no hold against itself)
    p.git("checkout", "-q", "pr1")
    r = p.ci("plan", 1, "out1")
    assert r.returncode == 2, r.stderr
    assert "Held" not in (p.root / "out1" / "plan.md").read_text() and p.pending() == [1]
    reviewed = (p.root / "out1" / "plan.json").read_bytes()
    # main moves after the review (a default changed), then PR 1 is merged
    p.git("checkout", "-q", "main")
    p.commit("stack.yaml", p.template().replace("default: 1", "default: 5"), "main: size 5")
    p.git("merge", "-q", "--no-ff", "-m", "merge PR 1", "pr1")
    assert "cache:" in p.template() and "default: 5" in p.template()
    # the apply job: exactly PR 1's stored plan
    r = p.ci("apply", 1, "out-apply")
    assert r.returncode == 0, r.stderr
    applied = (p.root / "out-apply" / "plan.json").read_bytes()
    assert applied == reviewed
    show = json.loads((p.root / "out-apply" / "plan.show.json").read_text())
    assert show["prior_state"]["serial"] == reviewed_serial
    assert "cache" in p.resources() and "queue" not in p.resources()
    outs = p.outputs()
    assert outs["conf"]["value"] == "size=1"  # main's later default did not slip in
    assert outs["dsn"]["sensitive"] is True and outs["dsn"]["value"] is None
    md = (p.root / "out-apply" / "apply.md").read_text()
    assert md.startswith(f"<!-- hotc-apply-comment stack={STACK} -->\n")
    assert "sha256:" + hashlib.sha256(reviewed).hexdigest() in md
    assert f"made at state serial {reviewed_serial}" in md
    assert "1 create" in md and "applied (PR #1)" in md and "**Took:**" in md
    assert "`conf` | `size=1`" in md and "`dsn` | (sensitive)" in md
    assert SECRET not in md and "**Exit:** 0" in md
    assert p.pending() == []  # applied: released
    # PR 2 plans again (on top of main): no longer held, and its plan is stored
    main_template = p.template()
    p.git("checkout", "-q", "pr2")
    p.commit("stack.yaml", _with_resource(main_template, "queue"), "PR 2 on top of main")
    r = p.ci("plan", 2, "out2")
    assert r.returncode == 2, r.stderr
    md2 = (p.root / "out2" / "plan.md").read_text()
    assert "Held" not in md2 and "Stored as the reviewed plan of PR #2" in md2
    assert p.pending() == [2]
    # PR 2 closed unmerged: drop releases the stack
    r = p.ci("drop", 2, "out2")
    assert r.returncode == 0, r.stderr
    assert p.pending() == []


def test_a_plan_made_stale_is_refused_with_plan_again(project: Project) -> None:
    p = project
    p.git("checkout", "-q", "-b", "pr1")
    p.commit("stack.yaml", _with_resource(p.template(), "cache"), "PR 1: a cache")
    r = p.ci("plan", 1, "out1")
    assert r.returncode == 2, r.stderr
    # the stack changes after the review (an apply from elsewhere)
    p.git("checkout", "-q", "main")
    before = p.serial()
    (p.root / "stack.yaml").write_text(_with_resource(TEMPLATE, "hotfix"))  # a hot fix, never committed
    r = p.hotc("apply", "-t", "stack.yaml", "-e", "prod.env.yaml", "--auto-approve")
    assert r.returncode == 0, r.stderr
    p.git("checkout", "--", "stack.yaml")
    assert p.serial() > before
    p.git("merge", "-q", "--no-ff", "-m", "merge PR 1", "pr1")
    r = p.ci("apply", 1, "out-apply")
    assert r.returncode == 1
    assert "stale" in r.stderr and "Plan again" in r.stderr and "HOTC_PR=1" in r.stderr
    assert "cache" not in p.resources()  # nothing applied
    md = (p.root / "out-apply" / "apply.md").read_text()
    assert md.startswith(f"<!-- hotc-apply-comment stack={STACK} -->\n")
    assert "Not applied: the reviewed plan is stale" in md
    assert p.pending() == [1]  # still held until PR 1 is planned again and applied
    # planned again on main for PR 1, then applied
    r = p.ci("plan", 1, "out1")
    assert r.returncode == 2, r.stderr
    r = p.ci("apply", 1, "out-apply")
    assert r.returncode == 0, r.stderr
    assert "cache" in p.resources() and p.pending() == []


def test_an_apply_without_a_stored_plan_applies_nothing_unreviewed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    p = Project(root, str(tmp_path / "state"))
    assert p.hotc("apply", "-t", "stack.yaml", "-e", "prod.env.yaml", "--auto-approve").returncode == 0
    # a pull request with nothing to apply stores no plan, and its merge applies nothing
    r = p.ci("plan", 7, "out7")
    assert r.returncode == 0, r.stderr
    assert p.pending() == []
    r = p.ci("apply", 7, "out-apply")
    assert r.returncode == 0 and "nothing to apply" in r.stderr, r.stderr
    # a change that no pull request's plan showed is not applied
    p.commit("stack.yaml", _with_resource(p.template(), "unreviewed"), "pushed to main")
    r = p.ci("apply", 8, "out-apply")
    assert r.returncode == 1 and "PR #8 stored no reviewed plan" in r.stderr, r.stderr
    assert "unreviewed" not in p.resources()


def test_plan_store_commands(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    p = Project(root, str(tmp_path / "state"))
    r = p.hotc("plan", "-t", "stack.yaml", "-e", "prod.env.yaml", "-o", "out.plan")
    assert r.returncode == 0, r.stderr
    r = p.hotc("plan-store", "put", "other", "out.plan", "--pr", "3")
    assert r.returncode == 1 and "the plan is for stack 'stack', not 'other'" in r.stderr
    r = p.hotc("plan-store", "put", STACK, "out.plan", "--pr", "0")
    assert r.returncode == 1 and "--pr 0" in r.stderr
    r = p.hotc("plan-store", "get", STACK, "got.plan", "--pr", "3")
    assert r.returncode == 1 and "no reviewed plan of PR #3" in r.stderr and not (root / "got.plan").exists()
    assert p.hotc("plan-store", "put", STACK, "out.plan", "--pr", "3").returncode == 0
    assert (tmp_path / "state" / "stack.plans" / "pr-3.json").read_bytes() == (root / "out.plan").read_bytes()
    assert p.hotc("plan-store", "list", STACK, "-q").stdout == "3\n"
    assert p.hotc("plan-store", "get", STACK, "got.plan", "--pr", "3").returncode == 0
    assert (root / "got.plan").read_bytes() == (root / "out.plan").read_bytes()
    assert p.hotc("plan-store", "drop", STACK, "--pr", "3").returncode == 0
    assert p.hotc("plan-store", "list", STACK, "-q").stdout == ""
    assert not (tmp_path / "state" / "stack.plans").exists()


def test_the_workflows_pass_the_pull_request_and_post_the_apply_comment() -> None:
    ci = REPO / "examples" / "ci"
    gh = yaml.safe_load((ci / "github-actions.yml").read_text())
    jobs = gh["jobs"]
    assert "HOTC_PR" in jobs["plan"]["env"] and "pull_request.number" in jobs["plan"]["env"]["HOTC_PR"]
    apply_steps = jobs["apply"]["steps"]
    run = next(s for s in apply_steps if "hotc-ci.sh apply" in s.get("run", ""))
    assert "steps.pr.outputs.result" in run["env"]["HOTC_PR"]  # the merge commit's pull request
    finder = next(s for s in apply_steps if s.get("id") == "pr")
    assert "listPullRequestsAssociatedWithCommit" in finder["with"]["script"]
    assert not any("download-artifact" in s.get("uses", "") for s in apply_steps)  # no plan made on main
    assert any("apply.md" in s.get("with", {}).get("script", "") for s in apply_steps)
    assert any("hotc-ci.sh drop" in s.get("run", "") for s in jobs["drop"]["steps"])
    gl = yaml.safe_load((ci / "gitlab-ci.yml").read_text())
    assert gl["hotc-plan"]["variables"]["HOTC_PR"] == "$CI_MERGE_REQUEST_IID"
    script = "\n".join(gl["hotc-apply"]["script"])
    assert "export HOTC_PR=" in script and "/merge_requests" in script and "apply.md" in script
    assert "hotc-ci.sh drop" in gl["hotc-drop"]["script"][0]


def test_a_failed_apply_comments_the_failure_and_keeps_the_hold(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    p = Project(root, str(tmp_path / "state"))
    assert p.hotc("apply", "-t", "stack.yaml", "-e", "prod.env.yaml", "--auto-approve").returncode == 0
    p.git("checkout", "-q", "-b", "pr5")
    broken = p.template().replace(
        "outputs:\n", "  flaky:\n    type: OS::Heat::TestResource\n    properties: {fail: true}\noutputs:\n"
    )
    p.commit("stack.yaml", broken, "PR 5: a resource that fails")
    assert p.ci("plan", 5, "out5").returncode == 2
    p.git("checkout", "-q", "main")
    p.git("merge", "-q", "--no-ff", "-m", "merge PR 5", "pr5")
    r = p.ci("apply", 5, "out-apply")
    assert r.returncode != 0
    assert "the plan of PR #5 stays stored" in r.stderr, r.stderr
    md = (p.root / "out-apply" / "apply.md").read_text()
    assert md.startswith(f"<!-- hotc-apply-comment stack={STACK} -->\n")
    assert "apply FAILED (PR #5)" in md and "#### Failures" in md and "| `flaky` |" in md
    assert SECRET not in md
    assert p.pending() == [5]
