"""Cinder drivers, one type per module: ``volume``, ``volume_attachment``; ``common`` holds what they share."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.cinder.common import find_volume, find_volume_type
from hotc.providers.openstack.cinder.volume import DRIVERS as _VOLUME
from hotc.providers.openstack.cinder.volume_attachment import DRIVERS as _ATTACHMENT

__all__ = ["DRIVERS", "find_volume", "find_volume_type"]

DRIVERS: dict[str, Driver] = {**_VOLUME, **_ATTACHMENT}
