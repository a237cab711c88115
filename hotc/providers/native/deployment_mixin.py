"""Shared mechanics of software deployments (OS::Heat::SoftwareDeployment, StructuredDeployment).

For each action in ``actions`` (CREATE, UPDATE, DELETE, SUSPEND, RESUME) a deployment makes a *derived config*
with a new id, as Heat does: the config's group, content, outputs and options; its declared inputs with their
values (``input_values``, else the default), undeclared ``input_values`` as String inputs, then Heat's
``deploy_*`` inputs (server id, action, ``STACK/LINEAGE`` as stack id, resource name, signal transport, and for
TEMP_URL_SIGNAL a presigned PUT URL to a fresh object as ``deploy_signal_id`` with ``deploy_signal_verb`` PUT).
The derived config goes into the server's metadata object (:mod:`hotc.providers.native.server_metadata`), which
os-collect-config polls; the hook runs it and ``heat-config-notify`` PUTs the result to ``deploy_signal_id``.
hotc waits for that object and applies Heat's rules: a non-zero ``deploy_status_code`` or a present
``error_output`` output fails the deployment ("Deployment to server failed: ..."); otherwise ``deploy_stdout``,
``deploy_stderr``, ``deploy_status_code`` and the declared outputs become its attributes.

The signal URL lives only in the (private) metadata object, never in the state. ``signal_transport``
CFN_SIGNAL (Heat's default) is taken as TEMP_URL_SIGNAL: hotc acts as a Heat configured with
``default_deployment_signal_transport = TEMP_URL_SIGNAL``; an explicit CFN_SIGNAL, HEAT_SIGNAL or ZAQAR_SIGNAL
is refused at plan time.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from hotc.errors import HotcError
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.server_metadata import push_deployment

DEPLOYMENTS = "deployments"
OUTPUT_ATTRS = ("deploy_stdout", "deploy_stderr", "deploy_status_code")
SIGNAL_ATTR = "hotc:signal_key"  # the object the last action's signal was read from (not a credential)
CONFIG_ATTR = "hotc:derived_config_id"
PENDING = "pending"  # names the signal object of the action being waited for


def _transport(props: Mapping[str, Any]) -> str:
    t = str(props.get("signal_transport") or "TEMP_URL_SIGNAL")
    return "TEMP_URL_SIGNAL" if t == "CFN_SIGNAL" else t


def _input(name: str, value: Any, description: str, type_: str = "String") -> dict[str, Any]:
    return {"name": name, "description": description, "type": type_, "value": value}


def outcome_of_signal(
    details: Mapping[str, Any], outputs: list[Mapping[str, Any]]
) -> tuple[dict[str, Any], str]:
    """Heat's ``signal_software_deployment``: (output values, failure reason or "")."""
    values: dict[str, Any] = {}
    reasons: dict[str, Any] = {}
    code = details.get("deploy_status_code")
    if code and str(code) != "0":
        reasons["deploy_status_code"] = f"Deployment exited with non-zero status code: {code}"
    for out in outputs or []:
        name = out.get("name")
        if isinstance(name, str) and name in details:
            values[name] = details[name]
            if out.get("error_output"):
                reasons[name] = details[name]
    for name in OUTPUT_ATTRS:
        values[name] = details.get(name)
    failure = ", ".join(f"{k} : {v}" for k, v in reasons.items())
    return values, failure


