"""What the drivers of the quota types share (``nova/quota.py``, ``neutron/quota.py``, ``cinder/quota.py``,
``octavia/quota.py``, one per service as Heat splits them): a quota resource sets limits of one project's quota
in one service. Not to be confused with :mod:`hotc.providers.openstack.quota`, the plan-time check of the
quotas a plan needs.

- Physical id: the project's id. Heat records a name it generates (``stack-resource-suffix``) that names
  nothing in the cloud; ``hotc import --from-heat`` finds the project from the resource's ``project`` instead
  (:meth:`QuotaDriver.physical_id_from_heat`), and ``hotc import`` takes a project's id (or its name).
- Create and update set every limit the template gives (a limit left out keeps its value), as Heat's
  ``_set_quota``; the project is resolved by name or id first, as Heat's translation does.
- Delete resets the project's quota in that service to the defaults (the service's own reset: every limit,
  also those the resource did not set), as Heat's ``handle_delete``; a project already gone leaves nothing to do.
- Read gives the live limits of the properties the template gives (refresh, drift, import) and the quota as the
  service shows it (``show``); a project gone means the resource is gone.

The calls are plain REST through openstacksdk's adapter of the service, with each service's own body
(``quota_set`` / ``quota``) and keys (:attr:`QuotaDriver.keys`: Heat's property names to the API's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.openstack.common import call, get_or_none, ignore_missing
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.rest import ServiceHTTPError, json_answer


def find_project(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    """The project ``value`` (a name or an id) names, through the Keystone look-up, imported when first used:
    a run of servers and networks loads the Nova and Neutron packages and no Keystone driver."""
    # lazy: only the quota types load the Keystone driver package
    from hotc.providers.openstack.keystone.common import find_project as find

    return find(ctx, conn, value)


class QuotaHTTPError(ServiceHTTPError):
    """A quota call's answer >= 400, with its status and the service's own message."""


def _message(body: Any) -> str:
    """The service's message: Octavia's ``faultstring``, Nova's/Cinder's/Neutron's ``{"<fault>": {"message"}}``."""
    if isinstance(body, dict):
        if body.get("faultstring"):
            return str(body["faultstring"])
        if len(body) == 1:
            inner = next(iter(body.values()))
            if isinstance(inner, dict) and inner.get("message"):
                return str(inner["message"])
    return str(body)


class QuotaDriver:
    """One service's quota type; a subclass gives the service's particulars."""

    #: what the calls are labelled with ("compute quota")
    what = "quota"
    #: the key the body of a request and an answer is wrapped in
    body_key = "quota_set"
    #: Heat's property name -> the API's key, for every limit the type has
    keys: Mapping[str, str] = {}
    #: headers every call sends (Nova's microversion)
    headers: Mapping[str, str] = {}

    def adapter(self, conn: Any) -> Any:
        """openstacksdk's adapter of the service (``conn.compute``, ``conn.network``, …)."""
        raise NotImplementedError

    def path(self, project_id: str) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------- bodies

    def body(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """The request body that sets the limits ``props`` gives (those not given, or null, are left out)."""
        limits = {api: int(props[heat]) for heat, api in self.keys.items() if props.get(heat) is not None}
        return {self.body_key: limits}

    def live_limits(self, answer: Any) -> dict[str, Any]:
        """The quota in an answer, under the API's keys."""
        got = (answer or {}).get(self.body_key) if isinstance(answer, Mapping) else None
        return dict(got) if isinstance(got, Mapping) else {}

    # ------------------------------------------------------------------------------------------- calls

    def request(self, conn: Any, method: str, path: str, body: Any = None) -> Any:
        kwargs: dict[str, Any] = {"headers": dict(self.headers)}
        if body is not None:
            kwargs["json"] = body
        return json_answer(self.adapter(conn).request(path, method, **kwargs), QuotaHTTPError, _message)

    def check(self, ctx: ActionContext, conn: Any, project_id: str, limits: Mapping[str, int]) -> None:
        """Refuse limits the service must not be given (Cinder's: below the project's usage); none by default."""

    def _set(self, ctx: ActionContext, props: Mapping[str, Any], project_id: str) -> Outcome:
        conn = ctx.cloud()
        body = self.body(props)
        self.check(ctx, conn, project_id, body[self.body_key])
        got = call(
            ctx,
            f"set the {self.what} of project {project_id}",
            self.request,
            conn,
            "PUT",
            self.path(project_id),
            body,
        )
        return Outcome(project_id, {"show": self.live_limits(got)})

    def project_id(self, ctx: ActionContext, conn: Any, project: Any) -> str:
        return str(find_project(ctx, conn, project).id)

    # ------------------------------------------------------------------------------------------- driver

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        pid = self.project_id(ctx, ctx.cloud(), props["project"])
        ctx.record_physical_id(pid)
        return self._set(ctx, props, pid)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        project = get_or_none(ctx, f"read project {physical_id}", conn.identity.get_project, physical_id)
        if project is None:
            return None
        pid = str(project.id)
        got = get_or_none(
            ctx, f"read the {self.what} of project {pid}", self.request, conn, "GET", self.path(pid)
        )
        if got is None:
            return None
        live = self.live_limits(got)
        lp = LiveProps(ctx, conn, props)
        lp.ref("project", pid, "project", find_project)
        for heat, api in self.keys.items():
            lp.put(heat, live.get(api))
        return Outcome(pid, {"show": live}, properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # as Heat's handle_update: every limit the new properties give is set (the changed ones among them)
        return self._set(ctx, new, physical_id)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        if get_or_none(ctx, f"read project {physical_id}", conn.identity.get_project, physical_id) is None:
            return  # the project is gone, and its quotas with it
        ignore_missing(
            ctx,
            f"reset the {self.what} of project {physical_id} to the defaults",
            self.request,
            conn,
            "DELETE",
            self.path(physical_id),
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        # setting a quota is idempotent: a create a killed run left half-way is made again, never duplicated
        return None

    def physical_id_from_heat(self, ctx: ActionContext, heat_id: str | None, props: Mapping[str, Any]) -> str:
        """Heat keeps a name it generated, which names nothing: hotc's id is that of the project ``project``
        names."""
        return self.project_id(ctx, ctx.cloud(), props["project"])
