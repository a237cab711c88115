"""``hotc drift``: per-property drift, objects deleted out of band, untracked tagged objects and scaling (never
drift), accepted drift kept in the state or declared in hotc.toml (shown apart, counting again once expired),
read-only scans of one stack or every stack of a local or S3 backend, each state read once, in every format."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hotc.ops import drift as op
from hotc.providers.base import ActionContext, Outcome
from hotc.state import backend_from_config
from hotc.state.codec import state_from_dict, state_to_dict
from hotc.state.document import AcceptedDrift, GroupState, ResourceState, StackState
from tests.clirun import run_hotc as hotc

TODAY = "2026-12-02"


class LiveCloud:
    """An in-memory cloud the fake driver reads: physical id -> live properties; counts list calls and GETs."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        self.tags: dict[str, list[str]] = {}
        self.lists = 0
        self.gets = 0
        self.lock = threading.Lock()


class LiveDriver:
    def __init__(self, cloud: LiveCloud, *, lists: bool = True) -> None:
        self.cloud = cloud
        if not lists:
            self.read_many = None  # type: ignore[assignment]

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        with self.cloud.lock:
            self.cloud.gets += 1
        live = self.cloud.objects.get(physical_id)
        return None if live is None else Outcome(physical_id, {"id": physical_id}, properties=dict(live))

    def read_many(self, items: Sequence[tuple[ActionContext, str, Mapping[str, Any]]]) -> dict[str, Outcome]:
        with self.cloud.lock:
            self.cloud.lists += 1
        return {
            pid: Outcome(pid, {"id": pid}, properties=dict(self.cloud.objects[pid]))
            for _c, pid, _p in items
            if pid in self.cloud.objects
        }

    def list_live(self, ctx: ActionContext, conn: Any) -> list[Any]:
        return [SimpleNamespace(id=pid, name=f"obj-{pid}", tags=t) for pid, t in self.cloud.tags.items()]


def _state(name: str = "s") -> StackState:
    st = StackState.new(name)
    rows = {
        "net": {"name": "net-a", "admin_state_up": True},
        "port": {"name": "p", "fixed_ips": [{"ip_address": "10.0.0.5"}]},
        "web[2].port": {"name": "member"},
        "vol": {"size": 1},
    }
    for addr, props in rows.items():
        st = st.with_resource(
            ResourceState(addr, "Fake::Thing", f"id-{addr}", "CREATE_COMPLETE", properties=props)
        )
    st = st.with_resource(
        ResourceState(
            "db",
            "Fake::Thing",
            "id-db",
            "CREATE_COMPLETE",
            properties={"password": "x"},
            sensitive_paths=("password",),
        )
    )
    st = st.with_resource(
        ResourceState(
            "asg",
            "OS::Heat::AutoScalingGroup",
            "id-asg",
            "CREATE_COMPLETE",
            properties={
                "min_size": 1,
                "max_size": 5,
                "desired_capacity": 1,
                "resource": {"type": "Fake::Thing"},
            },
        )
    )
    return replace(st, groups={"asg": GroupState(size=3)})


def _cloud(st: StackState) -> LiveCloud:
    cloud = LiveCloud()
    for rs in st.resources.values():
        cloud.objects[str(rs.physical_id)] = dict(rs.properties)
    return cloud


def _drifted(cloud: LiveCloud) -> None:
    cloud.objects["id-net"]["name"] = "renamed-by-hand"
    cloud.objects["id-port"]["fixed_ips"] = [{"ip_address": "10.0.0.9"}]
    cloud.objects["id-web[2].port"]["name"] = "other"
    del cloud.objects["id-vol"]
    cloud.objects["id-db"]["password"] = "y"
    cloud.objects["id-asg"]["desired_capacity"] = 3  # scaling, not drift


def _scan(st: StackState, cloud: LiveCloud, **kw: Any) -> op.StackDrift:
    return op.scan_state(st, cloud=lambda: None, drivers=lambda _t: LiveDriver(cloud), today=TODAY, **kw)


