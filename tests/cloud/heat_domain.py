"""Heat's stack-user domain and its admin, and the heat_stack_owner/heat_stack_user roles (idempotent)."""

from typing import Any

import openstack


def main() -> None:
    idp: Any = openstack.connect(cloud="hotc-test").identity
    dom = idp.find_domain("heat") or idp.create_domain(name="heat", description="Heat stack users")
    user = idp.find_user("heat_domain_admin", domain_id=dom.id) or idp.create_user(
        name="heat_domain_admin", password="heat", domain_id=dom.id
    )
    idp.assign_domain_role_to_user(dom, user, idp.find_role("admin"))
    for role in ("heat_stack_owner", "heat_stack_user"):
        idp.find_role(role) or idp.create_role(name=role)
    print("heat domain", dom.id)


if __name__ == "__main__":
    main()
