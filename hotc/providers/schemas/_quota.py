"""What the four quota types (``OS::Nova::Quota``, ``OS::Neutron::Quota``, ``OS::Cinder::Quota``,
``OS::Octavia::Quota``) share in their schemas: a required ``project`` (a Keystone project's name or id, not
updatable: another project is another quota resource) and integer limits that are all updated in place, each at
least -1 (-1: no limit); and Heat's ``validate``, which refuses a quota resource that sets no limit at all."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotc.providers.base import PropSchema, PropsValidator, ResourceType
from hotc.providers.schemas._dsl import attrs, custom, integer, range_, string


def quota_properties(limits: Iterable[str], deprecated: Iterable[str] = ()) -> dict[str, PropSchema]:
    """``project`` and one updatable integer property (``range{min: -1}``) per limit name."""
    old = frozenset(deprecated)
    props: dict[str, PropSchema] = {
        "project": string(required=True, constraints=(custom("keystone.project"),))
    }
    for name in limits:
        props[name] = integer(update=True, constraints=(range_(min=-1),), deprecated=name in old)
    return props


def some_limit(limits: Iterable[str]) -> PropsValidator:
    """Heat's ``validate`` of the quota types: besides ``project``, at least one limit must be given (a value
    known only at apply counts as given)."""
    names = tuple(sorted(limits))

    def check(props: Mapping[str, Any]) -> list[tuple[str, str]]:
        if any(props.get(n) is not None for n in names):
            return []
        return [("project", f"the quota sets no limit: give at least one of {', '.join(names)}")]

    return check


def quota_type(
    name: str, limits: tuple[str, ...], *, service: str, heat_class: str, deprecated: tuple[str, ...] = ()
) -> ResourceType:
    return ResourceType(
        name=name,
        properties=quota_properties(limits, deprecated),
        attributes=attrs(),
        validators=(some_limit(limits),),
        # a quota resource in FAILED is set again in place: a replacement would set the project's quotas, then
        # the old instance's delete would reset the very same quotas to the defaults
        failed_replace=lambda live: live is None,
        service=service,
        heat_class=heat_class,
    )
