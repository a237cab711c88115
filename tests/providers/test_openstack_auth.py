"""Cloud connections from openstacksdk's configuration, and the errors when there is none."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from openstack.service_description import ServiceDescription, _ServiceDisabledProxyShim

from hotc.errors import HotcError
from hotc.providers.openstack.auth import cloud_factory, connect, one_proxy_per_service


def _clear(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("OS_CLOUD", "OS_AUTH_URL", "OS_AUTH_TYPE", "OS_USERNAME", "OS_PASSWORD", "OS_PROJECT_NAME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.chdir(tmp_path)


def test_no_cloud_configured_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _clear(monkeypatch, tmp_path)
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "missing.yaml"))
    with pytest.raises(HotcError, match="no OpenStack cloud is configured.*OS_CLOUD.*--os-cloud"):
        connect()


def test_unknown_cloud_name_lists_the_known_ones(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _clear(monkeypatch, tmp_path)
    cfg = tmp_path / "clouds.yaml"
    cfg.write_text(
        "clouds:\n  a:\n    auth: {auth_url: 'http://127.0.0.1:1/v3'}\n"
        "  b:\n    auth: {auth_url: 'http://127.0.0.1:1/v3'}\n"
    )
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(cfg))
    with pytest.raises(HotcError, match="cannot use cloud 'zzz'.*clouds.yaml has: a, b"):
        connect("zzz")
    with pytest.raises(HotcError, match=r"no OpenStack cloud is configured \(clouds.yaml has: a, b\)"):
        connect()


def test_unreachable_cloud_fails_at_authorize(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _clear(monkeypatch, tmp_path)
    cfg = tmp_path / "clouds.yaml"
    cfg.write_text(
        "clouds:\n  only:\n    auth: {auth_url: 'http://127.0.0.1:1/v3', username: u, password: p,"
        " project_name: x, user_domain_name: Default, project_domain_name: Default}\n"
    )
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(cfg))
    with pytest.raises(HotcError, match="cannot authenticate to only"):
        connect()  # the single cloud of clouds.yaml is used without OS_CLOUD


@pytest.mark.cloud
def test_connect_to_the_test_cloud_by_name_and_lazily(
    cloud: Any, cloud_config: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(cloud_config.config_file))
    monkeypatch.delenv("OS_CLOUD", raising=False)
    conn = connect(cloud_config.cloud_name)
    assert conn.current_project_id == cloud.current_project_id
    monkeypatch.setenv("OS_CLOUD", cloud_config.cloud_name)
    get = cloud_factory()
    first = get()
    assert get() is first and first.current_project_id == cloud.current_project_id

    # the same cloud with a wrong password: refused when connecting, with Keystone's answer
    data = yaml.safe_load(Path(cloud_config.config_file).read_text())
    entry = data["clouds"][cloud_config.cloud_name]
    entry["auth"]["password"] = "wrong-password"
    bad = tmp_path / "clouds.yaml"
    bad.write_text(yaml.safe_dump({"clouds": {"bad": entry}}))
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(bad))
    with pytest.raises(HotcError, match="cannot authenticate to bad: .*(401|authenticate)"):
        connect("bad")


def test_prewarm_connects_in_the_background_and_a_failure_is_reported_on_first_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from hotc.providers.openstack import auth

    made = threading.Event()
    calls: list[str] = []

    def connect(cloud: str | None = None, **_kw: object) -> object:
        calls.append(str(cloud))
        made.set()
        return "conn"

    monkeypatch.setattr(auth, "connect", connect)
    get = auth.cloud_factory("hotc-test", prewarm=True)
    assert made.wait(30)  # connected without anyone asking
    assert get() == "conn" and get() == "conn" and calls == ["hotc-test"]  # the one connection, shared

    attempts: list[int] = []

    def failing(cloud: str | None = None, **_kw: object) -> object:
        attempts.append(1)
        raise auth.HotcError("cannot authenticate to hotc-test: bad password")

    monkeypatch.setattr(auth, "connect", failing)
    get = auth.cloud_factory("hotc-test", prewarm=True)
    with pytest.raises(auth.HotcError, match="bad password"):
        get()
    assert len(attempts) in (1, 2)  # the background attempt's failure was kept quiet; the first use says it

    monkeypatch.delenv("OS_CLOUD", raising=False)
    monkeypatch.delenv("OS_AUTH_URL", raising=False)
    monkeypatch.delenv("OS_AUTH_TYPE", raising=False)
    attempts.clear()
    auth.cloud_factory(None, prewarm=True)
    assert attempts == []  # no cloud configured: nothing to warm up


class _CountingService(ServiceDescription):
    """A service whose proxy takes a while to make (as endpoint and version discovery do), counting each one."""

    def __init__(self, service_type: str) -> None:
        super().__init__(service_type=service_type)
        self.made = 0

    def _make_proxy(self, instance: Any) -> Any:
        self.made += 1
        time.sleep(0.05)  # every other thread asks meanwhile
        return _ServiceDisabledProxyShim(self.service_type, "not in this test's catalog")


def test_a_service_proxy_is_made_once_however_many_threads_ask_for_it_at_once() -> None:
    """The parallel reads of a refresh all ask for ``conn.network`` together (here by its name and an alias, as
    openstacksdk's ``cluster`` for ``clustering``): one proxy is made and every thread gets it."""
    service = _CountingService("network")

    class Connection:
        _strict_proxies = False
        network = service
        net = service

        def __init__(self) -> None:
            self._proxies: dict[str, Any] = {}

    conn = one_proxy_per_service(Connection, ServiceDescription)()
    start = threading.Barrier(8)
    got: list[Any] = []

    def ask(alias: bool) -> None:
        start.wait()
        got.append(conn.net if alias else conn.network)

    threads = [threading.Thread(target=ask, args=(i % 2 == 0,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert service.made == 1
    assert len(got) == 8 and all(p is got[0] for p in got)
    assert conn.network is got[0] and service.made == 1
    assert isinstance(conn, Connection)
