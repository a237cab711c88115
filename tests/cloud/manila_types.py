"""Idempotently create the test cloud's two Manila share types (admin-only): ``default`` on back end alpha
(driver_handles_share_servers false, the type a share without ``share_type`` gets) and ``dhss`` on back end
beta (true: shares on a share network). Run with the service venv's python; OS_CLIENT_CONFIG_FILE must name
the clouds.yaml that setup.sh wrote (cloud ``hotc-test``, admin)."""

from typing import Any

import openstack

TYPES = {"default": ("false", "ALPHA"), "dhss": ("true", "BETA")}
HEADERS = {"X-OpenStack-Manila-API-Version": "2.40"}


def main() -> None:
    conn = openstack.connect(cloud="hotc-test")
    share: Any = conn.shared_file_system
    listed = share.get("/types?is_public=all", headers=HEADERS)
    listed.raise_for_status()
    have = {t["name"] for t in listed.json()["share_types"]}
    for name, (dhss, backend) in TYPES.items():
        if name in have:
            continue
        body = {
            "share_type": {
                "name": name,
                "share_type_access:is_public": True,
                "extra_specs": {
                    "driver_handles_share_servers": dhss,
                    "share_backend_name": backend,
                    "snapshot_support": "true",
                },
            }
        }
        made = share.post("/types", json=body, headers=HEADERS)
        made.raise_for_status()
    print("share types:", sorted(TYPES))


if __name__ == "__main__":
    main()
