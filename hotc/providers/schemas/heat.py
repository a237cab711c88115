"""OS::Heat::* resource types. Most are in-process (service None); ``OS::Heat::Stack`` is Heat's *remote* stack
resource (service ``orchestration``); ordinary nested stacks are template resources, not this type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hotc.providers.base import AttrSchema, ResourceType
from hotc.providers.schemas._dsl import (
    allowed,
    any_,
    attrs,
    boolean,
    custom,
    integer,
    length_,
    list_,
    map_,
    number,
    range_,
    string,
)
from hotc.providers.schemas._rules import changed, known

_CHAR_CLASSES = allowed(
    "lettersdigits", "letters", "lowercase", "uppercase", "digits", "hexdigits", "octdigits"
)
_IO_TYPES = allowed("String", "Number", "CommaDelimitedList", "Json", "Boolean")
_SIGNAL_TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL")
_DEPLOY_ACTIONS = allowed("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")

# ------------------------------------------------------------------------------------------- RandomString


def random_string_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``RandomString.validate``: ``length`` must be at least the sum of the ``min`` of every character
    class and character sequence."""
    length = props.get("length", 32)
    total = 0
    for key in ("character_classes", "character_sequences"):
        items = props.get(key) or []
        if not known(items) or not isinstance(items, list):
            return []
        for item in items:
            if isinstance(item, Mapping):
                m = item.get("min", 1)
                total += m if isinstance(m, int) else 0
    if known(length) and isinstance(length, int) and total > length:
        return [
            (
                "length",
                f"length {length} is smaller than the combined character class and sequence minimums ({total})",
            )
        ]
    return []


RANDOM_STRING = ResourceType(
    name="OS::Heat::RandomString",
    properties={
        "length": integer(default=32, constraints=(range_(min=1, max=512),)),
        "sequence": string(constraints=(_CHAR_CLASSES,), hidden=True),
        "character_classes": list_(
            map_(
                {
                    "class": string(default="lettersdigits", constraints=(_CHAR_CLASSES,)),
                    "min": integer(default=1, constraints=(range_(min=1, max=512),)),
                }
            ),
            default=[{"class": "lettersdigits", "min": 1}],
        ),
        "character_sequences": list_(
            map_(
                {
                    "sequence": string(required=True),
                    "min": integer(default=1, constraints=(range_(min=1, max=512),)),
                }
            )
        ),
        "salt": string(),
    },
    attributes=attrs("value"),
    validators=(random_string_validate,),
    heat_class="heat.engine.resources.openstack.heat.random_string.RandomString",
)

# -------------------------------------------------------------------------------------------- Value, None

VALUE = ResourceType(
    name="OS::Heat::Value",
    properties={
        "value": any_(required=True, update=True),
        "type": string(
            update=True, constraints=(allowed("string", "number", "comma_delimited_list", "json", "boolean"),)
        ),
    },
    attributes=attrs("value"),
    attribute_sources={"value": "value"},
    heat_class="heat.engine.resources.openstack.heat.value.Value",
)

NONE = ResourceType(
    name="OS::Heat::None",
    properties={},
    attributes=attrs(),
    # NoneResource accepts any properties (it re-parses them against an empty schema) and its _needs_update
    # returns False: it is never updated nor replaced for a property change (a type change still replaces).
    never_updates=True,
    accepts_any_properties=True,
    heat_class="heat.engine.resources.openstack.heat.none_resource.NoneResource",
)

# ------------------------------------------------------------------------------------------- TestResource


