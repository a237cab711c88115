"""Offline checks of the live properties the new built-in drivers (server group, volume type, Keystone project)
report: what a read gives back compares equal to what the template wrote, and a real difference shows."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hotc.providers.openstack.keystone.project import ProjectDriver, stamp_tags
from hotc.providers.openstack.nova.server_group import ServerGroupDriver
from tests.providers.test_openstack_common import make_ctx


def _group(**kw: Any) -> SimpleNamespace:
    base = {"id": "g1", "name": "grp", "policy": "affinity", "policies": None, "rules": {}}
    base.update(kw)
    return SimpleNamespace(to_dict=lambda: dict(base), **base)


def test_server_group_live_policies_follow_heat_first_policy_rule() -> None:
    ctx = make_ctx(None, "sg", "OS::Nova::ServerGroup")
    d = ServerGroupDriver()
    props = {"name": "grp", "policies": ["affinity", "anti-affinity"], "rules": None}
    # Heat creates the group with the first policy: the longer list is what the live group is
    assert d.read_outcome(ctx, None, _group(), props).properties == props
    changed = d.read_outcome(ctx, None, _group(policy="soft-affinity"), props).properties
    assert changed is not None and changed["policies"] == ["soft-affinity"]
    # Nova < 2.64 shows a list; a rule written as a number compares equal to Nova's integer
    old_nova = _group(policy=None, policies=["anti-affinity"], rules={"max_server_per_host": 2})
    props2 = {"name": "grp", "policies": ["anti-affinity"], "rules": {"max_server_per_host": 2.0}}
    assert d.read_outcome(ctx, None, old_nova, props2).properties == props2
    more = _group(policy="anti-affinity", rules={"max_server_per_host": 3})
    got = d.read_outcome(ctx, None, more, props2).properties
    assert got is not None and got["rules"] == {"max_server_per_host": 3}


def test_project_tags_hide_the_stamp_and_keep_the_template_order() -> None:
    ctx = make_ctx(None, "group/0/proj", "OS::Keystone::Project")
    tags = stamp_tags(ctx)
    assert all("/" not in t and "," not in t for t in tags)  # Keystone refuses both in a tag
    live = SimpleNamespace(
        id="p1",
        name="proj",
        domain_id="default",
        parent_id="default",
        description="",
        is_enabled=True,
        is_domain=False,
        tags=["a", *tags, "z"],
    )
    live.to_dict = lambda: {"id": "p1"}
    props = {"name": "proj", "tags": ["z", "a"], "parent": None, "domain": "default", "enabled": True}
    out = ProjectDriver().read_outcome(ctx, None, live, props)
    # a top-level project's parent_id is its domain: reported as no parent
    assert out.properties == props
    assert out.attributes["domain_id"] == "default" and out.attributes["parent_id"] == "default"
