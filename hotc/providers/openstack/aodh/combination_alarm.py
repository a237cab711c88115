"""OS::Aodh::CombinationAlarm: removed from Aodh; Heat keeps the name as a placeholder (its NoneResource) that
takes any properties and makes nothing, and so does hotc (in process, no cloud call)."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.native.none import NoneDriver

DRIVERS: dict[str, Driver] = {"OS::Aodh::CombinationAlarm": NoneDriver()}
