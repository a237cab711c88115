"""Cloud connections from openstacksdk's own configuration: clouds.yaml (``OS_CLIENT_CONFIG_FILE`` or the
standard places), ``OS_CLOUD``, the ``OS_*`` variables, or a cloud name given on the command line
(``--os-cloud``). Every failure is a :class:`~hotc.errors.HotcError` that says what to set."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.providers.openstack.lookup_cache import LookupFiles
from hotc.providers.openstack.token_cache import TokenCache, install, keep

HINT = (
    "configure a cloud: set OS_CLOUD to a cloud of your clouds.yaml (or pass --os-cloud NAME), "
    "or set the OS_AUTH_URL/OS_USERNAME/OS_PASSWORD/OS_PROJECT_NAME variables (e.g. source an openrc file)"
)


def _config(cloud: str | None, environ: Mapping[str, str] | None = None) -> Any:
    # heavy: openstacksdk only when a cloud is used
    from openstack import exceptions
    from openstack.config import loader

    env = os.environ if environ is None else environ
    name = cloud or env.get("OS_CLOUD") or None
    try:
        config = loader.OpenStackConfig()
    except Exception as exc:  # a broken clouds.yaml
        raise HotcError(f"cannot read the OpenStack client configuration (clouds.yaml): {exc}") from exc
    known = sorted(n for n in config.get_cloud_names() if n not in ("envvars", "defaults"))
    if name is None and not env.get("OS_AUTH_URL") and not env.get("OS_AUTH_TYPE"):
        if len(known) == 1:  # one cloud in clouds.yaml: that is the one
            name = known[0]
        else:
            extra = f" (clouds.yaml has: {', '.join(known)})" if known else ""
            raise HotcError(f"no OpenStack cloud is configured{extra}; {HINT}")
    try:
        return config.get_one(cloud=name)
    except exceptions.ConfigException as exc:
        which = f"cloud {name!r}" if name else "the OS_* variables"
        listed = f"; clouds.yaml has: {', '.join(known)}" if known else "; no clouds.yaml was found"
        raise HotcError(f"cannot use {which}: {exc}{listed}") from exc


def connect(
    cloud: str | None = None, *, environ: Mapping[str, str] | None = None, authorize: bool = True
) -> Any:
    """An ``openstack.connection.Connection`` for CLOUD (a clouds.yaml name), or for ``OS_CLOUD`` / ``OS_*``.

    With ``authorize`` the credentials are checked now, so a wrong password is reported before any work starts.
    A token kept by an earlier hotc process for the same login is used while it is valid, and a new one is kept
    (encrypted: :mod:`hotc.providers.openstack.token_cache`).
    """
    # heavy: openstacksdk only when a cloud is used
    import openstack

    region = _config(cloud, environ)
    connection = one_proxy_per_service(
        openstack.connection.Connection, openstack.service_description.ServiceDescription
    )
    conn: Any = connection(config=region)
    cache = TokenCache.for_config(region, environ)
    cached = cache is not None and install(conn, cache)
    if authorize:
        try:
            conn.authorize()
        except Exception as exc:
            where = region.name if getattr(region, "name", None) else "the configured cloud"
            detail = getattr(exc, "details", None) or str(exc)
            raise HotcError(f"cannot authenticate to {where}: {detail}") from exc
        if cache is not None and not cached:
            keep(conn, cache)
    if cache is not None:  # renewed tokens are kept too (keep_renewed, on each use through cloud_factory)
        conn._hotc_token_cache = cache
        conn._hotc_kept_token = _token(conn)
    return conn


class _OneProxy:
    """A service of the connection (``conn.network``...) whose proxy is made once, however many threads ask for
    it first. openstacksdk makes a service's proxy on first use and keeps it, with no lock: the parallel reads
    and steps of a run, which start together, each made their own (endpoint and version look-ups, some
    milliseconds of CPU each) and all but one were thrown away: up to five network proxies in one ``check``."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.lock = threading.RLock()

    def __get__(self, conn: Any, owner: type | None = None) -> Any:
        if conn is None:
            return self.service
        made = conn._proxies.get(self.service.service_type)
        if made is not None:
            return made
        with self.lock:
            return self.service.__get__(conn, owner)


