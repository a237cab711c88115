"""The cloud fixtures' own behaviour, without a cloud: where they look, and skip vs fail vs deselect."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.fixtures.cloud import CloudConfig, CloudUnavailable, connect, unique_prefix

REPO = Path(__file__).resolve().parents[2]


def test_config_defaults_and_env_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOTC_CLOUD_DIR", raising=False)
    assert CloudConfig.from_env({}) == CloudConfig(Path("/opt/hotc-cloud/etc/clouds.yaml"), "hotc-test")
    cfg = CloudConfig.from_env({"OS_CLIENT_CONFIG_FILE": "/x/c.yaml", "OS_CLOUD": "other"})
    assert cfg == CloudConfig(Path("/x/c.yaml"), "other")
    assert cfg.env() == {"OS_CLIENT_CONFIG_FILE": "/x/c.yaml", "OS_CLOUD": "other"}
    monkeypatch.setenv("HOTC_CLOUD_DIR", "/srv/c")
    assert CloudConfig.from_env({}).config_file == Path("/srv/c/etc/clouds.yaml")


def test_connect_says_why_when_no_clouds_yaml(tmp_path: Path) -> None:
    with pytest.raises(CloudUnavailable, match=r"no clouds.yaml at .*missing.yaml.*setup.sh"):
        connect(CloudConfig(tmp_path / "missing.yaml", "hotc-test"))


def _unreachable_clouds_yaml(tmp_path: Path) -> Path:
    path = tmp_path / "clouds.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            clouds:
              hotc-test:
                auth: {auth_url: "http://127.0.0.1:9/v3", username: a, password: a, project_name: a,
                       user_domain_name: Default, project_domain_name: Default}
                region_name: RegionOne
            """
        )
    )
    return path


def test_connect_fails_fast_and_clearly_when_cloud_is_down(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(
        CloudUnavailable, match=r"cannot use cloud 'hotc-test' from .*clouds.yaml: .*setup.sh"
    ):
        connect(CloudConfig(_unreachable_clouds_yaml(tmp_path), "hotc-test"))
    assert time.monotonic() - start < 20


def test_unique_prefix_is_short_safe_and_unique() -> None:
    a, b = unique_prefix("test_Some_thing[param-1]"), unique_prefix("test_Some_thing[param-1]")
    assert a != b
    assert a.startswith("hotc-t-some-thing-") and len(a) <= 40
    assert all(ch.isalnum() or ch == "-" for ch in a)


PROBE = """
import pytest

@pytest.mark.cloud
def test_marked():
    pass

def test_uses_fixture(cloud):
    pass

def test_plain():
    pass
"""


def _run_probe(tmp_path: Path, *args: str, require: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OS_", "HOTC_", "PYTEST_"))}
    env.update(
        PYTHONPATH=str(REPO),
        OS_CLIENT_CONFIG_FILE=str(_unreachable_clouds_yaml(tmp_path)),
        OS_CLOUD="hotc-test",
    )
    if require:
        env["HOTC_REQUIRE_CLOUD"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-p", "tests.fixtures.cloud", "-c", os.devnull]
    cmd += ["--rootdir", str(tmp_path), "-q", "-rA", "-p", "no:warnings"]
    return subprocess.run(
        [*cmd, *args, str(tmp_path / "test_probe.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cloud_tests_skip_without_cloud(tmp_path: Path) -> None:
    res = _run_probe(tmp_path, require=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "1 passed, 2 skipped" in res.stdout
    assert "test cloud unavailable: cannot use cloud 'hotc-test'" in res.stdout


def test_cloud_tests_fail_without_cloud_under_ci(tmp_path: Path) -> None:
    res = _run_probe(tmp_path, require=True)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "1 passed, 2 errors" in res.stdout
    assert "HOTC_REQUIRE_CLOUD is set but the test cloud is unusable" in res.stdout


def test_not_cloud_deselects_marked_and_fixture_users(tmp_path: Path) -> None:
    res = _run_probe(tmp_path, "-m", "not cloud", require=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "1 passed, 2 deselected" in res.stdout
