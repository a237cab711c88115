"""OS::Designate::Domain and OS::Designate::Record: Designate's v1 API is gone, and Heat 27 keeps these names
hidden, as placeholders (its NoneResource) that take any properties and make nothing; so does hotc (in process, no
cloud call). ``OS::Designate::Zone`` and ``RecordSet`` replace them."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.native.none import NoneDriver

DRIVERS: dict[str, Driver] = {"OS::Designate::Domain": NoneDriver(), "OS::Designate::Record": NoneDriver()}
