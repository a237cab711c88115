"""Deployment groups, SoftwareComponent and DeployedServer over the signal store, offline (moto's S3): the
drivers run against real presigned URLs, and a small agent thread plays each server's os-collect-config +
heat-config-notify (polls the server's metadata URL, answers each new derived config by PUTting outputs to its
``deploy_signal_id``). The stock agents run these in tests/apply/test_cloud_software_deployment.py."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hotc.errors import HotcError
from hotc.providers.base import ActionContext, Outcome
from hotc.providers.native.deployed_server import DeployedServerDriver
from hotc.providers.native.server_metadata import create_server_metadata, register_server
from hotc.providers.native.software_component import SoftwareComponentDriver
from hotc.providers.native.software_deployment import SoftwareDeploymentDriver
from hotc.providers.native.software_deployment_group import SoftwareDeploymentGroupDriver
from hotc.providers.native.structured_deployment_group import StructuredDeploymentGroupDriver
from hotc.state.signal_store import SignalStore, SignalStoreConfig
from tests.clirun import run_hotc
from tests.fixtures.s3 import S3Bucket


@dataclass
class _Rs:
    physical_id: str
    attributes: dict[str, Any]
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass
class World:
    """The stack's resources by physical id (what ``ctx.lookup`` finds) and the signal store."""

    store: SignalStore
    resources: dict[str, _Rs] = field(default_factory=dict)
    logs: list[str] = field(default_factory=list)

    def ctx(
        self,
        address: str,
        type_name: str,
        timeout: float = 30,
        record: Any = None,
        update_policy: dict[str, Any] | None = None,
    ) -> Any:
        @dataclass(frozen=True)
        class Ctx(ActionContext):
            lookup: Any = None

        return Ctx(
            address=address,
            type=type_name,
            stack_name="st",
            lineage="lin-1",
            timeout=timeout,
            cloud=lambda: None,
            record_physical_id=record or (lambda _p: None),
            log=self.logs.append,
            signals=lambda: self.store,
            lookup=self.resources.get,
            update_policy=update_policy or {},
        )

    def config(self, driver: Any, props: dict[str, Any], address: str = "config") -> str:
        out = driver.create(self.ctx(address, "OS::Heat::SoftwareConfig"), props)
        self.resources[out.physical_id] = _Rs(out.physical_id, dict(out.attributes))
        return str(out.physical_id)

    def keep(self, out: Outcome) -> Outcome:
        """Record an outcome's attributes as the state would (for the next update's look-up)."""
        assert out.physical_id is not None
        self.resources[out.physical_id] = _Rs(out.physical_id, dict(out.attributes))
        return out

    def server(self, sid: str) -> str:
        """A Nova server with SOFTWARE_CONFIG user data (its metadata URL is returned)."""
        ctx = self.ctx(sid, "OS::Nova::Server")
        payload, key = create_server_metadata(ctx, "")
        register_server(ctx, sid, key)
        return self.store.presign(key, "GET")