def test_changed_deleted_and_scaled_are_told_apart_per_property() -> None:
    st = _state()
    cloud = _cloud(st)
    assert not _scan(st, cloud).drifted  # the cloud as recorded: nothing (the group's size is scaling)
    _drifted(cloud)
    got = _scan(st, cloud)
    by = {r.address: r for r in got.resources}
    assert got.drifted
    assert by["net"].kind == "changed"
    assert [(p.path, p.recorded, p.live) for p in by["net"].properties] == [
        ("name", "net-a", "renamed-by-hand")
    ]
    assert [p.path for p in by["port"].properties] == ["fixed_ips[0].ip_address"]
    assert by["port"].properties[0].live == "10.0.0.9"
    assert by["vol"].kind == "deleted" and by["vol"].physical_id == "id-vol"
    # a secret is never shown
    assert [(p.path, p.recorded, p.live) for p in by["db"].properties] == [
        ("password", "(sensitive)", "(sensitive)")
    ]
    # the group's desired_capacity changed by scaling is not drift, but the size is reported as scaled
    assert by["asg"].kind == "scaled" and not by["asg"].counts and "size 3" in by["asg"].detail
    assert "net" in by and "asg" not in [r.address for r in got.resources if r.kind == "changed"]
    # a desired_capacity that is not the group's size is drift
    cloud.objects["id-asg"]["desired_capacity"] = 4
    by = {(r.address, r.kind): r for r in _scan(st, cloud).resources}
    assert [p.path for p in by[("asg", "changed")].properties] == ["desired_capacity"]


def test_one_list_call_per_type() -> None:
    st = _state()
    cloud = _cloud(st)
    _drifted(cloud)
    _scan(st, cloud)
    assert cloud.lists == 2  # Fake::Thing and the group's type, one list each
    assert cloud.gets == 1  # only the deleted volume, which the list did not hold, is read again by a GET


def test_accepted_drift_is_shown_apart_until_it_expires() -> None:
    st = _state()
    cloud = _cloud(st)
    _drifted(cloud)
    entries = {
        "net:name": AcceptedDrift("renamed by the network team", "2026-12-31", by="ops@host"),
        "port:fixed_ips": AcceptedDrift("readdressed", "2026-12-02"),  # a parent path covers what is under it
        "web[2].port:name": AcceptedDrift("a member's port", "2027-01-01"),
        "vol:*": AcceptedDrift("volume moved to another stack", "2027-01-01"),
    }
    declared = {"db:password": AcceptedDrift("rotated by the vault", "2027-01-01", by="hotc.toml")}
    got = _scan(replace(st, accepted_drift=entries), cloud, accepted=declared)
    assert not got.drifted and not got.expired
    by = {r.address: r for r in got.resources}
    p = by["net"].properties[0]
    assert p.accepted is not None and p.accepted.source == "state" and not p.counts
    assert (
        by["db"].properties[0].accepted is not None and by["db"].properties[0].accepted.source == "hotc.toml"
    )
    assert by["vol"].accepted is not None and not by["vol"].counts
    # the day after an entry's date, its difference counts again
    later = op.scan_state(
        replace(st, accepted_drift=entries),
        cloud=lambda: None,
        drivers=lambda _t: LiveDriver(cloud),
        accepted=declared,
        today="2026-12-03",
    )
    assert later.drifted
    counting = [
        (r.address, p.path) for r in later.resources if r.kind == "changed" for p in r.properties if p.counts
    ]
    assert counting == [("port", "fixed_ips[0].ip_address")]
    assert [a.key for a in later.expired] == ["port:fixed_ips"]
    # an entry on another path does not cover this one
    other = {"net:admin_state_up": AcceptedDrift("x", "2027-01-01")}
    assert any(
        p.counts for r in _scan(replace(st, accepted_drift=other), cloud).resources for p in r.properties
    )