def one_proxy_per_service(base: type, service: type) -> type:
    """A subclass of openstacksdk's ``Connection`` class ``base`` whose services (the attributes that are
    ``service`` instances: openstacksdk's ``ServiceDescription``) make their proxies once (:class:`_OneProxy`; an
    alias such as ``cluster`` for ``clustering`` shares its service's lock)."""
    wrapped: dict[int, _OneProxy] = {}
    services: dict[str, _OneProxy] = {}
    for klass in reversed(base.__mro__):
        for name, value in vars(klass).items():
            if isinstance(value, service):
                services[name] = wrapped.setdefault(id(value), _OneProxy(value))
    return type(base.__name__, (base,), {**services, "__module__": __name__})


def _token(conn: Any) -> str | None:
    ref = getattr(getattr(getattr(conn, "session", None), "auth", None), "auth_ref", None)
    token = getattr(ref, "auth_token", None)
    return str(token) if token else None


def keep_renewed(conn: Any) -> None:
    """When ``conn``'s token is not the one its cache holds (keystoneauth logged in again: the token expired, or
    the cloud refused it with a 401), keep the new one."""
    cache = getattr(conn, "_hotc_token_cache", None)
    if cache is None:
        return
    token = _token(conn)
    if token and token != getattr(conn, "_hotc_kept_token", None):
        keep(conn, cache)
        conn._hotc_kept_token = token


class CloudFactory:
    """A thread-safe lazy ``cloud()`` (see :func:`cloud_factory`), with the run's catalog look-ups.

    ``catalog``: what the run looked up in the cloud's catalog (flavors, images, shared and external networks,
    :func:`hotc.providers.openstack.common.lookup`), shared by the plan's custom-constraint checks (through the
    connection: ``conn._hotc_catalog``) and the apply's actions (``ActionContext.lookups``): an apply that plans
    on the spot does not look up again the flavor and image the plan has just checked."""

    def __init__(self, cloud: str | None) -> None:
        self.cloud = cloud
        self.catalog: dict[Any, Any] = {}
        self._lock = threading.Lock()
        self._box: list[Any] = []

    def __call__(self) -> Any:
        with self._lock:
            if not self._box:
                conn = connect(self.cloud)
                try:
                    conn._hotc_catalog = self.catalog
                    conn._hotc_lookup_files = LookupFiles.for_config(getattr(conn, "config", None))
                except AttributeError:  # not a Connection (a stand-in): nothing to share
                    pass
                self._box.append(conn)
            keep_renewed(self._box[0])
            return self._box[0]


def cloud_factory(cloud: str | None = None, *, prewarm: bool = False) -> Callable[[], Any]:
    """A thread-safe lazy ``cloud()`` for :class:`~hotc.providers.base.ActionContext`: connects on first use
    (so runs that touch no cloud resource never need a cloud) and shares the one connection afterwards.

    ``prewarm`` (commands that will talk to the cloud: apply, destroy, check, suspend, resume), when a cloud is
    configured: the connection (importing openstacksdk, the token request) is made at once in a background
    thread, while the command reads its state and plans, instead of on the first call. A failure there is
    not reported: the first real use connects again and reports it."""
    get = CloudFactory(cloud)

    if prewarm and _configured(cloud):

        def warm() -> None:
            try:
                get()
            except Exception:  # noqa: BLE001 -- reported by the first real use
                pass

        threading.Thread(target=warm, name="hotc-connect", daemon=True).start()
    return get


def _configured(cloud: str | None) -> bool:
    """A cloud is named for this run: the name given, ``OS_CLOUD`` or the ``OS_*`` auth variables."""
    env = os.environ
    return bool(cloud or env.get("OS_CLOUD") or env.get("OS_AUTH_URL") or env.get("OS_AUTH_TYPE"))