class Agent:
    """Plays the in-instance agents of several servers: ``ran`` lists (server, deploy_resource_name,
    deploy_action, inputs) of every derived config it ran, in order; ``fail`` names the servers whose hook
    exits 1."""

    def __init__(self, urls: dict[str, str]) -> None:
        self.urls = dict(urls)
        self.ran: list[tuple[str, str, str, dict[str, Any]]] = []
        self.fail: set[str] = set()
        self.seen: set[str] = set()
        self.stop = threading.Event()
        self.error: Exception | None = None
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        try:
            self._poll()
        except Exception as exc:  # noqa: BLE001  (shown by the test that waits for it)
            self.error = exc
            raise

    def _poll(self) -> None:
        while not self.stop.is_set():
            for server, url in list(self.urls.items()):
                try:
                    with urllib.request.urlopen(url, timeout=10) as r:
                        doc = json.loads(r.read())
                except urllib.error.HTTPError as exc:
                    if exc.code != 404:
                        raise
                    del self.urls[server]  # its metadata is gone (the server was deleted)
                    continue
                for d in doc["deployments"]:
                    if d["id"] in self.seen:
                        continue
                    self.seen.add(d["id"])
                    inputs = {i["name"]: i["value"] for i in d["inputs"]}
                    self.ran.append((server, inputs["deploy_resource_name"], inputs["deploy_action"], inputs))
                    if "deploy_signal_id" not in inputs:
                        continue
                    code = 1 if server in self.fail else 0
                    body = {
                        "deploy_stdout": f"{inputs['deploy_resource_name']} {inputs['deploy_action']} "
                        f"{inputs.get('greeting')}",
                        "deploy_stderr": "",
                        "deploy_status_code": code,
                        "result": f"{server}-{inputs['deploy_action']}",
                    }
                    req = urllib.request.Request(
                        inputs["deploy_signal_id"], data=json.dumps(body).encode(), method="PUT",
                        headers={"Content-Type": "application/json"},  # (urllib's default form type: moto eats it)
                    )  # fmt: skip
                    urllib.request.urlopen(req, timeout=10).close()
                # the next rewrite carries a fresh URL, as os-apply-config would write it
                self.urls[server] = doc["os-collect-config"]["request"]["metadata_url"]
            time.sleep(0.2)

    def actions(self) -> list[tuple[str, str, str]]:
        return [(s, n, a) for s, n, a, _ in self.ran]


@pytest.fixture
def world(s3_bucket: S3Bucket) -> World:
    return World(SignalStore(SignalStoreConfig(s3_bucket.name, "sig")))


@pytest.fixture
def agent(world: World) -> Iterator[Agent]:
    a = Agent({})
    a.thread.start()
    yield a
    a.stop.set()
    a.thread.join(10)


SCRIPT = {
    "group": "script",
    "config": "#!/bin/sh\necho hi\n",
    "inputs": [{"name": "greeting", "default": "hello"}],
    "outputs": [{"name": "result"}],
}
GROUP = "OS::Heat::SoftwareDeploymentGroup"


def _metadata(world: World, sid: str) -> dict[str, Any]:
    from hotc.providers.native.server_metadata import server_metadata_key

    key = server_metadata_key(world.ctx("x", "x"), sid)
    assert key is not None
    raw = world.store.get(key)
    assert raw is not None
    return dict(json.loads(raw))


