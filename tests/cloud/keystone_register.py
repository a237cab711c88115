"""Idempotently create the service project, service users, the demo project/user and the catalog.

Every endpoint is on 127.0.0.1. Run with the service venv's python; OS_CLIENT_CONFIG_FILE must name the
clouds.yaml that setup.sh wrote (cloud ``hotc-test``, admin).
"""

import sys
from typing import Any

import openstack

SERVICES = [  # user, service name, type, url
    ("placement", "placement", "placement", "http://127.0.0.1:8778"),
    ("nova", "nova", "compute", "http://127.0.0.1:8774/v2.1"),
    ("neutron", "neutron", "network", "http://127.0.0.1:9696"),
    ("cinder", "cinderv3", "block-storage", "http://127.0.0.1:8776/v3"),
    ("cinder", "cinderv3-legacy", "volumev3", "http://127.0.0.1:8776/v3"),
    ("glance", "glance", "image", "http://127.0.0.1:9292"),
    ("octavia", "octavia", "load-balancer", "http://127.0.0.1:9876"),
    ("heat", "heat", "orchestration", "http://127.0.0.1:8004/v1/%(project_id)s"),
    ("heat", "heat-cfn", "cloudformation", "http://127.0.0.1:8000/v1"),
]
#: services in their own venvs, registered by their own setup script (``keystone_register.py NAME``)
OPTIONAL = {
    "aodh": [("aodh", "aodh", "alarming", "http://127.0.0.1:8042")],
    "barbican": [("barbican", "barbican", "key-manager", "http://127.0.0.1:9311")],
    "mistral": [("mistral", "mistral", "workflowv2", "http://127.0.0.1:8989/v2")],
    "designate": [("designate", "designate", "dns", "http://127.0.0.1:9001")],
    "manila": [("manila", "manilav2", "sharev2", "http://127.0.0.1:8786/v2")],
}


def main() -> None:
    conn = openstack.connect(cloud="hotc-test")
    idp: Any = conn.identity  # v3 at runtime; typed as v2|v3 by openstacksdk
    dom = idp.find_domain("default")
    svc_proj = idp.find_project("service") or idp.create_project(name="service", domain_id=dom.id)
    demo_proj = idp.find_project("demo") or idp.create_project(name="demo", domain_id=dom.id)
    admin_role = idp.find_role("admin")
    member_role = idp.find_role("member")
    service_role = idp.find_role("service")
    demo = idp.find_user("demo") or idp.create_user(
        name="demo", password="demo", domain_id=dom.id, default_project_id=demo_proj.id
    )
    idp.assign_project_role_to_user(demo_proj, demo, member_role)
    admin = idp.find_user("admin")
    idp.assign_project_role_to_user(demo_proj, admin, admin_role)
    names = sys.argv[1:]
    services = [s for n in names for s in OPTIONAL[n]] if names else SERVICES
    for user, name, stype, url in services:
        u = idp.find_user(user) or idp.create_user(name=user, password=user, domain_id=dom.id)
        idp.assign_project_role_to_user(svc_proj, u, admin_role)
        if service_role:
            idp.assign_project_role_to_user(svc_proj, u, service_role)
        found = list(idp.services(name=name))
        svc = found[0] if found else idp.create_service(name=name, type=stype, enabled=True)
        have = {e.interface for e in idp.endpoints(service_id=svc.id)}
        for iface in ("public", "internal", "admin"):
            if iface not in have:
                idp.create_endpoint(service_id=svc.id, interface=iface, url=url, region_id="RegionOne")
    print("registered:", sorted((stype, name) for _, name, stype, _ in services))


if __name__ == "__main__":
    main()
