"""AWS::CloudFormation::WaitCondition: as OS::Heat::WaitCondition with the CloudFormation names (``Handle``,
``Timeout``, ``Count``, attribute ``Data``) and signal format (``Status``, ``Reason``, ``UniqueId``, ``Data``,
all required)."""

from __future__ import annotations

from collections.abc import Callable

from hotc.providers.native.signal_mixin import Signal, SignalWaitMixin, aws_signals


class AwsWaitConditionDriver(SignalWaitMixin):
    handle_prop = "Handle"
    timeout_prop = "Timeout"
    count_prop = "Count"
    data_attr = "Data"

    def parse(self, bodies: list[bytes], log: Callable[[str], None]) -> dict[str, Signal]:
        return aws_signals(bodies, log)