def test_a_group_deploys_to_every_server_and_maps_its_outputs_by_name(world: World, agent: Agent) -> None:
    from hotc.providers.native.software_config import SoftwareConfigDriver

    cid = world.config(SoftwareConfigDriver(), SCRIPT)
    for sid in ("srv-a", "srv-b"):
        agent.urls[sid] = world.server(sid)
    props = {"config": cid, "servers": {"web": "srv-a", "db": "srv-b"}, "input_values": {"greeting": "hey"},
             "actions": ["CREATE", "UPDATE", "DELETE"]}  # fmt: skip
    out = world.keep(SoftwareDeploymentGroupDriver().create(world.ctx("deps", GROUP), props))
    a = out.attributes
    assert a["deploy_stdouts"] == {"web": "web CREATE hey", "db": "db CREATE hey"}
    assert list(a["deploy_stdouts"]) == ["web", "db"]  # the servers map's order, as Heat's member names
    assert a["deploy_status_codes"] == {"web": 0, "db": 0}
    assert a["deploy_stderrs"] == {"web": "", "db": ""}
    assert a["result"] == {"web": "srv-a-CREATE", "db": "srv-b-CREATE"}  # a declared output, per member
    assert a["deploy_stdout"] == a["deploy_stdouts"]  # any member attribute name gives the map (Heat)
    assert sorted(agent.actions()) == [("srv-a", "web", "CREATE"), ("srv-b", "db", "CREATE")]
    inputs = {s: i for s, _n, _a, i in agent.ran}
    assert inputs["srv-a"]["deploy_server_id"] == "srv-a" and inputs["srv-b"]["deploy_server_id"] == "srv-b"
    # each server's metadata holds its own member only
    assert [d["inputs"][-1]["name"] for d in _metadata(world, "srv-a")["deployments"]] == [
        "deploy_signal_verb"
    ]
    assert len(_metadata(world, "srv-a")["deployments"]) == 1

    # a key added: only the new member runs (CREATE); the others' properties did not change
    agent.urls["srv-c"] = world.server("srv-c")
    grown = {**props, "servers": {"web": "srv-a", "db": "srv-b", "cache": "srv-c"}}
    agent.ran.clear()
    out = world.keep(
        SoftwareDeploymentGroupDriver().update(
            world.ctx("deps", GROUP), out.physical_id, props, grown, frozenset({"servers"})
        )  # fmt: skip
    )
    assert agent.actions() == [("srv-c", "cache", "CREATE")]
    assert out.attributes["deploy_stdouts"] == {"web": "web CREATE hey", "db": "db CREATE hey",
                                                "cache": "cache CREATE hey"}  # fmt: skip

    # input_values changed: every member re-runs (UPDATE); a key removed: its DELETE action runs on its server
    changed = {**grown, "servers": {"web": "srv-a", "cache": "srv-c"}, "input_values": {"greeting": "yo"}}
    agent.ran.clear()
    out = world.keep(
        SoftwareDeploymentGroupDriver().update(
            world.ctx("deps", GROUP), out.physical_id, grown, changed, frozenset({"servers", "input_values"})
        )  # fmt: skip
    )
    assert sorted(agent.actions()) == [("srv-a", "web", "UPDATE"), ("srv-b", "db", "DELETE"),
                                       ("srv-c", "cache", "UPDATE")]  # fmt: skip
    assert out.attributes["deploy_stdouts"] == {"web": "web UPDATE yo", "cache": "cache UPDATE yo"}
    assert _metadata(world, "srv-b")["deployments"] == []  # the removed member left its server's metadata

    # destroy: every member's DELETE action, then nothing is left in the servers' metadata or the store
    agent.ran.clear()
    SoftwareDeploymentGroupDriver().delete(world.ctx("deps", GROUP), str(out.physical_id), changed)
    assert sorted(agent.actions()) == [("srv-a", "web", "DELETE"), ("srv-c", "cache", "DELETE")]
    assert _metadata(world, "srv-a")["deployments"] == [] and _metadata(world, "srv-c")["deployments"] == []
    assert world.store.keys_under(world.store.key("st", "deployments", str(out.physical_id)) + "/") == []


def test_hotc_signal_reaches_the_member_a_group_waits_on(world: World, agent: Agent) -> None:
    """``hotc signal STACK GROUP[KEY]``: the signal object of the action member KEY waits on (no agent on
    that server here: the signal stands in for it)."""
    from hotc.providers.native.signal_mixin import signal_key
    from hotc.providers.native.software_config import SoftwareConfigDriver
    from hotc.state.document import ResourceState

    cid = world.config(SoftwareConfigDriver(), SCRIPT)
    agent.urls["srv-a"] = world.server("srv-a")
    world.server("srv-b")  # no agent polls it
    ids: list[str] = []
    result: list[Any] = []
    props = {"config": cid, "servers": {"web": "srv-a", "db": "srv-b"}}

    def run() -> None:
        try:
            result.append(
                SoftwareDeploymentGroupDriver().create(world.ctx("deps", GROUP, record=ids.append), props)
            )
        except Exception as exc:  # noqa: BLE001
            result.append(exc)

    t = threading.Thread(target=run)
    t.start()
    deadline = time.monotonic() + 20
    while not ids and time.monotonic() < deadline:
        time.sleep(0.1)
    state = {"deps": ResourceState("deps", GROUP, ids[0], "CREATE_IN_PROGRESS")}
    with pytest.raises(HotcError, match=r"signal one of its members, deps\[NAME\]"):
        signal_key(state, "deps", world.store, "st")
    with pytest.raises(HotcError, match="deps\\[nope\\] is not waiting for a signal"):
        signal_key(state, "deps[nope]", world.store, "st")
    key = None
    while key is None and time.monotonic() < deadline:
        try:
            key = signal_key(state, "deps[db]", world.store, "st")
        except HotcError:
            time.sleep(0.2)
    assert key is not None
    world.store.put(key, json.dumps({"deploy_stdout": "by hand", "deploy_status_code": 0}).encode())
    t.join(30)
    out = result[0]
    assert isinstance(out, Outcome), out
    assert out.attributes["deploy_stdouts"] == {"web": "web CREATE hello", "db": "by hand"}