def test_resource_value_replace(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``TestResource.needs_replace_with_prop_diff``: a ``value`` change replaces when the new
    ``update_replace`` is true."""
    if changed(old, new, "value") and new.get("update_replace") is True:
        return [("value", "value changed with update_replace: true")]
    return []


TEST_RESOURCE = ResourceType(
    name="OS::Heat::TestResource",
    properties={
        "constraint_prop_secs": number(default=0, update=True, constraints=(custom("test_constr"),)),
        "attr_wait_secs": number(default=0, update=True),
        "value": string(default="test_string", update=True),
        "update_replace_value": string(),
        "fail": boolean(default=False, update=True),
        "update_replace": boolean(default=False, update=True),
        "wait_secs": number(default=0, update=True),
        "action_wait_secs": map_(
            {
                "create": number(update=True),
                "update": number(update=True),
                "delete": number(update=True),
            },
            update=True,
        ),
        "client_name": string(default="", update=True),
        "entity_name": string(default="", update=True),
    },
    attributes=attrs("output"),
    attribute_sources={"output": "value"},
    replace_rules=(test_resource_value_replace,),
    heat_class="heat.engine.resources.openstack.heat.test_resource.TestResource",
)

# ------------------------------------------------------------------------------------------------ groups

RESOURCE_GROUP = ResourceType(
    name="OS::Heat::ResourceGroup",
    properties={
        "count": integer(default=1, update=True, constraints=(range_(min=0),)),
        "index_var": string(default="%index%", constraints=(length_(min=3),)),
        "resource_def": map_(
            {
                "type": string(required=True),
                "properties": map_(),
                "metadata": map_(),
            },
            required=True,
            update=True,
        ),
        "removal_policies": list_(map_({"resource_list": list_(default=[])}), default=[], update=True),
        "removal_policies_mode": string(
            default="append", update=True, constraints=(allowed("append", "update"),)
        ),
    },
    attributes=attrs("refs", "refs_map", "attributes", "removed_rsrc_list"),
    update_policy={
        "rolling_update": map_(
            {
                "min_in_service": integer(default=0, constraints=(range_(min=0),)),
                "max_batch_size": integer(default=1, constraints=(range_(min=1),)),
                "pause_time": number(default=0, constraints=(range_(min=0),)),
            }
        ),
        "batch_create": map_(
            {
                "max_batch_size": integer(default=1, constraints=(range_(min=1),)),
                "pause_time": number(default=0, constraints=(range_(min=0),)),
            }
        ),
    },
    heat_class="heat.engine.resources.openstack.heat.resource_group.ResourceGroup",
)


def asg_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``AutoScalingGroup.validate`` (inherited by the HOT group): ``min_size`` ≤ ``max_size`` and a
    given ``desired_capacity`` between them."""
    lo, hi, want = props.get("min_size"), props.get("max_size"), props.get("desired_capacity")
    out: list[tuple[str, str]] = []
    if not known(lo, hi, want) or not isinstance(lo, int) or not isinstance(hi, int):
        return out
    if hi < lo:
        out.append(("min_size", "min_size cannot be greater than max_size"))
    if isinstance(want, int) and (want < lo or want > hi):
        out.append(("desired_capacity", "desired_capacity must be between min_size and max_size"))
    return out


AUTO_SCALING_GROUP = ResourceType(
    name="OS::Heat::AutoScalingGroup",
    properties={
        "resource": map_(required=True, update=True),
        "max_size": integer(required=True, update=True, constraints=(range_(min=0),)),
        "min_size": integer(required=True, update=True, constraints=(range_(min=0),)),
        "cooldown": integer(update=True),
        "desired_capacity": integer(update=True),
        "rolling_updates": map_(
            {
                "min_in_service": integer(default=0, constraints=(range_(min=0),)),
                "max_batch_size": integer(default=1, constraints=(range_(min=1),)),
                "pause_time": number(default=0, constraints=(range_(min=0),)),
            },
            default={"min_in_service": 0, "max_batch_size": 1, "pause_time": 0},
            update=True,
        ),
    },
    attributes=attrs("outputs", "outputs_list", "current_size", "refs", "refs_map"),
    validators=(asg_validate,),
    heat_class="heat.engine.resources.openstack.heat.autoscaling_group.AutoScalingResourceGroup",
)


def scaling_policy_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``AutoScalingPolicy.validate``: ``min_adjustment_step`` only with percent_change_in_capacity
    (Heat's ResourcePropertyValueDependency, found at create)."""
    kind, step = props.get("adjustment_type"), props.get("min_adjustment_step")
    if not known(kind, step) or step is None or kind == "percent_change_in_capacity":
        return []
    return [
        (
            "min_adjustment_step",
            "min_adjustment_step property should only be specified for adjustment_type with value "
            "percent_change_in_capacity.",
        )
    ]


SCALING_POLICY = ResourceType(
    name="OS::Heat::ScalingPolicy",
    properties={
        "auto_scaling_group_id": string(required=True),
        "scaling_adjustment": number(required=True, update=True),
        "adjustment_type": string(
            required=True,
            update=True,
            constraints=(allowed("change_in_capacity", "exact_capacity", "percent_change_in_capacity"),),
        ),
        "cooldown": number(update=True),
        "min_adjustment_step": integer(update=True, constraints=(range_(min=0),)),
    },
    # hotc: both are URLs into the signal store (credentials): signal_url a presigned PUT, alarm_url the
    # watcher's receiver when one is configured (an alarm service POSTs), else the same PUT URL
    attributes={
        **attrs(),
        **{
            n: AttrSchema(description="a URL that triggers the policy (a credential)", sensitive=True)
            for n in ("alarm_url", "signal_url")
        },
    },
    validators=(scaling_policy_validate,),
    heat_class="heat.engine.resources.openstack.heat.scaling_policy.AutoScalingPolicy",
)

# ------------------------------------------------------------------------------ software configuration

_INPUT = map_(
    {
        "name": string(required=True),
        "description": string(),
        "type": string(default="String", constraints=(_IO_TYPES,)),
        "default": any_(),
        "replace_on_change": boolean(default=False),
    }
)
_OUTPUT = map_(
    {
        "name": string(required=True),
        "description": string(),
        "type": string(default="String", constraints=(_IO_TYPES,)),
        "error_output": boolean(default=False),
    }
)
_CONFIG_COMMON = {
    "group": string(default="Heat::Ungrouped"),
    "options": map_(),
    "inputs": list_(_INPUT),
    "outputs": list_(_OUTPUT),
}

# Configs are immutable by replacement: nothing is update_allowed, any change makes a new config id.
SOFTWARE_CONFIG = ResourceType(
    name="OS::Heat::SoftwareConfig",
    properties={**_CONFIG_COMMON, "config": string()},
    attributes=attrs("config"),
    attribute_sources={"config": "config"},
    heat_class="heat.engine.resources.openstack.heat.software_config.SoftwareConfig",
)

STRUCTURED_CONFIG = ResourceType(
    name="OS::Heat::StructuredConfig",
    properties={**_CONFIG_COMMON, "config": map_()},
    attributes=attrs("config"),
    attribute_sources={"config": "config"},
    heat_class="heat.engine.resources.openstack.heat.structured_config.StructuredConfig",
)

CLOUD_CONFIG = ResourceType(
    name="OS::Heat::CloudConfig",
    properties={"cloud_config": map_()},
    attributes=attrs("config"),
    heat_class="heat.engine.resources.openstack.heat.cloud_config.CloudConfig",
)

MULTIPART_MIME = ResourceType(
    name="OS::Heat::MultipartMime",
    properties={
        "group": string(default="Heat::Ungrouped"),
        "parts": list_(
            map_(
                {
                    "config": string(required=True),
                    "filename": string(),
                    "type": string(default="text", constraints=(allowed("text", "multipart"),)),
                    "subtype": string(),
                }
            ),
            default=[],
        ),
    },
    attributes=attrs("config"),
    heat_class="heat.engine.resources.openstack.heat.multi_part.MultipartMime",
)

_DEPLOYMENT_PROPERTIES = {
    "config": string(update=True),
    "server": string(required=True),
    "input_values": map_(update=True),
    "actions": list_(
        default=["CREATE", "UPDATE"], update=True, constraints=(_DEPLOY_ACTIONS,), set_like=True
    ),
    "name": string(update=True),
    # Heat's default is the engine option default_deployment_signal_transport, CFN_SIGNAL unless configured.
    "signal_transport": string(default="CFN_SIGNAL", constraints=(allowed(*_SIGNAL_TRANSPORTS),)),
}


def deployment_input_replace(
    old_config_inputs: Sequence[Mapping[str, Any]] | None,
    new_config_inputs: Sequence[Mapping[str, Any]] | None,
    old_input_values: Mapping[str, Any] | None,
    new_input_values: Mapping[str, Any] | None,
) -> list[tuple[str, str]]:
    """Mirrors ``SoftwareDeployment.handle_update``: the deployment is *replaced* when an input that the new
    config declares with ``replace_on_change: true``, and that the old config also declared, gets a different value
    (the deployment's ``input_values`` entry, else the input's ``default``). This needs the ``inputs`` of the
    config resources the deployment's ``config`` points at (old and new), so it is not one of the type's
    replace_rules: the planner calls it with those. Unknown new values count as changed."""
    old_values = dict(old_input_values or {})
    new_values = dict(new_input_values or {})
    before: dict[str, Any] = {}
    for inp in old_config_inputs or ():
        if isinstance(inp, Mapping) and isinstance(inp.get("name"), str):
            before[inp["name"]] = old_values.get(inp["name"], inp.get("default"))
    out: list[tuple[str, str]] = []
    for inp in new_config_inputs or ():
        if not isinstance(inp, Mapping) or inp.get("replace_on_change") is not True:
            continue
        name = inp.get("name")
        if not isinstance(name, str) or name not in before:
            continue
        value = new_values.get(name, inp.get("default"))
        if not known(value) or value != before[name]:
            out.append(
                (f"input_values.{name}", f"input {name} changed and its config declares replace_on_change")
            )
    return out


SOFTWARE_DEPLOYMENT = ResourceType(
    name="OS::Heat::SoftwareDeployment",
    properties=_DEPLOYMENT_PROPERTIES,
    attributes=attrs("deploy_stdout", "deploy_stderr", "deploy_status_code"),
    service=None,  # in-process, over the signal store (no Heat needed)
    heat_class="heat.engine.resources.openstack.heat.software_deployment.SoftwareDeployment",
)

STRUCTURED_DEPLOYMENT = ResourceType(
    name="OS::Heat::StructuredDeployment",
    properties={
        **_DEPLOYMENT_PROPERTIES,
        "input_key": string(default="get_input"),
        "input_values_validate": string(default="LAX", constraints=(allowed("LAX", "STRICT"),)),
    },
    attributes=attrs("deploy_stdout", "deploy_stderr", "deploy_status_code"),
    service=None,
    heat_class="heat.engine.resources.openstack.heat.structured_config.StructuredDeployment",
)

_GROUP_POLICY = {
    "rolling_update": map_(
        {
            "max_batch_size": integer(default=1, constraints=(range_(min=1),)),
            "pause_time": number(default=0, constraints=(range_(min=0),)),
        }
    ),
    "batch_create": map_(
        {
            "max_batch_size": integer(default=1, constraints=(range_(min=1),)),
            "pause_time": number(default=0, constraints=(range_(min=0),)),
        }
    ),
}
_GROUP_PROPERTIES = {
    "servers": map_(required=True, update=True),
    **{k: v for k, v in _DEPLOYMENT_PROPERTIES.items() if k != "server"},
}
_GROUP_ATTRS = attrs("deploy_stdouts", "deploy_stderrs", "deploy_status_codes")

SOFTWARE_DEPLOYMENT_GROUP = ResourceType(
    name="OS::Heat::SoftwareDeploymentGroup",
    properties=_GROUP_PROPERTIES,
    attributes=_GROUP_ATTRS,
    update_policy=_GROUP_POLICY,
    heat_class="heat.engine.resources.openstack.heat.software_deployment.SoftwareDeploymentGroup",
)

SOFTWARE_DEPLOYMENTS = ResourceType(
    name="OS::Heat::SoftwareDeployments",
    properties=_GROUP_PROPERTIES,
    attributes=_GROUP_ATTRS,
    update_policy=_GROUP_POLICY,
    support="hidden",
    description="deprecated: use OS::Heat::SoftwareDeploymentGroup",
    heat_class="heat.engine.resources.openstack.heat.software_deployment.SoftwareDeployments",
)

_STRUCTURED_GROUP_PROPERTIES = {
    **_GROUP_PROPERTIES,
    "input_key": string(default="get_input"),
    "input_values_validate": string(default="LAX", constraints=(allowed("LAX", "STRICT"),)),
}

STRUCTURED_DEPLOYMENT_GROUP = ResourceType(
    name="OS::Heat::StructuredDeploymentGroup",
    properties=_STRUCTURED_GROUP_PROPERTIES,
    attributes=_GROUP_ATTRS,
    update_policy=_GROUP_POLICY,
    heat_class="heat.engine.resources.openstack.heat.structured_config.StructuredDeploymentGroup",
)

STRUCTURED_DEPLOYMENTS = ResourceType(
    name="OS::Heat::StructuredDeployments",
    properties=_STRUCTURED_GROUP_PROPERTIES,
    attributes=_GROUP_ATTRS,
    update_policy=_GROUP_POLICY,
    support="hidden",
    description="deprecated: use OS::Heat::StructuredDeploymentGroup",
    heat_class="heat.engine.resources.openstack.heat.structured_config.StructuredDeployments",
)


def component_actions_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``SoftwareComponent.validate``: one lifecycle action belongs to one config at most."""
    configs = props.get("configs")
    if not known(configs) or not isinstance(configs, list):
        return []
    seen: set[str] = set()
    for i, item in enumerate(configs):
        actions = item.get("actions", ["CREATE", "UPDATE"]) if isinstance(item, Mapping) else None
        if not known(actions) or not isinstance(actions, list):
            continue
        if any(a in seen for a in actions):
            return [
                (
                    f"configs[{i}].actions",
                    "Defining more than one configuration for the same action in SoftwareComponent is not "
                    "allowed.",
                )
            ]
        seen.update(a for a in actions if isinstance(a, str))
    return []


SOFTWARE_COMPONENT = ResourceType(
    name="OS::Heat::SoftwareComponent",
    properties={
        "configs": list_(
            map_(
                {
                    "actions": list_(string(), default=["CREATE", "UPDATE"], constraints=(length_(min=1),)),
                    "config": string(),
                    "tool": string(required=True),
                }
            ),
            required=True,
            constraints=(length_(min=1),),
        ),
        "inputs": list_(_INPUT),
        "outputs": list_(_OUTPUT),
        "options": map_(),
    },
    attributes=attrs("config"),
    validators=(component_actions_validate,),
    heat_class="heat.engine.resources.openstack.heat.software_component.SoftwareComponent",
)

_CONFIG_TRANSPORTS = ("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE")

DEPLOYED_SERVER = ResourceType(
    name="OS::Heat::DeployedServer",
    properties={
        "name": string(update=True),
        "metadata": map_(update=True),  # deprecated in Heat: ignored
        # Heat's default is the engine option default_software_config_transport (POLL_SERVER_CFN unless set);
        # hotc serves POLL_TEMP_URL only (the plan refuses the others)
        "software_config_transport": string(
            default="POLL_SERVER_CFN", update=True, constraints=(allowed(*_CONFIG_TRANSPORTS),)
        ),
        "deployment_swift_data": map_(
            {
                "container": string(constraints=(length_(min=1),)),
                "object": string(constraints=(length_(min=1),)),
            },
            default={},
            update=True,
        ),
    },
    attributes={
        **attrs("name"),
        "os_collect_config": AttrSchema(
            description="the os-collect-config settings for the server (holds a presigned URL: a credential)",
            type="map",
            sensitive=True,
        ),
    },
    heat_class="heat.engine.resources.openstack.heat.deployed_server.DeployedServer",
)

# ---------------------------------------------------------------------------------------- wait conditions

_SERVICE_TRANSPORTS = {
    "CFN_SIGNAL": "Heat's CloudFormation-compatible API",
    "HEAT_SIGNAL": "Heat's API",
    "ZAQAR_SIGNAL": "the Zaqar messaging service",
}


def handle_transport_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """hotc, not Heat: a handle's transport that needs a Heat or Zaqar service cannot work without one."""
    t = props.get("signal_transport")
    if isinstance(t, str) and t in _SERVICE_TRANSPORTS:
        return [
            (
                "signal_transport",
                f"signal_transport {t} needs {_SERVICE_TRANSPORTS[t]}, which hotc does not have; use "
                "TOKEN_SIGNAL (the default) or TEMP_URL_SIGNAL (a presigned URL to PUT to), or NO_SIGNAL",
            )
        ]
    return []


# Attributes holding a presigned signal URL: credentials, so what reads them is sensitive.
_SECRET = AttrSchema(description="holds a presigned signal URL (a credential)", sensitive=True)

WAIT_CONDITION = ResourceType(
    name="OS::Heat::WaitCondition",
    properties={
        "handle": string(required=True),
        "timeout": number(required=True, constraints=(range_(min=1, max=43200),)),
        "count": integer(default=1, update=True, constraints=(range_(min=1),)),
    },
    attributes=attrs("data"),
    heat_class="heat.engine.resources.openstack.heat.wait_condition.HeatWaitCondition",
)

WAIT_CONDITION_HANDLE = ResourceType(
    name="OS::Heat::WaitConditionHandle",
    properties={
        "signal_transport": string(
            default="TOKEN_SIGNAL", constraints=(allowed(*_SIGNAL_TRANSPORTS, "TOKEN_SIGNAL"),)
        ),
    },
    attributes={**attrs(), **{n: _SECRET for n in ("token", "endpoint", "curl_cli", "signal")}},
    validators=(handle_transport_validate,),
    heat_class="heat.engine.resources.openstack.heat.wait_condition_handle.HeatWaitConditionHandle",
)

SWIFT_SIGNAL_HANDLE = ResourceType(
    name="OS::Heat::SwiftSignalHandle",
    properties={},
    attributes={**attrs(), **{n: _SECRET for n in ("token", "endpoint", "curl_cli")}},
    heat_class="heat.engine.resources.openstack.heat.swiftsignal.SwiftSignalHandle",
)

SWIFT_SIGNAL = ResourceType(
    name="OS::Heat::SwiftSignal",
    properties={
        "handle": string(required=True),
        "timeout": number(required=True, constraints=(range_(min=1, max=43200),)),
        "count": integer(default=1, constraints=(range_(min=1, max=1000),)),
    },
    attributes=attrs("data"),
    heat_class="heat.engine.resources.openstack.heat.swiftsignal.SwiftSignal",
)

AWS_WAIT_CONDITION_HANDLE = ResourceType(
    name="AWS::CloudFormation::WaitConditionHandle",
    properties={},
    attributes={**attrs(), "endpoint": _SECRET},
    heat_class="heat.engine.resources.aws.cfn.wait_condition_handle.WaitConditionHandle",
)

UPDATE_WAIT_CONDITION_HANDLE = ResourceType(
    name="OS::Heat::UpdateWaitConditionHandle",
    properties={},
    attributes={**attrs(), "endpoint": _SECRET},
    # UpdateWaitConditionHandle.update raises UpdateReplace: a new handle (and URL, no signals) on every update
    always_replace=lambda _props: "an UpdateWaitConditionHandle is replaced on every stack update",
    heat_class="heat.engine.resources.openstack.heat.wait_condition_handle.UpdateWaitConditionHandle",
)

AWS_WAIT_CONDITION = ResourceType(
    name="AWS::CloudFormation::WaitCondition",
    properties={
        "Handle": string(required=True),
        "Timeout": number(required=True, constraints=(range_(min=1, max=43200),)),
        "Count": number(default=1, update=True, constraints=(range_(min=1),)),
    },
    attributes=attrs("Data"),
    heat_class="heat.engine.resources.aws.cfn.wait_condition.WaitCondition",
)

# ------------------------------------------------------------------------------------------ remote Stack


def remote_stack_region_replace(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``RemoteStack.needs_replace_with_prop_diff``: ``context`` is update_allowed but a change of
    ``context.region_name`` replaces the remote stack (it lives in another region)."""
    if not changed(old, new, "context"):
        return []
    before = old.get("context") or {}
    after = new.get("context") or {}
    if not isinstance(after, Mapping) or not isinstance(before, Mapping):
        return [("context.region_name", "context is known only after apply")]
    if changed(before, after, "region_name"):
        return [("context.region_name", "context.region_name changed: the stack moves to another region")]
    return []


STACK = ResourceType(
    name="OS::Heat::Stack",
    properties={
        "context": map_(
            {
                "region_name": string(),
                "credential_secret_id": string(update=True),
                "ca_cert": string(update=True),
                "insecure": boolean(default=False, update=True),
            },
            update=True,
        ),
        "template": string(required=True, update=True),
        "timeout": integer(update=True),
        "parameters": map_(default={}, update=True),
    },
    attributes=attrs("stack_name", "outputs"),
    replace_rules=(remote_stack_region_replace,),
    service="orchestration",
    heat_class="heat.engine.resources.openstack.heat.remote_stack.RemoteStack",
)

TYPES = (
    RANDOM_STRING,
    VALUE,
    NONE,
    TEST_RESOURCE,
    RESOURCE_GROUP,
    AUTO_SCALING_GROUP,
    SCALING_POLICY,
    SOFTWARE_CONFIG,
    SOFTWARE_DEPLOYMENT,
    STRUCTURED_CONFIG,
    STRUCTURED_DEPLOYMENT,
    SOFTWARE_DEPLOYMENT_GROUP,
    SOFTWARE_DEPLOYMENTS,
    STRUCTURED_DEPLOYMENT_GROUP,
    STRUCTURED_DEPLOYMENTS,
    SOFTWARE_COMPONENT,
    DEPLOYED_SERVER,
    CLOUD_CONFIG,
    MULTIPART_MIME,
    WAIT_CONDITION,
    WAIT_CONDITION_HANDLE,
    SWIFT_SIGNAL,
    SWIFT_SIGNAL_HANDLE,
    AWS_WAIT_CONDITION,
    AWS_WAIT_CONDITION_HANDLE,
    UPDATE_WAIT_CONDITION_HANDLE,
    STACK,
)
