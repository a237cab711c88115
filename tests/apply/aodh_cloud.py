"""What the Aodh cloud tests share: Aodh's REST API through openstacksdk's ``alarming`` adapter, and a fixture that
deletes every alarm named with the test's prefix at the end (hotc's and Heat's alarm names start with it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


def aodh(cloud: Any, method: str, path: str, body: Any = None) -> Any:
    """One Aodh v2 call; its JSON, or None for a 404 (gone) or an empty answer."""
    r = cloud.alarming.request(path, method, json=body)
    assert r.status_code < 400 or r.status_code == 404, r.text
    return None if r.status_code in (204, 404) or not r.content else r.json()


@pytest.fixture
def alarms_cleanup(cloud: Any, cloud_tracker: Any) -> Iterator[None]:
    def sweep() -> None:
        for a in aodh(cloud, "GET", "/alarms") or []:
            if str(a.get("name", "")).startswith(cloud_tracker.prefix):
                aodh(cloud, "DELETE", f"/alarms/{a['alarm_id']}")

    cloud_tracker.defer("aodh alarms", sweep)
    yield
