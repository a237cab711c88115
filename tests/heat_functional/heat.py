"""A small driver that plays the part of Heat's functional test base (create, update, list resources, read
outputs) with hotc's command line, in-process, on a local state in a temporary folder.

Each translated test keeps the template and the expected values of Heat's functional suite
(``heat_integrationtests/functional``); a template given as a mapping is written as JSON (YAML reads it), the
``files`` of a stack create are written beside it, an environment is given with ``-e``. A Heat ``PUT`` update is
``hotc apply -t``; a ``PATCH`` update (``existing=True``) is ``hotc apply --existing``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from tests.clirun import Result, run_hotc


class HeatStack:
    """One stack, named ``name``, driven through hotc's CLI in ``folder``."""

    def __init__(self, folder: Path, name: str = "teststack", signal_store: str | None = None) -> None:
        self.folder = folder
        self.name = name
        # where signals live (a ScalingPolicy's): an S3 URL, moto's in the tests
        self.env = {"HOTC_SIGNAL_STORE": signal_store} if signal_store else None
        self.serial = 0
        self.last: Result | None = None

    # ------------------------------------------------------------------------------------------ files

    def _write(self, stem: str, content: str | Mapping[str, Any]) -> str:
        self.serial += 1
        name = f"{stem}.yaml"
        text = content if isinstance(content, str) else json.dumps(content, indent=1)
        (self.folder / name).write_text(text)
        return name

    def _files(self, files: Mapping[str, str | Mapping[str, Any]] | None) -> None:
        for path, content in (files or {}).items():
            target = self.folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content if isinstance(content, str) else json.dumps(content, indent=1))

    def _args(
        self,
        template: str | Mapping[str, Any] | None,
        environment: str | Mapping[str, Any] | None,
        files: Mapping[str, str | Mapping[str, Any]] | None,
        parameters: Mapping[str, Any] | None,
    ) -> list[str]:
        self._files(files)
        args: list[str] = []
        if template is not None:
            args += ["-t", self._write("template", template)]
        if environment is not None:
            args += ["-e", self._write("env", environment)]
        for key, value in (parameters or {}).items():
            args += ["--parameter", f"{key}={_param_text(value)}"]
        return args

    # ------------------------------------------------------------------------------------- operations

    def run(self, *args: str) -> Result:
        self.last = run_hotc(self.folder, *args, env=self.env)
        return self.last

    def create(
        self,
        template: str | Mapping[str, Any],
        *,
        environment: str | Mapping[str, Any] | None = None,
        files: Mapping[str, str | Mapping[str, Any]] | None = None,
        parameters: Mapping[str, Any] | None = None,
        expected_status: str = "CREATE_COMPLETE",
        disable_rollback: bool = True,
    ) -> Result:
        return self._apply(
            self._args(template, environment, files, parameters), expected_status, disable_rollback, False
        )

    def update(
        self,
        template: str | Mapping[str, Any] | None = None,
        *,
        environment: str | Mapping[str, Any] | None = None,
        files: Mapping[str, str | Mapping[str, Any]] | None = None,
        parameters: Mapping[str, Any] | None = None,
        existing: bool = False,
        expected_status: str = "UPDATE_COMPLETE",
        disable_rollback: bool = True,
    ) -> Result:
        return self._apply(
            self._args(template, environment, files, parameters), expected_status, disable_rollback, existing
        )

    def _apply(self, args: list[str], expected_status: str, disable_rollback: bool, existing: bool) -> Result:
        extra = ["--existing"] if existing else []
        extra.append("--no-rollback" if disable_rollback else "--rollback")
        r = self.run("apply", *args, self.name, *extra, "--auto-approve")
        ok = expected_status.endswith("_COMPLETE") and not expected_status.startswith("ROLLBACK")
        assert (r.returncode == 0) == ok, r.stdout + r.stderr
        assert self.status() == expected_status, r.stdout + r.stderr
        return r

    def refused(
        self,
        template: str | Mapping[str, Any] | None = None,
        *,
        environment: str | Mapping[str, Any] | None = None,
        files: Mapping[str, str | Mapping[str, Any]] | None = None,
        parameters: Mapping[str, Any] | None = None,
    ) -> Result:
        """An update hotc refuses at plan time (nothing runs, the stack keeps its status), where Heat starts it
        and records UPDATE_FAILED: exit non-zero, no traceback."""
        before = self.status()
        r = self.run(
            "apply", *self._args(template, environment, files, parameters), self.name, "--auto-approve"
        )
        assert r.returncode != 0, r.stdout + r.stderr
        assert "Traceback" not in r.stderr
        assert self.status() == before
        return r

    def delete(self) -> Result:
        r = self.run("destroy", self.name, "--auto-approve")
        assert r.returncode == 0, r.stdout + r.stderr
        return r

    # ---------------------------------------------------------------------------------------- reading

    def status(self) -> str:
        r = run_hotc(self.folder, "stack", "list", "--all", "--format", "json")
        assert r.returncode == 0, r.stdout + r.stderr
        for row in json.loads(r.stdout)["stacks"]:
            if row["stack_name"] == self.name:
                return str(row["status"])
        raise AssertionError(f"no stack {self.name}")

    def resource_rows(self) -> list[dict[str, Any]]:
        r = run_hotc(self.folder, "resource", "list", self.name, "--format", "json")
        assert r.returncode == 0, r.stdout + r.stderr
        rows: list[dict[str, Any]] = json.loads(r.stdout)
        return rows

    def list_resources(self, nested: str = "") -> dict[str, str]:
        """{name: type} of the resources of the stack, or of the nested stack at address ``nested`` (a template
        resource ``name``, a group ``name``, a member ``name.0``), as Heat's list_resources of that stack: its
        own resources, not those of the stacks nested in it. hotc records leaves only; the type of a template
        resource or group (and of a group's members) is the one its template declares."""
        scope = nested.replace(".", "[", 1) + "]" if _is_member(nested) else nested
        found: dict[str, str] = {}
        for row in self.resource_rows():
            address: str = row["address"]
            if scope:
                if address.startswith(scope + "."):
                    rest = address[len(scope) + 1 :]
                elif address.startswith(scope + "["):
                    rest = address[len(scope) :]
                else:
                    continue
            else:
                rest = address
            if rest.startswith("["):  # a member of the group ``scope``
                name = rest[1 : rest.index("]")]
                leaf = rest == f"[{name}]"
            else:
                name = rest.replace("[", ".").split(".", 1)[0]
                leaf = rest == name
            found[name] = row.get("declared_type") or row["type"] if leaf else self._declared(nested, name)
        return found

    def _declared(self, nested: str, name: str) -> str:
        """The type the main template declares for ``name`` (top level), or for a member of the top-level group
        ``nested``."""
        r = run_hotc(self.folder, "template", "show", self.name, "--format", "json")
        assert r.returncode == 0, r.stdout + r.stderr
        doc = json.loads(r.stdout)
        main = yaml.safe_load(doc["files"][doc["main"]])
        if not nested:
            return str(main["resources"][name]["type"])
        group = main["resources"][nested.split(".")[0]]
        return str(group["properties"]["resource_def"]["type"])

    def resource(self, address: str) -> dict[str, Any]:
        r = run_hotc(self.folder, "resource", "show", self.name, address, "--format", "json")
        assert r.returncode == 0, r.stdout + r.stderr
        doc: dict[str, Any] = json.loads(r.stdout)
        return doc

    def physical_id(self, address: str) -> Any:
        return self.resource(address)["physical_id"]

    def outputs(self) -> dict[str, Any]:
        r = run_hotc(self.folder, "output", self.name, "--format", "json", "--show-sensitive")
        assert r.returncode == 0, r.stdout + r.stderr
        return {k: (o.get("value") if o.get("error") is None else o) for k, o in json.loads(r.stdout).items()}

    def output(self, name: str) -> Any:
        r = run_hotc(self.folder, "output", self.name, name, "--format", "json", "--show-sensitive")
        assert r.returncode == 0, r.stdout + r.stderr
        return json.loads(r.stdout)


def _is_member(nested: str) -> bool:
    # GROUP.INDEX names the stack of one member of a group (recorded as GROUP[INDEX])
    return "." in nested and nested.split(".", 1)[1].isdigit()


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value)
