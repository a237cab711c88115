"""AWS::CloudFormation::WaitConditionHandle (and OS::Heat::UpdateWaitConditionHandle, the same handle replaced on
every stack update) over the signal store: ``get_resource``/``Ref`` gives a presigned PUT URL to the handle's
object, which is what CloudFormation-style templates curl (``curl -X PUT --data-binary '{"Status": ...}' URL``).
Heat's URL is an EC2-signed CFN API URL; this one is an S3 presigned URL, so it takes PUT only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.native.signal_mixin import SignalHandleMixin


class AwsWaitConditionHandleDriver(SignalHandleMixin):
    reference = "endpoint"

    def secret_names(self) -> tuple[str, ...]:
        return ("endpoint",)

    def url_attributes(self, url: str, props: Mapping[str, Any]) -> dict[str, Any]:
        return {"endpoint": url}