def test_a_member_that_fails_fails_the_group_naming_it(world: World, agent: Agent) -> None:
    from hotc.providers.native.software_config import SoftwareConfigDriver

    cid = world.config(SoftwareConfigDriver(), SCRIPT)
    for sid in ("srv-a", "srv-b"):
        agent.urls[sid] = world.server(sid)
    agent.fail.add("srv-b")
    props = {"config": cid, "servers": {"web": "srv-a", "db": "srv-b"}}
    with pytest.raises(HotcError) as exc:
        SoftwareDeploymentGroupDriver().create(world.ctx("deps", GROUP), props)
    assert exc.value.message == (
        "db: Deployment to server failed: deploy_status_code : Deployment exited with non-zero status code: 1"
    )


def test_a_structured_group_substitutes_each_members_inputs(world: World, agent: Agent) -> None:
    from hotc.providers.native.software_config import StructuredConfigDriver

    cid = world.config(
        StructuredConfigDriver(),
        {
            "group": "apply-config",
            "config": {
                "who": {"get_input": "deploy_resource_name"},
                "srv": {"get_input": "deploy_server_id"},
            },
        },  # fmt: skip
    )
    agent.urls["srv-a"] = world.server("srv-a")
    agent.urls["srv-b"] = world.server("srv-b")
    props = {"config": cid, "servers": {"one": "srv-a", "two": "srv-b"}}
    StructuredDeploymentGroupDriver().create(world.ctx("sdeps", "OS::Heat::StructuredDeploymentGroup"), props)
    configs = [d for s in ("srv-a", "srv-b") for d in _metadata(world, s)["deployments"]]
    assert sorted(c["config"]["who"] + "@" + c["config"]["srv"] for c in configs) == [
        "one@srv-a",
        "two@srv-b",
    ]


def test_a_component_runs_the_actions_its_configs_name(world: World, agent: Agent) -> None:
    component = {
        "configs": [
            {"actions": ["CREATE"], "config": "#!/bin/sh\necho create", "tool": "script"},
            {"actions": ["DELETE"], "config": "#!/bin/sh\necho delete", "tool": "script"},
        ],
        "inputs": [{"name": "greeting"}],
    }
    cid = world.config(SoftwareComponentDriver(), component, "comp")
    shown = world.resources[cid].attributes
    assert shown["config"] is None  # get_attr [comp, config]: Heat's SoftwareComponent answers null
    assert shown["show"]["group"] == "component"
    assert shown["show"]["config"] == {"configs": component["configs"]}
    agent.urls["srv-a"] = world.server("srv-a")
    # the deployment's own actions (CREATE, UPDATE by default) do not matter: the component's do
    props = {"config": cid, "server": "srv-a", "input_values": {"greeting": "hi"}}
    out = world.keep(
        SoftwareDeploymentDriver().create(world.ctx("dep", "OS::Heat::SoftwareDeployment"), props)
    )
    assert out.attributes["deploy_stdout"] == "dep CREATE hi"
    derived = _metadata(world, "srv-a")["deployments"][0]
    assert derived["group"] == "component" and derived["config"] == {"configs": component["configs"]}
    new = {**props, "input_values": {"greeting": "ho"}}
    SoftwareDeploymentDriver().update(
        world.ctx("dep", "OS::Heat::SoftwareDeployment"), str(out.physical_id), props, new,
        frozenset({"input_values"}))  # fmt: skip
    SoftwareDeploymentDriver().delete(
        world.ctx("dep", "OS::Heat::SoftwareDeployment"), str(out.physical_id), new
    )
    assert [a for _s, _n, a in agent.actions()] == ["CREATE", "DELETE"]  # no config for UPDATE: nothing ran


