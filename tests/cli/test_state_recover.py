"""A corrupt current state has a way out, on the local backend and on S3: `state restore --backup` /
`--version N`, `state pull --version N`, `state push FILE --force` over it, and `stack list` lists the other
stacks and marks the broken one."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from hotc.state import backend_from_config, codec
from hotc.state.document import OutputState, StackState
from tests.clirun import run_hotc

BROKEN = b'{"format_version": 1, "lin'


@dataclass
class Where:
    cwd: Path
    url: str | None
    bucket: Any = None

    def args(self) -> tuple[str, ...]:
        return ("--backend", self.url) if self.url else ()

    def corrupt(self, stack: str) -> None:
        if self.bucket is None:
            (self.cwd / ".hotc" / f"{stack}.json").write_bytes(BROKEN)
        else:
            self.bucket.client().put_object(
                Bucket=self.bucket.name, Key=self.bucket.key(stack, "state.json"), Body=BROKEN
            )

    def hotc(self, *args: str) -> Any:
        res = run_hotc(self.cwd, *args, *self.args())
        assert "Traceback" not in res.stderr
        return res


@pytest.fixture(params=["local", "s3"])
def where(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Where:
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    monkeypatch.delenv("HOTC_STATE_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    if request.param == "local":
        return Where(tmp_path, None)
    bucket = request.getfixturevalue("s3_bucket")
    return Where(tmp_path, bucket.url, bucket)


def seed(where: Where, stack: str, values: tuple[int, ...]) -> StackState:
    b = backend_from_config(where.url)
    st = StackState.new(stack)
    with b.lock(stack, "apply") as lk:
        for v in values:
            st = b.write(stack, replace(st, outputs={"n": OutputState(value=v)}), lk)
    return st


def current_n(where: Where, stack: str) -> tuple[int, int]:
    st, _ = backend_from_config(where.url).read(stack)
    assert st is not None
    return st.outputs["n"].value, st.serial


def test_restore_backup_over_a_corrupt_state(where: Where) -> None:
    seed(where, "web", (1, 2, 3))
    where.corrupt("web")
    assert where.hotc("state", "list", "web").returncode == 1
    res = where.hotc("state", "restore", "web", "--backup")
    assert res.returncode == 0, res.stderr
    # local: the corrupt bytes were written over serial 3 in place, so the .backup holds serial 2; S3: the
    # corrupt object is a version of its own and the one it replaced is serial 3. A serial above every stored one.
    assert current_n(where, "web") == ((2, 3) if where.bucket is None else (3, 4))
    assert where.hotc("state", "list", "web").returncode == 0


def test_restore_and_pull_a_version_by_serial(where: Where) -> None:
    seed(where, "web", (1, 2, 3))
    where.corrupt("web")
    hist = json.loads(where.hotc("state", "history", "web", "--format", "json").stdout)
    serials = [v["serial"] for v in hist["versions"]]
    wanted = 2  # local: the .backup; the bucket keeps every version
    assert wanted in serials
    pulled = where.hotc("state", "pull", "web", "--version", str(wanted))
    assert pulled.returncode == 0, pulled.stderr
    assert codec.loads(pulled.stdout).outputs["n"].value == wanted
    res = where.hotc("state", "restore", "web", "--version", str(wanted))
    assert res.returncode == 0, res.stderr
    assert current_n(where, "web")[0] == wanted


def test_restore_names_the_versions_when_the_one_asked_for_is_missing(where: Where) -> None:
    seed(where, "web", (1, 2))
    res = where.hotc("state", "restore", "web", "--version", "99")
    assert res.returncode == 1 and "no stored version '99'" in res.stderr and "serial" in res.stderr
    res = where.hotc("state", "restore", "web")
    assert res.returncode == 1 and "--backup or --version" in res.stderr


def test_push_force_replaces_a_corrupt_state_without_reading_it(where: Where) -> None:
    good = seed(where, "web", (1, 2, 5))
    pulled = where.hotc("state", "pull", "web").stdout
    (where.cwd / "good.json").write_text(pulled)
    where.corrupt("web")
    res = where.hotc("state", "push", "web", "good.json")
    assert res.returncode == 1 and "--force" in res.stderr and "state restore" in res.stderr
    res = where.hotc("state", "push", "web", "good.json", "--force")
    assert res.returncode == 0, res.stderr
    assert current_n(where, "web")[0] == 5
    assert backend_from_config(where.url).read("web")[0].lineage == good.lineage  # type: ignore[union-attr]


def test_stack_list_marks_the_broken_stack_and_lists_the_rest(where: Where) -> None:
    seed(where, "db", (1,))
    seed(where, "web", (1, 2))
    where.corrupt("web")
    res = where.hotc("stack", "list")
    assert res.returncode == 0, res.stderr
    rows = {ln.split()[0]: ln.split()[1] for ln in res.stdout.splitlines()[1:]}
    assert rows == {"db": "INIT_COMPLETE", "web": "BROKEN"}
    assert "state restore web --backup" in res.stderr
    res = where.hotc("stack", "list", "--format", "json")
    stacks = {s["stack_name"]: s for s in json.loads(res.stdout)["stacks"]}
    assert stacks["web"]["status"] == "BROKEN" and "not a valid hotc state document" in stacks["web"]["error"]
