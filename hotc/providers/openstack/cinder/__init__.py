"""Cinder drivers, one type per module: ``volume``, ``volume_attachment``, ``volume_type``, ``quota``; ``common`` holds what they share."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.cinder.common import find_volume, find_volume_type
from hotc.providers.openstack.cinder.quota import DRIVERS as _QUOTA
from hotc.providers.openstack.cinder.volume import DRIVERS as _VOLUME
from hotc.providers.openstack.cinder.volume_attachment import DRIVERS as _ATTACHMENT
from hotc.providers.openstack.cinder.volume_type import DRIVERS as _VOLUME_TYPE

__all__ = ["DRIVERS", "find_volume", "find_volume_type"]

DRIVERS: dict[str, Driver] = {**_VOLUME, **_ATTACHMENT, **_VOLUME_TYPE, **_QUOTA}
