"""The fake connection keeps openstacksdk's API: every public method of a fake proxy exists on the real proxy
(the one installed) under the same name, and every parameter the fake names is one the real method takes (by
name, or through its ``**kwargs``), so a driver that works on the fake calls the real SDK the same way."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from openstack.block_storage.v3._proxy import Proxy as BlockStorage
from openstack.compute.v2._proxy import Proxy as Compute
from openstack.identity.v3._proxy import Proxy as Identity
from openstack.image.v2._proxy import Proxy as Image
from openstack.load_balancer.v2._proxy import Proxy as LoadBalancer
from openstack.network.v2._proxy import Proxy as Network
from openstack.object_store.v1._proxy import Proxy as ObjectStore

from tests.providers.fakesdk.block_storage import BlockStorageProxy
from tests.providers.fakesdk.compute import ComputeProxy
from tests.providers.fakesdk.identity import IdentityProxy
from tests.providers.fakesdk.image import ImageProxy
from tests.providers.fakesdk.load_balancer import LoadBalancerProxy
from tests.providers.fakesdk.network import NetworkProxy
from tests.providers.fakesdk.network_extras import NetworkExtras
from tests.providers.fakesdk.object_store import ObjectStoreProxy

PAIRS = [
    (ComputeProxy, Compute),
    (NetworkProxy, Network),
    (NetworkExtras, Network),
    (BlockStorageProxy, BlockStorage),
    (LoadBalancerProxy, LoadBalancer),
    (ImageProxy, Image),
    (ObjectStoreProxy, ObjectStore),
    (IdentityProxy, Identity),
]


def public_methods(cls: type) -> dict[str, Any]:
    return {
        name: fn
        for name, fn in vars(cls).items()
        if not name.startswith("_") and callable(fn) and name not in ("cloud", "service")
    }


@pytest.mark.parametrize(("fake", "real"), PAIRS, ids=[r.__module__.split(".")[1] for _f, r in PAIRS])
def test_every_fake_method_is_a_real_one_with_the_same_parameters(fake: type, real: type) -> None:
    problems = []
    for name, fn in public_methods(fake).items():
        real_fn = getattr(real, name, None)
        if real_fn is None:
            problems.append(f"{name}: not a method of {real.__module__}.Proxy")
            continue
        real_params = inspect.signature(real_fn).parameters
        takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in real_params.values())
        takes_args = any(p.kind is p.VAR_POSITIONAL for p in real_params.values())
        real_positional = [
            n
            for n, p in real_params.items()
            if n != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        required = 0
        for pname, p in inspect.signature(fn).parameters.items():
            if pname == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.default is p.empty:  # passed by position (the resource or its id)
                required += 1
            elif pname not in real_params and not takes_kwargs:
                problems.append(f"{name}({pname}=...): the real method has no such parameter")
        if required > len(real_positional) and not takes_args:
            problems.append(
                f"{name}: {required} positional parameters, the real one takes {len(real_positional)}"
            )
    assert problems == []