def test_untracked_objects_carrying_the_stack_tag() -> None:
    st = _state()
    cloud = _cloud(st)
    cloud.tags = {
        "id-net": [f"hotc-lineage={st.lineage}"],  # recorded: not untracked
        "stray": [f"hotc-lineage={st.lineage}"],
        "foreign": ["hotc-lineage=someone-else"],
    }
    got = _scan(st, cloud)
    stray = [r for r in got.resources if r.kind == "untracked"]
    assert [(r.physical_id, r.type) for r in stray] == [("stray", "Fake::Thing")]
    assert got.drifted


def test_accepted_drift_round_trips_and_old_documents_are_unchanged() -> None:
    st = _state()
    d = state_to_dict(st)
    assert "accepted_drift" not in d  # written only when there are some: older documents round-trip
    assert state_to_dict(state_from_dict(json.loads(json.dumps(d)))) == d
    entries = {"web[2].port:name": AcceptedDrift("why", "2027-01-01", "me@host", "2026-12-02T10:00:00Z")}
    d2 = state_to_dict(replace(st, accepted_drift=entries))
    assert d2["accepted_drift"] == {
        "web[2].port:name": {
            "reason": "why",
            "until": "2027-01-01",
            "by": "me@host",
            "at": "2026-12-02T10:00:00Z",
        }
    }
    assert state_from_dict(json.loads(json.dumps(d2))).accepted_drift == entries
    import jsonschema

    schema = json.loads((Path(op.__file__).parents[1] / "state" / "state.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(d2)), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {**json.loads(json.dumps(d2)), "accepted_drift": {"a:b": {"reason": "r"}}}, schema
        )


# ------------------------------------------------------------------------------------------------- the CLI

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: one}
  b:
    type: OS::Heat::TestResource
    properties: {value: two}
