"""Progress lines, event formatting and nesting depth, driver-facing defaults."""

from __future__ import annotations

import io

from hotc.apply.events import format_event, nesting_depth, resource_event, stack_event
from hotc.apply.executor import ExecOptions, with_defaults
from hotc.apply.progress import PlainProgress, progress_for


def test_nesting_depth_counts_nested_stacks_not_group_members():
    assert nesting_depth("web") == 0
    assert nesting_depth("web[2]") == 0
    assert nesting_depth("app.db") == 1
    assert nesting_depth("app[2].db.port") == 2


def test_plain_progress_lines_and_secret_ids():
    buf = io.StringIO()
    p = PlainProgress(buf)
    p(stack_event("st", "CREATE_IN_PROGRESS"))
    p(resource_event("web", "OS::Nova::Server", "CREATE_IN_PROGRESS", "state changed"))
    p(resource_event("web", "OS::Nova::Server", "CREATE_COMPLETE", "state changed", "abc"))
    p(resource_event("pw", "OS::Heat::RandomString", "CREATE_COMPLETE", "state changed", "s3cret"))
    p(resource_event("db", "OS::Trove::Instance", "CREATE_FAILED", "quota exceeded"))
    p.log("web", "retry 1/5")
    lines = buf.getvalue().splitlines()
    assert lines[0] == "web: CREATE_IN_PROGRESS"
    assert lines[1].startswith("web: CREATE_COMPLETE after ") and lines[1].endswith("[id=abc]")
    assert "s3cret" not in buf.getvalue()
    assert lines[3] == "db: CREATE_FAILED: quota exceeded" and lines[4] == "web: retry 1/5"
    assert progress_for(buf).__class__ is PlainProgress  # not a terminal
    e = resource_event("a.b", "T", "DELETE_COMPLETE", "gone")
    assert format_event(e).endswith("[a.b]: DELETE_COMPLETE: gone")


def test_drivers_get_schema_defaults_and_unknown_types_as_given():
    sub = with_defaults("OS::Neutron::Subnet", {"cidr": "10.0.0.0/24", "network": "n"})
    assert sub["ip_version"] == 4 and sub["enable_dhcp"] is True and sub["cidr"] == "10.0.0.0/24"
    assert with_defaults("Made::Up", {"x": 1}) == {"x": 1}


def test_timeouts_per_type_and_for_all():
    o = ExecOptions(timeouts={"OS::Nova::Server": 60})
    assert o.timeout_for("OS::Nova::Server") == 60 and o.timeout_for("OS::Neutron::Net") == o.default_timeout
    assert ExecOptions(timeouts={"*": 5}).timeout_for("OS::Nova::Server") == 5
