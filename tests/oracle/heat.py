"""Asking the test cloud's Heat about a case: template validate, then (when it validates) stack create, the
stack's outputs (each output with its value or its error) and the stack deleted again.

The answer is a small JSON-able dict, the unit of the cache (:mod:`tests.oracle.cache`):

- ``v``: ``"ok"`` or ``"error"`` (template validate), ``vm`` its message;
- ``c``: ``"ok"``, ``"error"`` (stack create refused or CREATE_FAILED) or ``"skip"`` (not validated), ``cm``;
- ``o``: ``{output_key: ["v", value] | ["e", message]}`` from the created stack.

Heat is reached with the credentials of ``/opt/hotc-cloud/etc/clouds.yaml`` (``OS_CLIENT_CONFIG_FILE``)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import yaml

from tests.oracle.generate import Case

CLOUDS = Path(os.environ.get("OS_CLIENT_CONFIG_FILE", "/opt/hotc-cloud/etc/clouds.yaml"))


class Heat:
    """A keystoneauth session on the orchestration endpoint of the test cloud."""

    def __init__(self, cloud: str = "hotc-test", api_port: int | None = None) -> None:
        from keystoneauth1 import session
        from keystoneauth1.identity import v3

        conf = yaml.safe_load(CLOUDS.read_text())["clouds"][cloud]["auth"]
        auth = v3.Password(
            auth_url=conf["auth_url"],
            username=conf["username"],
            password=conf["password"],
            project_name=conf["project_name"],
            user_domain_name=conf["user_domain_name"],
            project_domain_name=conf["project_domain_name"],
        )
        self.session = session.Session(auth=auth)
        self.endpoint = self.session.get_endpoint(service_type="orchestration", interface="public")
        if (
            api_port is not None
        ):  # another heat-api process on the same cloud (the stock one serves one request at a time)
            self.endpoint = re.sub(r":\d+/", f":{api_port}/", self.endpoint, count=1)

    def version(self) -> str:
        """Heat's version, as the engine's package reports it (the cache is keyed by it)."""
        venv = Path("/opt/hotc-cloud/venv/lib")
        for meta in sorted(venv.glob("python3*/site-packages/openstack_heat-*.dist-info")):
            return meta.name.split("-")[1].removesuffix(".dist")
        raise RuntimeError("cannot tell the test cloud's Heat version")

    def _body(self, case: Case) -> dict[str, Any]:
        return {
            "template": case.template,
            "files": case.files,
            "environment": {},
            "environment_files": list(case.env_files),
            "parameters": case.parameters,
        }

    def ask(self, case: Case, timeout: float = 180.0) -> dict[str, Any]:
        body = self._body(case)
        r = self.session.post(self.endpoint + "/validate", json=body, raise_exc=False)
        if r.status_code != 200:
            return {"v": "error", "vm": _message(r), "c": "skip"}
        answer: dict[str, Any] = {"v": "ok"}
        create = dict(body, stack_name=case.stack_name, disable_rollback=True, timeout_mins=5)
        r = self.session.post(self.endpoint + "/stacks", json=create, raise_exc=False)
        if r.status_code == 409:  # a leftover of an interrupted run: remove it and retry once
            self.delete(case.stack_name)
            r = self.session.post(self.endpoint + "/stacks", json=create, raise_exc=False)
            if r.status_code == 409:
                raise RuntimeError(f"stack {case.stack_name} is still there from an earlier run")
        if r.status_code not in (200, 201):
            answer.update(c="error", cm=_message(r))
            return answer
        sid = r.json()["stack"]["id"]
        url = f"{self.endpoint}/stacks/{case.stack_name}/{sid}"
        deadline = time.monotonic() + timeout
        delay = 0.8
        try:
            while True:
                st = self.session.get(url, raise_exc=False).json()["stack"]
                if not st["stack_status"].endswith("IN_PROGRESS"):
                    break
                if time.monotonic() > deadline:
                    answer.update(c="error", cm="oracle: timed out waiting for Heat")
                    return answer
                time.sleep(delay)
                delay = min(delay * 1.3, 2.0)
            if st["stack_status"] == "CREATE_COMPLETE":
                answer["c"] = "ok"
            else:
                answer.update(c="error", cm=st.get("stack_status_reason") or st["stack_status"])
            outs: dict[str, Any] = {}
            for o in st.get("outputs") or []:
                if o.get("output_error") is not None:
                    outs[o["output_key"]] = ["e", o["output_error"]]
                else:
                    outs[o["output_key"]] = ["v", o.get("output_value")]
            answer["o"] = outs
            return answer
        finally:
            self.session.delete(url, raise_exc=False)

    def delete(self, name: str) -> None:
        r = self.session.get(f"{self.endpoint}/stacks/{name}", raise_exc=False, redirect=False)
        loc = r.headers.get("Location")
        if loc:
            self.session.delete(loc, raise_exc=False)
            for _ in range(60):
                g = self.session.get(loc, raise_exc=False)
                if g.status_code == 404 or g.json()["stack"]["stack_status"] == "DELETE_COMPLETE":
                    return
                time.sleep(0.5)


def _message(r: Any) -> str:
    try:
        err = r.json().get("error", {})
        return str(err.get("message") or err.get("explanation") or r.text)[:2000]
    except ValueError:
        return r.text[:2000]