"""


@pytest.fixture(params=["local", "s3"])
def backend(request: Any, tmp_path: Path) -> tuple[str, ...]:
    if request.param == "local":
        return ()
    bucket = request.getfixturevalue("s3_bucket")
    return ("--backend", bucket.url)


def _apply(tmp_path: Path, b: tuple[str, ...], *stacks: str) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    for s in stacks:
        r = hotc(tmp_path, "apply", "-t", "t.yaml", s, "--auto-approve", *b)
        assert r.returncode == 0, r.stderr


def _serial(tmp_path: Path, stack: str, b: tuple[str, ...]) -> int:
    r = hotc(tmp_path, "state", "pull", stack, *b)
    assert r.returncode == 0, r.stderr
    return int(json.loads(r.stdout)["serial"])


def test_cli_heat_native_stacks_without_drift_in_every_format(
    tmp_path: Path, backend: tuple[str, ...]
) -> None:
    _apply(tmp_path, backend, "s1", "s2")
    serials = {s: _serial(tmp_path, s, backend) for s in ("s1", "s2")}
    r = hotc(tmp_path, "drift", "s1", *backend)
    assert r.returncode == 0, r.stderr
    assert "Stack s1 (serial" in r.stdout and "no drift" in r.stdout
    r = hotc(tmp_path, "drift", "--all", "--format", "json", *backend)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [s["stack"] for s in doc["stacks"]] == ["s1", "s2"] and not doc["drifted"]
    r = hotc(tmp_path, "drift", "--all", "--format", "markdown", *backend)
    assert r.returncode == 0 and "<!-- hotc-drift: s1 -->" in r.stdout and "**No drift**" in r.stdout
    r = hotc(tmp_path, "drift", "--all", "--format", "sarif", *backend)
    assert r.returncode == 0 and json.loads(r.stdout)["runs"][0]["results"] == []
    assert {s: _serial(tmp_path, s, backend) for s in ("s1", "s2")} == serials  # read-only
    r = hotc(tmp_path, "drift", "nope", *backend)
    assert r.returncode == 1 and "nope" in r.stderr


def test_cli_reports_drift_and_accept_writes_an_entry(
    tmp_path: Path, backend: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    _apply(tmp_path, backend, "s")
    cloud = LiveCloud()
    r = hotc(tmp_path, "state", "pull", "s", *backend)
    for rs in json.loads(r.stdout)["resources"].values():
        cloud.objects[rs["physical_id"]] = dict(rs["properties"])
    a_id = json.loads(r.stdout)["resources"]["a"]["physical_id"]
    cloud.objects[a_id]["value"] = "changed by hand"
    from hotc.cli import root

    monkeypatch.setattr(root, "drivers", lambda: lambda _t: LiveDriver(cloud))
    serial = _serial(tmp_path, "s", backend)
    for fmt, needle in (
        ("text", 'value: "one" -> "changed by hand"'),
        ("json", '"path": "value"'),
        ("markdown", "**Drift** in 1 resource(s)"),
        ("sarif", "HOTC-DRIFT-CHANGED"),
    ):
        r = hotc(tmp_path, "drift", "s", "--format", fmt, *backend)
        assert r.returncode == 2, (fmt, r.stdout, r.stderr)
        assert needle in r.stdout, (fmt, r.stdout)
    assert _serial(tmp_path, "s", backend) == serial

    r = hotc(
        tmp_path,
        "drift",
        "s",
        "--accept",
        "a:value",
        "--reason",
        "hand-tuned",
        "--until",
        "2999-01-01",
        *backend,
    )
    assert r.returncode == 0, r.stderr
    assert "Accepted drift a:value of stack 's' until 2999-01-01" in r.stdout
    r = hotc(tmp_path, "drift", "s", *backend)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "Accepted (not counted)" in r.stdout and "hand-tuned" in r.stdout
    # plan --refresh-only shows it apart too
    r = hotc(tmp_path, "plan", "s", "--refresh-only", *backend)
    assert r.returncode == 0, r.stderr
    assert "Accepted drift" in r.stderr and "a:value accepted (state" in r.stderr and "hand-tuned" in r.stderr
    r = hotc(tmp_path, "drift", "s", "--format", "sarif", *backend)
    assert json.loads(r.stdout)["runs"][0]["results"][0]["suppressions"][0]["status"] == "accepted"
    # expired: counts again
    r = hotc(
        tmp_path, "drift", "s", "--accept", "a:value", "--reason", "old", "--until", "2001-01-01", *backend
    )
    assert r.returncode == 0 and "Replaced" in r.stdout
    r = hotc(tmp_path, "drift", "s", *backend)
    assert r.returncode == 2 and "expired" in r.stdout
    # declared in hotc.toml (reviewed in a pull request)
    (tmp_path / "hotc.toml").write_text(
        '[[drift.accept]]\naddress = "a"\npath = "value"\nreason = "in review"\nuntil = 2999-12-31\n'
    )
    r = hotc(tmp_path, "drift", "s", "--format", "json", *backend)
    assert r.returncode == 0, r.stdout
    prop = json.loads(r.stdout)["stacks"][0]["resources"][0]["properties"][0]
    assert prop["accepted"]["source"] == "hotc.toml" and prop["accepted"]["reason"] == "in review"
    # an entry that names another stack does not apply to this one; one naming this stack does
    entry = 'address = "a"\npath = "value"\nreason = "in review"\nuntil = 2999-12-31\n'
    (tmp_path / "hotc.toml").write_text(f'[[drift.accept]]\nstack = "other"\n{entry}')
    assert hotc(tmp_path, "drift", "s", *backend).returncode == 2
    (tmp_path / "hotc.toml").write_text(f'[[drift.accept]]\nstack = "s"\n{entry}')
    assert hotc(tmp_path, "drift", "s", *backend).returncode == 0


def test_cli_accept_errors(tmp_path: Path) -> None:
    _apply(tmp_path, (), "s")
    cases = [
        (("--accept", "a.value", "--reason", "r", "--until", "2999-01-01"), "ADDRESS:PROPERTY_PATH"),
        (("--accept", "zz:value", "--reason", "r", "--until", "2999-01-01"), "no resource 'zz'"),
        (("--accept", "a:value", "--reason", "r", "--until", "tomorrow"), "YYYY-MM-DD"),
        (("--accept", "a:value", "--until", "2999-01-01"), "--reason"),
        (("--accept", "a:value", "--reason", "r"), "--until"),
    ]
    for args, needle in cases:
        r = hotc(tmp_path, "drift", "s", *args)
        assert r.returncode == 1 and needle in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr
    (tmp_path / "hotc.toml").write_text('[[drift.accept]]\naddress = "a"\nreason = "r"\nuntil = 2999-12-31\n')
    r = hotc(tmp_path, "drift", "s")
    assert r.returncode == 1 and "missing path" in r.stderr


def test_all_reads_each_state_once(
    tmp_path: Path, backend: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    _apply(tmp_path, backend, "s1", "s2", "s3")
    url = backend[1] if backend else str(tmp_path / ".hotc")
    b = backend_from_config(url, tmp_path)
    reads: list[str] = []
    cls = type(b)
    real = cls.read

    def counting(self: Any, stack: str) -> Any:
        reads.append(stack)
        return real(self, stack)

    monkeypatch.setattr(cls, "read", counting)
    got = op.run(
        op.DriftRequest(all_stacks=True, backend=url, today=TODAY, stack_parallelism=2),
        cloud=lambda: None,
        drivers=lambda _t: LiveDriver(LiveCloud()),
    )
    assert sorted(reads) == ["s1", "s2", "s3"]
    assert [s.stack for s in got.stacks] == ["s1", "s2", "s3"]
    assert got.exit_code == 2 and all(r.kind == "deleted" for s in got.stacks for r in s.resources)


def test_ci_issue_upsert_follows_the_markdown_markers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """examples/ci/drift-issues.py (the GitLab scheduled job's step) on a real report: a drifting stack's issue
    is updated (found by its marker) or opened, a clean stack's open issue is closed."""
    import importlib.util

    from hotc.cli.drift_view import render_markdown

    st = _state()
    cloud = _cloud(st)
    _drifted(cloud)
    clean = replace(_state("calm"), groups={})
    result = op.DriftResult(
        (
            _scan(st, cloud),
            _scan(clean, _cloud(clean)),
            _scan(replace(_state("fresh"), groups={}), cloud),
        ),
        TODAY,
    )
    report = render_markdown(result)
    path = Path(op.__file__).parents[2] / "examples" / "ci" / "drift-issues.py"
    spec = importlib.util.spec_from_file_location("drift_issues", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert list(mod.sections(report)) == ["s", "calm", "fresh"]
    calls: list[tuple[str, str, Any]] = []
    issues = [
        {"iid": 7, "description": "<!-- hotc-drift: s -->\nold"},
        {"iid": 8, "description": "<!-- hotc-drift: calm -->\nold"},
    ]

    def fake(method: str, url: str, data: Any = None) -> Any:
        calls.append((method, url, data))
        if method == "GET":
            return issues
        return {"iid": 9}

    monkeypatch.setattr(mod, "gitlab", fake)
    (tmp_path / "drift.md").write_text(report)
    assert mod.main(["x", "gitlab", str(tmp_path / "drift.md")]) == 0
    writes = [(m, u, d) for m, u, d in calls if m != "GET"]
    assert ("PUT", "/issues/7") == writes[0][:2] and "**Drift**" in writes[0][2]["description"]
    assert writes[1][:2] == ("POST", "/issues/8/notes")
    assert writes[2][:2] == ("PUT", "/issues/8") and writes[2][2]["state_event"] == "close"
    assert writes[3][:2] == ("POST", "/issues") and writes[3][2]["title"] == "Drift in stack fresh"
    assert len(writes) == 4
