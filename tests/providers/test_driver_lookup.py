"""A type's driver comes from its service's package first (hotc.providers.drivers.service_drivers): looking up a
server's and a port's drivers imports Nova's and Neutron's modules and not the other services' (hotc check of a
stack imports only what its state holds); the drivers are the ones the whole registry gives."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
from hotc.providers.drivers import driver_for, openstack_drivers
server, port = driver_for("OS::Nova::Server"), driver_for("OS::Neutron::Port")
loaded = sorted(m for m in sys.modules if m.startswith("hotc.providers.openstack.") and m.count(".") == 3)
print(",".join(loaded))
every = openstack_drivers()
print(every["OS::Nova::Server"] is server and every["OS::Neutron::Port"] is port)
print(driver_for("OS::Glance::WebImage") is every["OS::Glance::WebImage"], driver_for("OS::Nope::Thing"))
"""


def test_a_types_driver_comes_from_its_services_package_only() -> None:
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    loaded, same, glance = r.stdout.splitlines()
    services = {m.rsplit(".", 1)[1] for m in loaded.split(",")}
    assert {"nova", "neutron"} <= services
    assert not services & {"keystone", "cinder", "octavia", "barbican", "aodh", "swift", "glance"}, services
    assert same == "True" and glance == "True None"
