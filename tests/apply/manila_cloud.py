"""What the Manila cloud tests share: Manila's API at Heat's microversion, and a sweep of everything a test named
with its prefix (snapshots, then shares, each waited out, then share networks, security services and share types)."""

from __future__ import annotations

import time
from typing import Any

HEADERS = {"X-OpenStack-Manila-API-Version": "2.13"}


def api(cloud: Any, method: str, path: str, body: Any = None) -> Any:
    """One call of Manila's API: the JSON (None for a 404 or an empty answer); any other error fails the test."""
    kwargs: dict[str, Any] = {"headers": HEADERS}
    if body is not None:
        kwargs["json"] = body
    r = cloud.shared_file_system.request(path, method, **kwargs)
    if r.status_code == 404:
        return None
    assert r.status_code < 400, f"{method} {path}: {r.status_code} {r.text}"
    return r.json() if r.content else None


def get(cloud: Any, kind: str, key: str, oid: str) -> Any:
    got = api(cloud, "GET", f"/{kind}/{oid}")
    return None if got is None else got[key]


def access(cloud: Any, share_id: str) -> set[tuple[str, str, str]]:
    rules = api(cloud, "POST", f"/shares/{share_id}/action", {"access_list": None})["access_list"]
    return {(r["access_to"], r["access_type"], r["access_level"]) for r in rules}


def wait_share(
    cloud: Any, share_id: str, status: str = "available", timeout: float = 120, field: str = "status"
) -> Any:
    """The share once its FIELD (``status``; ``access_rules_status`` once Manila has applied its access rules,
    which Heat's create does not wait for) reads STATUS."""
    end = time.monotonic() + timeout
    while True:
        share = get(cloud, "shares", "share", share_id)
        if (share or {}).get(field) == status or time.monotonic() > end:
            assert share is not None and share[field] == status, share
            return share
        time.sleep(1)


def sweep(cloud: Any, prefix: str) -> None:
    """Delete every Manila object named with PREFIX (what a failed test leaves behind)."""

    def mine(items: Any) -> list[Any]:
        return [o for o in items or [] if str(o.get("name") or "").startswith(prefix)]

    snaps = mine((api(cloud, "GET", "/snapshots/detail") or {}).get("snapshots"))
    for sn in snaps:  # a share with a snapshot cannot be deleted
        api(cloud, "DELETE", f"/snapshots/{sn['id']}")
    end = time.monotonic() + 120
    while snaps and time.monotonic() < end:
        snaps = [sn for sn in snaps if get(cloud, "snapshots", "snapshot", sn["id"]) is not None]
        time.sleep(1)
    shares = mine((api(cloud, "GET", "/shares/detail") or {}).get("shares"))
    for s in shares:
        api(cloud, "DELETE", f"/shares/{s['id']}")
    end = time.monotonic() + 120
    while shares and time.monotonic() < end:
        shares = [s for s in shares if get(cloud, "shares", "share", s["id"]) is not None]
        time.sleep(1)
    for kind, key in (("share-networks", "share_networks"), ("security-services", "security_services")):
        for o in mine((api(cloud, "GET", f"/{kind}/detail") or {}).get(key)):
            for _ in range(60):  # a share network is busy while its share servers are torn down
                r = cloud.shared_file_system.request(f"/{kind}/{o['id']}", "DELETE", headers=HEADERS)
                if r.status_code != 409:
                    break
                time.sleep(1)
    for t in mine((api(cloud, "GET", "/types?is_public=all") or {}).get("share_types")):
        api(cloud, "DELETE", f"/types/{t['id']}")
