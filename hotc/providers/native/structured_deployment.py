"""OS::Heat::StructuredDeployment: a deployment of a StructuredConfig whose ``{get_input: NAME}`` maps (the key
is ``input_key``) are replaced by the input's value, ``deploy_*`` inputs included; a missing name gives null
(``input_values_validate: LAX``) or fails (STRICT), as in Heat."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hotc.errors import HotcError
from hotc.providers.native.deployment_mixin import DeploymentMixin


def substitute(value: Any, key: str, inputs: Mapping[str, Any], strict: bool) -> Any:
    if isinstance(value, Mapping):
        if len(value) == 1 and key in value:
            name = value[key]
            if isinstance(name, str):
                if name in inputs:
                    return inputs[name]
                if strict:
                    raise HotcError(f"The Parameter ({name}) was not provided.")
                return None
        return {k: substitute(v, key, inputs, strict) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, key, inputs, strict) for v in value]
    return value


class StructuredDeploymentDriver(DeploymentMixin):
    def content(self, config: Any, inputs: Sequence[Mapping[str, Any]], props: Mapping[str, Any]) -> Any:
        values = {str(i.get("name")): i.get("value") for i in inputs}
        strict = props.get("input_values_validate") == "STRICT"
        return substitute(config, str(props.get("input_key") or "get_input"), values, strict)