def test_a_deployed_server_gets_deployments_through_its_os_collect_config(world: World, agent: Agent) -> None:
    from hotc.providers.native.software_config import SoftwareConfigDriver

    ds = DeployedServerDriver().create(world.ctx("ds", "OS::Heat::DeployedServer"), {"name": "bm-1"})
    assert ds.physical_id is not None
    occ = ds.attributes["os_collect_config"]
    assert "os_collect_config" in ds.sensitive_attributes  # it holds a presigned URL
    assert occ["collectors"] == ["request", "local"]  # Heat's collectors for a deployed server
    assert ds.attributes["name"] == "bm-1"
    # the operator writes occ into the server's os-collect-config.conf; its agents poll that URL
    agent.urls["bm"] = occ["request"]["metadata_url"]
    cid = world.config(SoftwareConfigDriver(), SCRIPT)
    out = SoftwareDeploymentDriver().create(
        world.ctx("dep", "OS::Heat::SoftwareDeployment"), {"config": cid, "server": ds.physical_id}
    )
    assert out.attributes["deploy_stdout"] == "dep CREATE hello"
    assert agent.ran[0][3]["deploy_server_id"] == ds.physical_id
    assert _metadata(world, ds.physical_id)["os-collect-config"]["collectors"] == ["request", "local"]
    SoftwareDeploymentDriver().delete(world.ctx("dep", "OS::Heat::SoftwareDeployment"), str(out.physical_id),
                                      {"config": cid, "server": ds.physical_id})  # fmt: skip
    DeployedServerDriver().delete(world.ctx("ds", "OS::Heat::DeployedServer"), ds.physical_id, {})
    assert world.store.keys_under(world.store.key("st", "servers", "")) == []


GROUP_T = """heat_template_version: 2018-08-31
resources:
  config: {type: OS::Heat::SoftwareConfig, properties: {group: script, config: "#!/bin/sh"}}
  ds: {type: OS::Heat::DeployedServer%s}
  deps:
    type: OS::Heat::SoftwareDeploymentGroup
    properties:
      config: {get_resource: config}
      servers: {a: {get_resource: ds}}%s
outputs:
  out: {value: {get_attr: [deps, deploy_stdouts, a]}}
  occ: {value: {get_attr: [ds, os_collect_config]}}
"""


def test_groups_and_deployed_servers_validate_and_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k in ("OS_CLOUD", "OS_AUTH_URL", "HOTC_SIGNAL_STORE"):
        monkeypatch.delenv(k, raising=False)
    (tmp_path / "t.yaml").write_text(GROUP_T % ("", ""))
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0 and "cannot create or update" not in r.stderr + r.stdout, r.stderr
    # no signal store: a plan error naming what needs it (never half-way through apply)
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1 and "ds, deps: signals need the signal store" in r.stderr, r.stderr

    (tmp_path / "t.yaml").write_text(GROUP_T % ("", "\n      signal_transport: ZAQAR_SIGNAL"))
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "signal_transport ZAQAR_SIGNAL needs the Zaqar messaging service" in r.stdout + r.stderr
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1
    assert "deps: OS::Heat::SoftwareDeploymentGroup: signal_transport ZAQAR_SIGNAL needs" in r.stderr

    # batches are honoured (the driver runs them): validate has nothing to say of an update_policy
    (tmp_path / "t.yaml").write_text(
        (GROUP_T % ("", "")).replace("    type: OS::Heat::SoftwareDeploymentGroup\n",
                                     "    type: OS::Heat::SoftwareDeploymentGroup\n    update_policy: {batch_create: {}}\n")
    )  # fmt: skip
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0 and "update_policy" not in r.stdout + r.stderr, r.stdout + r.stderr

    # an explicit CFN_SIGNAL (Heat's default when not given, which hotc serves as TEMP_URL_SIGNAL) is refused too
    (tmp_path / "t.yaml").write_text(GROUP_T % ("", "\n      signal_transport: CFN_SIGNAL"))
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert (
        r.returncode == 0 and "signal_transport CFN_SIGNAL needs Heat's CloudFormation" in r.stdout + r.stderr
    )
    assert run_hotc(tmp_path, "plan", "-t", "t.yaml").returncode == 1

    (tmp_path / "t.yaml").write_text(
        GROUP_T % (", properties: {software_config_transport: POLL_SERVER_HEAT}", "")
    )
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1
    assert (
        "ds: OS::Heat::DeployedServer: software_config_transport POLL_SERVER_HEAT needs Heat's API"
        in r.stderr
    )


