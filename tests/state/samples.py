"""Sample state documents for the state tests."""

from __future__ import annotations

from hotc.state.document import DeposedInstance, OutputState, ParameterRecord, ResourceState, StackState

LINEAGE = "0b6c7a3e-6f59-4d0f-9a57-1d2f3c4b5a69"


def full_state() -> StackState:
    """A state using every field: groups, nested members, a deposed instance, hidden values, outputs."""
    return StackState(
        lineage=LINEAGE,
        serial=7,
        stack_name="web",
        status="UPDATE_COMPLETE",
        status_reason="Stack UPDATE completed successfully",
        template_digest="sha256:" + "ab" * 32,
        template={
            "main": "web.yaml",
            "files": {"web.yaml": "heat_template_version: 2018-08-31\n"},
            "environments": ["env.yaml"],
        },
        parameters={
            "flavor": ParameterRecord(value="m1.small"),
            "count": ParameterRecord(value=3),
            "db_password": ParameterRecord(hidden=True, digest="sha256:" + "cd" * 32),
        },
        resources={
            "net": ResourceState(
                address="net",
                type="OS::Neutron::Net",
                physical_id="6f1e0d6e-0000-4000-8000-000000000001",
                status="CREATE_COMPLETE",
                properties={"name": "web-net", "admin_state_up": True},
                attributes={"mtu": 1450},
                created_at="2026-01-02T03:04:05.000000Z",
            ),
            "servers[0]": ResourceState(
                address="servers[0]",
                type="OS::Nova::Server",
                physical_id="srv-0",
                status="UPDATE_FAILED",
                status_reason="Quota exceeded",
                properties={
                    "flavor": "m1.small",
                    "networks": [{"network": "web-net"}],
                    "user_data": "password=s3cret",
                },
                dependencies=("net",),
                deletion_policy="Retain",
                sensitive_paths=("user_data",),
                deposed=(DeposedInstance(physical_id="srv-0-old", properties={"flavor": "m1.tiny"}),),
                metadata={"role": "web"},
            ),
            "app.db": ResourceState(
                address="app.db",
                type="OS::Trove::Instance",
                physical_id=None,
                status="CREATE_IN_PROGRESS",
                dependencies=("net",),
            ),
        },
        outputs={
            "url": OutputState(value="http://10.0.0.5/", description="The URL"),
            "secret": OutputState(value="s3cret", sensitive=True),
            "broken": OutputState(error="servers[0] has no attribute 'foo'"),
        },
        created_at="2026-01-02T03:04:05.000000Z",
        updated_at="2026-01-03T03:04:05.000000Z",
    )


def counter_state(stack: str, n: int, lineage: str = LINEAGE) -> StackState:
    """A state whose content is a counter (for read-modify-write races)."""
    return StackState(lineage=lineage, serial=0, stack_name=stack, outputs={"counter": OutputState(value=n)})


def counter(state: StackState | None) -> int:
    return 0 if state is None else int(state.outputs["counter"].value)
