"""The token kept between hotc processes (hotc.providers.openstack.token_cache): encrypted with a key from the
login's secret, private files, a miss (never an error) for another secret, an expiring token, a broken file;
no cache for logins without a secret or when turned off. On the test cloud: a second process makes no token
request, and a token the cloud refuses is replaced (keystoneauth logs in again) and the new one kept."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hotc.providers.openstack import token_cache
from hotc.providers.openstack.token_cache import TokenCache, cache_dir

AUTH = {
    "auth_url": "http://keystone.example:5000/v3",
    "username": "alice",
    "password": "s3cret-pass",
    "project_name": "demo",
    "user_domain_name": "Default",
    "project_domain_name": "Default",
}
STATE = json.dumps({"auth_token": "gAAAA-the-token-itself", "body": {"token": {"catalog": []}}})


def cache_url(auth_module: Any) -> str:
    region = auth_module._config(None)
    cache = TokenCache.for_config(region)
    assert cache is not None
    return str(cache.identity_url())


def _region(auth: dict[str, Any], **extra: Any) -> Any:
    return SimpleNamespace(config={"auth": auth, "auth_type": "password", **extra}, region_name="RegionOne")


def _env(tmp_path: Path, **kw: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **kw}


def test_a_kept_token_is_encrypted_private_and_read_back_with_the_same_login(tmp_path: Path) -> None:
    cache = TokenCache.for_config(_region(AUTH), _env(tmp_path))
    assert cache is not None
    assert cache.path.parent == tmp_path / "home" / ".cache" / "hotc" / "tokens"
    cache.save(STATE, time.time() + 3600)
    raw = cache.path.read_bytes()
    for clear in (b"gAAAA-the-token-itself", b"s3cret-pass", b"alice", b"catalog"):
        assert clear not in raw
    assert stat.S_IMODE(cache.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.path.parent.stat().st_mode) == 0o700
    # the file name says nothing secret, and the same login (another process) finds and reads it
    assert "s3cret" not in cache.path.name
    again = TokenCache.for_config(_region(dict(AUTH)), _env(tmp_path))
    assert again is not None and again.path == cache.path and again.load() == STATE


def test_another_secret_an_expiring_token_or_a_broken_file_is_a_miss(tmp_path: Path) -> None:
    cache = TokenCache.for_config(_region(AUTH), _env(tmp_path))
    assert cache is not None
    cache.save(STATE, time.time() + 3600)
    changed = TokenCache.for_config(_region({**AUTH, "password": "new-password"}), _env(tmp_path))
    assert changed is not None and changed.path == cache.path  # the same identity, another secret
    assert changed.load() is None
    cache.save(STATE, time.time() + token_cache.MIN_LEFT - 5)
    assert cache.load() is None
    cache.path.write_text("{not json")
    assert cache.load() is None
    other_project = TokenCache.for_config(_region({**AUTH, "project_name": "other"}), _env(tmp_path))
    assert other_project is not None and other_project.path != cache.path


def test_no_cache_without_a_secret_or_when_turned_off(tmp_path: Path) -> None:
    token_login = {"auth_url": AUTH["auth_url"], "token": "abc"}
    assert TokenCache.for_config(_region(token_login), _env(tmp_path)) is None
    assert TokenCache.for_config(_region(AUTH), _env(tmp_path, HOTC_TOKEN_CACHE="0")) is None
    assert cache_dir(_env(tmp_path, HOTC_TOKEN_CACHE=str(tmp_path / "d"))) == tmp_path / "d"
    assert cache_dir(_env(tmp_path, XDG_CACHE_HOME=str(tmp_path / "x"))) == tmp_path / "x" / "hotc" / "tokens"
    appcred = {
        "auth_url": AUTH["auth_url"],
        "application_credential_id": "i",
        "application_credential_secret": "s",
    }
    assert TokenCache.for_config(_region(appcred), _env(tmp_path)) is not None


def test_an_unwritable_cache_is_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = TokenCache.for_config(_region(AUTH), _env(tmp_path, HOTC_TOKEN_CACHE=str(blocker / "sub")))
    assert cache is not None
    cache.save(STATE, time.time() + 3600)  # no error
    assert cache.load() is None


class _Answer:
    def __init__(self, status: int, body: Any) -> None:
        self.status_code = status
        self._body = body

    def json(self) -> Any:
        return self._body


class _Session:
    def __init__(self, answer: _Answer | Exception) -> None:
        self.answer = answer
        self.asked: list[tuple[str, dict[str, str], bool]] = []

    def get(self, url: str, *, headers: dict[str, str], authenticated: bool, raise_exc: bool) -> _Answer:
        self.asked.append((url, headers, authenticated))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_a_kept_token_is_installed_with_the_catalog_keystone_gives_now() -> None:
    now = {"token": {"catalog": [{"type": "dns", "endpoints": []}], "expires_at": "2099-01-01T00:00:00Z"}}
    session = _Session(_Answer(200, now))
    state = token_cache.current_state(SimpleNamespace(session=session), STATE, "http://k:5000/v3")
    assert state is not None and json.loads(state) == {"auth_token": "gAAAA-the-token-itself", "body": now}
    assert session.asked == [
        (
            "http://k:5000/v3/auth/tokens",
            {"X-Auth-Token": "gAAAA-the-token-itself", "X-Subject-Token": "gAAAA-the-token-itself"},
            False,
        )
    ]


@pytest.mark.parametrize(
    "answer", [_Answer(404, {"error": {}}), _Answer(200, {"not": "a token"}), ConnectionError("down")]
)
def test_a_kept_token_keystone_does_not_confirm_is_a_miss(answer: Any) -> None:
    conn = SimpleNamespace(session=_Session(answer))
    assert token_cache.current_state(conn, STATE, "http://k:5000/v3") is None
    assert token_cache.current_state(conn, "not json", "http://k:5000/v3") is None


def test_the_identity_url_is_keystones_v3() -> None:
    for url in ("http://k:5000/v3", "http://k:5000/v3/", "http://k:5000", "http://k:5000/"):
        assert TokenCache(Path("x"), {**AUTH, "auth_url": url}, "password", None).identity_url() == (
            "http://k:5000/v3"
        )
    assert TokenCache(Path("x"), {"username": "a"}, "password", None).identity_url() is None


def _list_one_network(conn: Any) -> None:
    """One authenticated Neutron request: a single page, so that networks other tests delete meanwhile
    cannot turn a pagination marker into a 404."""
    response = conn.network.get("/networks", params={"limit": 1})
    assert response.status_code == 200, response.text


@pytest.mark.cloud
def test_a_second_process_makes_no_token_request_and_a_refused_token_is_replaced(
    cloud: Any, cloud_config: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keystoneauth1 import session as ks_session

    from hotc.providers.openstack import auth

    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(cloud_config.config_file))
    monkeypatch.setenv("OS_CLOUD", cloud_config.cloud_name)
    monkeypatch.setenv("HOTC_TOKEN_CACHE", str(tmp_path / "tokens"))
    seen: list[str] = []
    orig = ks_session.Session.request

    def request(self: Any, url: str, method: str, **kw: Any) -> Any:
        seen.append(f"{method} {url}")
        return orig(self, url, method, **kw)

    monkeypatch.setattr(ks_session.Session, "request", request)
    first = auth.connect()
    assert any(s.startswith("POST") and s.endswith("/auth/tokens") for s in seen)
    assert len(list((tmp_path / "tokens").iterdir())) == 1
    seen.clear()
    second = auth.connect()  # as the next hotc process does
    assert second.current_project_id == first.current_project_id
    _list_one_network(second)
    # no login: one validation of the kept token, whose answer brings the current catalog
    assert not any(s.startswith("POST") and "/auth/tokens" in s for s in seen), seen
    assert [s for s in seen if "/auth/tokens" in s] == [f"GET {cache_url(auth)}/auth/tokens"], seen

    # a token kept with a catalog that lacks a service registered since (here: network removed from it)
    region = auth._config(None)
    kept_cache = TokenCache.for_config(region)
    assert kept_cache is not None
    state = json.loads(kept_cache.load() or "{}")
    state["body"]["token"]["catalog"] = [
        e for e in state["body"]["token"]["catalog"] if e.get("type") != "network"
    ]
    kept_cache.save(json.dumps(state), time.time() + 3600)
    third = auth.connect()
    _list_one_network(third)

    # a kept token the cloud refuses (revoked): keystoneauth logs in again on the 401, and the new one is kept
    region = auth._config(None)
    cache = TokenCache.for_config(region)
    assert cache is not None
    state = json.loads(cache.load() or "{}")
    state["auth_token"] = "gAAAAArevoked"
    cache.save(json.dumps(state), time.time() + 3600)
    seen.clear()
    get = auth.cloud_factory(None)
    conn = get()
    _list_one_network(conn)
    assert any("/auth/tokens" in s for s in seen)
    get()
    assert json.loads(cache.load() or "{}")["auth_token"] not in ("gAAAAArevoked", None)