def test_a_group_on_a_server_without_software_config_is_a_plan_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k in ("OS_CLOUD", "OS_AUTH_URL", "HOTC_SIGNAL_STORE"):
        monkeypatch.delenv(k, raising=False)
    (tmp_path / "t.yaml").write_text("""heat_template_version: 2018-08-31
resources:
  config: {type: OS::Heat::SoftwareConfig, properties: {group: script, config: "#!/bin/sh"}}
  good: {type: OS::Nova::Server, properties: {image: img, flavor: f, user_data_format: SOFTWARE_CONFIG}}
  raw: {type: OS::Nova::Server, properties: {image: img, flavor: f, user_data_format: RAW}}
  deps:
    type: OS::Heat::SoftwareDeploymentGroup
    properties:
      config: {get_resource: config}
      servers: {a: {get_resource: good}, b: {get_resource: raw}}
""")
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1
    assert "deps: the server raw must have user_data_format: SOFTWARE_CONFIG" in r.stderr, r.stderr
    assert "the server good must" not in r.stderr


def test_a_component_with_two_configs_for_one_action_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("""heat_template_version: 2018-08-31
resources:
  comp:
    type: OS::Heat::SoftwareComponent
    properties:
      configs:
        - {actions: [CREATE, UPDATE], config: a, tool: script}
        - {actions: [UPDATE], config: b, tool: script}
""")
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1
    assert "Defining more than one configuration for the same action in SoftwareComponent" in r.stderr


def test_a_replaced_deployment_leaves_its_replacement_in_the_servers_metadata(
    world: World, agent: Agent
) -> None:
    """Heat keys a server's deployments by deployment id: the replacement is created before the old one is
    deleted (running its DELETE action), and the server's metadata keeps the replacement."""
    from hotc.providers.native.deployment_mixin import CONFIG_ATTR
    from hotc.providers.native.server_metadata import push_deployment
    from hotc.providers.native.software_config import SoftwareConfigDriver

    cid = world.config(SoftwareConfigDriver(), SCRIPT)
    agent.urls["srv-a"] = world.server("srv-a")
    sd = SoftwareDeploymentDriver()
    props = {"config": cid, "server": "srv-a", "actions": ["CREATE", "DELETE"]}
    old = world.keep(sd.create(world.ctx("dep", "OS::Heat::SoftwareDeployment"), props))
    new = world.keep(sd.create(world.ctx("dep", "OS::Heat::SoftwareDeployment"), props))
    sd.delete(world.ctx("dep", "OS::Heat::SoftwareDeployment"), str(old.physical_id), props)
    assert [a for _s, _n, a in agent.actions()] == ["CREATE", "CREATE", "DELETE"]
    assert [d["id"] for d in _metadata(world, "srv-a")["deployments"]] == [new.attributes[CONFIG_ATTR]]

    # an entry an earlier hotc wrote under the address goes once the deployment publishes under its id
    legacy = {"id": "cfg-legacy", "name": "zz", "group": "script", "config": "",
              "inputs": [{"name": "deploy_resource_name", "value": "dep"}, {"name": "deploy_action", "value": "CREATE"}]}  # fmt: skip
    push_deployment(world.ctx("dep", "x"), "srv-a", "dep", legacy)
    world.resources[str(new.physical_id)].attributes[CONFIG_ATTR] = "cfg-legacy"
    sd.delete(world.ctx("dep", "OS::Heat::SoftwareDeployment"), str(new.physical_id), props)
    assert _metadata(world, "srv-a")["deployments"] == []