class DeploymentMixin:
    """Create/update/delete of a deployment. Subclasses may transform the config content per action."""

    def content(self, config: Any, inputs: Sequence[Mapping[str, Any]], props: Mapping[str, Any]) -> Any:
        return config

    # ------------------------------------------------------------------------------------------ derived

    def _source(self, ctx: ActionContext, props: Mapping[str, Any]) -> dict[str, Any]:
        cid = props.get("config")
        if not cid:
            return {"group": "Heat::Ungrouped", "config": "", "inputs": [], "outputs": [], "options": {}}
        lookup = getattr(ctx, "lookup", None)
        rs = lookup(str(cid)) if lookup is not None else None
        show = (rs.attributes or {}).get("show") if rs is not None else None
        if not isinstance(show, Mapping):
            raise HotcError(
                f"config {cid} is not a software config of this stack (give it with get_resource of an "
                "OS::Heat::SoftwareConfig, StructuredConfig, CloudConfig or MultipartMime)"
            )
        return dict(show)

    def _derived(
        self,
        ctx: ActionContext,
        pid: str,
        props: Mapping[str, Any],
        action: str,
        signal_url: str | None,
        resource_name: str | None = None,
    ) -> dict[str, Any]:
        src = self._source(ctx, props)
        values = dict(props.get("input_values") or {})
        inputs: list[dict[str, Any]] = []
        for inp in src.get("inputs") or []:
            item = dict(inp)
            name = item.get("name")
            item["value"] = values.pop(name) if name in values else item.get("default")
            item.setdefault("type", "String")
            inputs.append(item)
        for extra, value in values.items():
            inputs.append({"name": extra, "type": "String", "value": value})
        name = resource_name or ctx.address.rsplit(".", 1)[-1]
        transport = _transport(props)
        inputs += [
            _input("deploy_server_id", props.get("server"), "ID of the server being deployed to"),
            _input("deploy_action", action, "Name of the current action being deployed"),
            _input("deploy_stack_id", f"{ctx.stack_name}/{ctx.lineage}", "Name and id of the stack"),
            _input("deploy_resource_name", name, "Name of this deployment resource in the stack"),
            _input("deploy_signal_transport", transport, "How the server signals the deployment's outputs"),
        ]
        if signal_url is not None:
            inputs += [
                _input("deploy_signal_id", signal_url, "URL to PUT the deployment's outputs to"),
                _input("deploy_signal_verb", "PUT", "HTTP verb for deploy_signal_id"),
            ]
        return {
            "id": str(uuid.uuid4()),
            "name": props.get("name") or src.get("name") or f"{ctx.stack_name}-{name}",
            "group": src.get("group") or "Heat::Ungrouped",
            "creation_time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "config": self.content(src.get("config"), inputs, props),
            "inputs": inputs,
            "outputs": list(src.get("outputs") or []),
            "options": dict(src.get("options") or {}),
        }

    # ------------------------------------------------------------------------------------------ running

    def _run(
        self,
        ctx: ActionContext,
        pid: str,
        props: Mapping[str, Any],
        action: str,
        *,
        name: str | None = None,
        entry: str | None = None,
    ) -> Outcome:
        """Run ``action`` on the server: publish the derived config and wait for the hook's signal. ``name``:
        the deployment's resource name (``deploy_resource_name``; a group's member key), ``entry``: its key in the
        server's metadata (default: this resource's address)."""
        store = ctx.signals()
        transport = _transport(props)
        key = (
            store.key(ctx.stack_name, DEPLOYMENTS, f"{pid}/{uuid.uuid4().hex}")
            if transport != "NO_SIGNAL"
            else None
        )
        url = store.presign(key, "PUT") if key is not None else None
        derived = self._derived(ctx, pid, props, action, url, name)
        server = str(props.get("server"))
        push_deployment(ctx, server, entry or pid, derived, self._legacy(ctx, pid, entry))
        base = {CONFIG_ATTR: derived["id"]}
        if key is None:
            ctx.log(
                f"{action}: derived config {derived['id']} published (NO_SIGNAL: not waiting for outputs)"
            )
            return Outcome(pid, {**base, **{a: None for a in OUTPUT_ATTRS}})
        pending = store.key(ctx.stack_name, DEPLOYMENTS, f"{pid}/{PENDING}")
        store.put(pending, key.encode(), "text/plain")  # where `hotc signal` sends while this action waits
        try:
            label = f"{name} {action}" if name else action  # a group's member: say which
            details = self._wait(ctx, store, key, label, derived["id"])
        finally:
            store.delete_all(pending)
        values, failure = outcome_of_signal(details, derived["outputs"])
        if failure:
            raise HotcError(f"Deployment to server failed: {failure}")
        return Outcome(pid, {**base, SIGNAL_ATTR: key, **values})

    def _wait(self, ctx: ActionContext, store: Any, key: str, action: str, config_id: str) -> dict[str, Any]:
        start = time.monotonic()
        last = -30.0
        delay = 0.5
        ctx.log(f"{action}: waiting for the server to run config {config_id} and signal its outputs")
        while True:
            body = store.get(key)
            if body is not None and body.strip():
                try:
                    details = json.loads(body)
                except ValueError:
                    details = None
                if isinstance(details, dict):
                    return details
                ctx.log("ignored a deployment signal that is not a JSON object")
            elapsed = time.monotonic() - start
            if elapsed >= ctx.timeout:
                raise HotcError(
                    f"Deployment to server failed: no signal from the server after {elapsed:.0f} s (timeout "
                    f"{ctx.timeout:g} s; is os-collect-config running and polling its metadata URL?)"
                )
            if ctx.cancelled():
                raise HotcError(
                    f"interrupted while waiting for the deployment's signal after {elapsed:.0f} s"
                )
            if elapsed - last >= 30:
                ctx.log(f"{action}: waiting for the server's signal, {elapsed:.0f} s of {ctx.timeout:g} s")
                last = elapsed
            time.sleep(delay)
            delay = min(delay * 1.5, 5.0)

    def _legacy(self, ctx: ActionContext, pid: str, entry: str | None) -> tuple[str, str] | None:
        """The metadata entry an earlier hotc wrote for this deployment under its address (with the derived
        config id the state recorded), to be replaced by the entry under its id."""
        lookup = getattr(ctx, "lookup", None)
        rs = lookup(pid) if lookup is not None and entry is None else None
        cid = (rs.attributes or {}).get(CONFIG_ATTR) if rs is not None else None
        return (ctx.address, str(cid)) if isinstance(cid, str) and cid else None

    def _actions(self, props: Mapping[str, Any]) -> set[str]:
        return {str(a) for a in (props.get("actions") or ["CREATE", "UPDATE"])}

    def wants(self, ctx: ActionContext, props: Mapping[str, Any], action: str) -> bool:
        """Whether ``action`` runs anything on the server, as Heat's ``_handle_action`` decides: for a
        SoftwareComponent's config (group ``component``) the actions of its ``configs``, else ``actions``."""
        if props.get("config"):
            try:
                src = self._source(ctx, props)
            except HotcError:
                src = {}
            if src.get("group") == "component":
                configs = (
                    (src.get("config") or {}).get("configs")
                    if isinstance(src.get("config"), Mapping)
                    else None
                )
                valid = {
                    str(a) for c in configs or [] if isinstance(c, Mapping) for a in c.get("actions") or []
                }
                return action in valid
        return action in self._actions(props)

    # ------------------------------------------------------------------------------------------ driver

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        pid = str(uuid.uuid4())
        ctx.record_physical_id(pid)
        if not self.wants(ctx, props, "CREATE"):
            return Outcome(pid, {a: None for a in OUTPUT_ATTRS})
        return self._run(ctx, pid, props, "CREATE")

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        if not self.wants(ctx, new, "UPDATE"):
            return self.read(ctx, physical_id, new) or Outcome(physical_id)
        return self._run(ctx, physical_id, new, "UPDATE")

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        lookup = getattr(ctx, "lookup", None)
        rs = lookup(physical_id) if lookup is not None else None
        return Outcome(physical_id, dict(rs.attributes) if rs is not None else {})

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        self.remove(ctx, physical_id, props)

    def remove(
        self,
        ctx: ActionContext,
        physical_id: str,
        props: Mapping[str, Any],
        *,
        name: str | None = None,
        entry: str | None = None,
    ) -> None:
        """Heat's delete of a deployment: run the DELETE action when the deployment has one (unless the
        server is gone), take its config out of the server's metadata, remove its signal objects."""
        server = str(props.get("server"))
        if self.wants(ctx, props, "DELETE"):
            try:
                self._run(ctx, physical_id, props, "DELETE", name=name, entry=entry)
            except HotcError as exc:
                if "has no software-config metadata" not in exc.message:  # the server is gone: nothing to run
                    raise
        push_deployment(ctx, server, entry or physical_id, None, self._legacy(ctx, physical_id, entry))
        store = ctx.signals()
        for k in store.keys_under(store.key(ctx.stack_name, DEPLOYMENTS, physical_id) + "/"):
            store.delete_all(k)

    def suspend(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        """``hotc suspend``: runs the SUSPEND action on the server when ``actions`` has it (as Heat); its
        outputs (``deploy_stdout``...) become the deployment's attributes, as the signal's do in Heat."""
        if self.wants(ctx, props, "SUSPEND"):
            return self._run(ctx, physical_id, props, "SUSPEND")
        return None

    def resume(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        if self.wants(ctx, props, "RESUME"):
            return self._run(ctx, physical_id, props, "RESUME")
        return None

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None
