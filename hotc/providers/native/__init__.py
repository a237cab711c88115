"""Heat-native resource types done in-process (no cloud): RandomString, Value, None, TestResource and the
software-config family. ``DRIVERS`` maps type names to driver instances."""

from __future__ import annotations

from collections.abc import Mapping

from hotc.providers.base import Driver
from hotc.providers.native.none import NoneDriver
from hotc.providers.native.random_string import RandomStringDriver
from hotc.providers.native.software_config import (
    CloudConfigDriver,
    MultipartMimeDriver,
    SoftwareConfigDriver,
    StructuredConfigDriver,
)
from hotc.providers.native.test_resource import HeatTestResourceDriver
from hotc.providers.native.value import ValueDriver

DRIVERS: Mapping[str, Driver] = {
    "OS::Heat::RandomString": RandomStringDriver(),
    "OS::Heat::Value": ValueDriver(),
    "OS::Heat::None": NoneDriver(),
    "OS::Heat::TestResource": HeatTestResourceDriver(),
    "OS::Heat::SoftwareConfig": SoftwareConfigDriver(),
    "OS::Heat::StructuredConfig": StructuredConfigDriver(),
    "OS::Heat::CloudConfig": CloudConfigDriver(),
    "OS::Heat::MultipartMime": MultipartMimeDriver(),
}