def test_a_groups_update_policy_batches_its_members_in_the_servers_order(world: World, agent: Agent) -> None:
    """Heat runs a deployment group as a ResourceGroup of deployments: ``batch_create`` on create and
    ``rolling_update`` on update run ``max_batch_size`` members at a time, in the servers map's order, the next
    batch only once the previous one signalled; a failed batch stops the later ones and says which did not run."""
    from hotc.providers.native.software_config import SoftwareConfigDriver

    cid = world.config(SoftwareConfigDriver(), SCRIPT)
    for sid in ("srv-a", "srv-b", "srv-c"):
        agent.urls[sid] = world.server(sid)
    props = {"config": cid, "servers": {"web": "srv-a", "db": "srv-b", "cache": "srv-c"},
             "input_values": {"greeting": "hey"}, "actions": ["CREATE", "UPDATE"]}  # fmt: skip
    one_by_one = {"batch_create": {"max_batch_size": 1, "pause_time": 0}}
    ctx = world.ctx("deps", GROUP, update_policy=one_by_one)
    out = world.keep(SoftwareDeploymentGroupDriver().create(ctx, props))
    # one at a time: the agent can only have seen each member after the previous one signalled
    assert agent.actions() == [
        ("srv-a", "web", "CREATE"),
        ("srv-b", "db", "CREATE"),
        ("srv-c", "cache", "CREATE"),
    ]
    assert [m for m in world.logs if m.startswith("batch_create: batch")] == [
        "batch_create: batch 1 of 3: web", "batch_create: batch 2 of 3: db", "batch_create: batch 3 of 3: cache"
    ]  # fmt: skip

    # rolling_update of two at a time: the third member starts only after the first two finished
    rolling = {"rolling_update": {"max_batch_size": 2, "pause_time": 0}}
    changed = {**props, "input_values": {"greeting": "yo"}}
    agent.ran.clear()
    out = world.keep(
        SoftwareDeploymentGroupDriver().update(
            world.ctx("deps", GROUP, update_policy=rolling),
            out.physical_id,
            props,
            changed,
            frozenset({"input_values"}),
        )  # fmt: skip
    )
    acts = agent.actions()
    assert sorted(acts[:2]) == [("srv-a", "web", "UPDATE"), ("srv-b", "db", "UPDATE")]
    assert acts[2:] == [("srv-c", "cache", "UPDATE")]

    # a failure in batch 1 stops batches 2 and 3: their members are not run, and the error says so
    agent.fail = {"srv-a"}
    agent.ran.clear()
    again = {**changed, "input_values": {"greeting": "again"}}
    with pytest.raises(HotcError) as exc:
        SoftwareDeploymentGroupDriver().update(
            world.ctx("deps", GROUP, update_policy={"rolling_update": {"max_batch_size": 1}}),
            out.physical_id, changed, again, frozenset({"input_values"}),
        )  # fmt: skip
    assert "rolling_update: batch 1 of 3 failed: web:" in exc.value.message
    assert "batches 2-3 not run (db, cache)" in exc.value.message
    assert agent.actions() == [("srv-a", "web", "UPDATE")]


def test_a_deployment_groups_update_policy_reaches_the_plan_with_heats_defaults(tmp_path: Path) -> None:
    """The planner evaluates a deployment group's update_policy (parameters included) into the desired
    resource the executor hands its driver; Heat's defaults fill what the template leaves out."""
    from hotc.parser.api import load_stack
    from hotc.planner.api import build_desired
    from hotc.providers.checks import type_checks

    (tmp_path / "t.yaml").write_text(
        (GROUP_T % ("", ""))
        .replace(
            "    type: OS::Heat::SoftwareDeploymentGroup\n",
            "    type: OS::Heat::SoftwareDeploymentGroup\n"
            "    update_policy: {rolling_update: {max_batch_size: {get_param: size}}, batch_create: {}}\n",
        )
        .replace("resources:\n", "parameters:\n  size: {type: number, default: 2}\nresources:\n", 1)
    )
    loaded, diags = load_stack(
        str(tmp_path / "t.yaml"), [], {}, {}, require_values=True, checks=type_checks()
    )
    assert loaded is not None, diags
    desired = build_desired(loaded, "st", None)
    assert desired.resources["deps"].update_policy == {
        "rolling_update": {"min_in_service": 0, "max_batch_size": 2, "pause_time": 0},
        "batch_create": {"max_batch_size": 1, "pause_time": 0},
    }
    assert desired.resources["ds"].update_policy is None
