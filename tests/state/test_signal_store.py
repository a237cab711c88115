"""The signal store: where it is configured, what its presigned URLs allow, how it keeps several signals."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hotc.errors import HotcError
from hotc.state.config import resolve_backend_config
from hotc.state.signal_store import SignalStore, resolve_signal_store
from tests.fixtures.s3 import S3Bucket, S3Server


def _resolve(cwd: Path, url: str | None = None, backend: str | None = None, **env: str):  # type: ignore[no-untyped-def]
    return resolve_signal_store(url, cwd, env, resolve_backend_config(backend, cwd, {}))


def test_where_the_store_comes_from(tmp_path: Path) -> None:
    assert _resolve(tmp_path) is None  # a local state has no default store
    s3 = _resolve(tmp_path, backend="s3://state-bucket/team")
    assert s3 is not None and (s3.bucket, s3.prefix) == ("state-bucket", "team/signals")
    (tmp_path / "hotc.toml").write_text(
        '[signals]\nurl = "s3://from-toml/p"\nurl_lifetime = 3600\npath_style = true\n'
    )
    t = _resolve(tmp_path, backend="s3://state-bucket/team")
    assert t is not None and (t.bucket, t.prefix, t.url_lifetime) == ("from-toml", "p", 3600)
    assert t.options["path_style"] is True
    e = _resolve(tmp_path, HOTC_SIGNAL_STORE="s3://from-env/q")
    assert e is not None and e.bucket == "from-env"
    c = _resolve(
        tmp_path, "s3://from-flag", HOTC_SIGNAL_STORE="s3://from-env/q", HOTC_SIGNAL_URL_LIFETIME="60"
    )
    assert c is not None and (c.bucket, c.prefix, c.url_lifetime) == ("from-flag", "", 60)


def test_bad_store_settings_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(HotcError, match="not an S3 URL"):
        _resolve(tmp_path, "/some/dir")
    with pytest.raises(HotcError, match="between 1 and 604800 seconds"):
        _resolve(tmp_path, "s3://b/p", HOTC_SIGNAL_URL_LIFETIME="700000")
    (tmp_path / "hotc.toml").write_text('[signals]\nurl = "s3://b"\nlifetime = 5\n')
    with pytest.raises(HotcError, match="unknown \\[signals\\] option 'lifetime'"):
        _resolve(tmp_path)


def test_presigned_put_keeps_every_signal(s3_bucket: S3Bucket) -> None:
    cfg = resolve_signal_store(
        f"s3://{s3_bucket.name}/sig", Path("."), {"HOTC_SIGNAL_URL_LIFETIME": "300"}, None
    )
    assert cfg is not None
    store = SignalStore(cfg)
    key = store.key("stack", "handles", "abc")
    url = store.presign(key, "PUT")
    assert store.key_of_url(url) == key and "X-Amz-Expires=300" in url
    # (the content type is not signed, so any is accepted; curl's default form type would make moto's
    # werkzeug front end swallow the body, which real S3 does not do, so JSON is sent as JSON as curl_cli does)
    for body in ('{"status": "SUCCESS"}', '{"id": "2"}'):
        r = subprocess.run(
            [
                "curl",
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-X",
                "PUT",
                "-H",
                "Content-Type: application/json",
            ]
            + ["--data-binary", body, url],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert r.stdout == "200"
    assert store.versions(key) == [b'{"status": "SUCCESS"}', b'{"id": "2"}']  # oldest first, both kept
    # (that the URL allows PUT only is S3's SigV4 rule, the method being signed; moto does not check presigned
    # signatures, so it cannot be shown here)
    store.check(need_versions=True)  # a versioned bucket passes the probe
    store.delete_all(key)
    assert store.versions(key) == []


def test_an_unversioned_store_fails_the_probe_for_several_signals(moto_s3: S3Server) -> None:
    bucket = moto_s3.make_bucket(versioning=False)
    cfg = resolve_signal_store(
        f"s3://{bucket}/sig", Path("."), {"AWS_ENDPOINT_URL_S3": moto_s3.endpoint}, None
    )
    assert cfg is not None
    store = SignalStore(cfg, client=moto_s3.client())
    store.check(need_versions=False)
    with pytest.raises(HotcError, match="does not keep object versions"):
        store.check(need_versions=True)
