"""The OpenStack services hotc has no drivers for, by resource type namespace, with why: each such type validates
(as Heat's ``template validate`` does, names only) and plans, and ``hotc plan`` refuses to create or update it
with this reason (:func:`hotc.providers.drivers.unsupported_reason`).

hotc's drivers are each tested against the real service in the project's test cloud; these services do not run
there (installing one means a new service venv, its database and Keystone endpoints in ``tests/cloud/setup.sh``),
so no driver is offered for them."""

from __future__ import annotations

from collections.abc import Mapping

#: namespace (``OS::Aodh``) -> the service and what it is
SERVICES: Mapping[str, str] = {
    "OS::Blazar": "Blazar (reservations)",
    "OS::Ironic": "Ironic (bare metal)",
    "OS::Magnum": "Magnum (container infrastructure)",
    "OS::Monasca": "Monasca (monitoring)",
    "OS::Sahara": "Sahara (data processing)",
    "OS::Senlin": "Senlin (clustering)",
    "OS::Tacker": "Tacker (NFV orchestration)",
    "OS::Trove": "Trove (databases)",
    "OS::Vitrage": "Vitrage (root cause analysis)",
    "OS::Zaqar": "Zaqar (messaging)",
    "OS::Zun": "Zun (containers)",
}


_NO_GNOCCHI = (
    "Aodh checks a Gnocchi rule against Gnocchi when the alarm is created, and the test cloud runs Aodh without "
    "Gnocchi (Aodh answers 503 there), so hotc has no tested driver for it"
)

#: types of a service the test cloud runs that hotc still cannot apply, with why
TYPE_REASONS: Mapping[str, str] = {
    "OS::Aodh::GnocchiResourcesAlarm": _NO_GNOCCHI,
    "OS::Aodh::GnocchiAggregationByMetricsAlarm": _NO_GNOCCHI,
    "OS::Aodh::GnocchiAggregationByResourcesAlarm": _NO_GNOCCHI,
    "OS::Aodh::Alarm": (
        "Aodh removed the threshold alarm this type makes (its API refuses a threshold_rule: a create fails under "
        "Heat too); use OS::Aodh::GnocchiAggregationByResourcesAlarm where Gnocchi runs (refused here, see that "
        "type), else OS::Aodh::PrometheusAlarm"
    ),
}


def service_reason(type_name: str) -> str | None:
    """Why hotc cannot apply a type of a service it has no drivers for, or None for other types."""
    if type_name in TYPE_REASONS:
        return TYPE_REASONS[type_name]
    namespace = "::".join(type_name.split("::")[:2])
    service = SERVICES.get(namespace)
    if service is None:
        return None
    return (
        f"hotc has no driver for {service} resources: that service does not run in the test cloud hotc's "
        "drivers are tested against"
    )
