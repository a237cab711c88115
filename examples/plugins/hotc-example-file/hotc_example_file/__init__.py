"""Example::Local::File: a file on the machine that runs hotc. A small but real resource type: its driver
creates, reads (so drift is seen), updates and deletes a file, and ``path`` cannot change in place (a new path
replaces the file, as a Heat property without ``update_allowed`` does).

    resources:
      motd:
        type: Example::Local::File
        properties: {path: /tmp/motd, content: {get_param: greeting}}
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from typing import Any

from hotc.providers.plugin_api import (
    DELETE,
    ActionContext,
    Outcome,
    PluginType,
    ResourceType,
    attrs,
    integer,
    pattern,
    range_,
    string,
)

FILE = ResourceType(
    name="Example::Local::File",
    description="A file on the machine that runs hotc.",
    properties={
        "path": string(
            required=True,
            constraints=(pattern(r"/.+"),),
            description="Absolute path; a new path replaces the file.",
        ),
        "content": string(default="", update=True, description="What the file holds."),
        "mode": integer(
            default=0o644, update=True, constraints=(range_(0, 0o777),), description="Permission bits."
        ),
    },
    attributes=attrs("path", "size", "sha256", stable=("path",)),
)


class FileDriver:
    def _outcome(self, path: str) -> Outcome:
        data = open(path, "rb").read()  # noqa: SIM115 - a one-shot read
        return Outcome(
            path,
            {"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()},
            properties={
                "path": path,
                "content": data.decode("utf-8", "replace"),
                "mode": os.stat(path).st_mode & 0o777,
            },
        )

    def _write(self, path: str, content: str, mode: int) -> None:
        tmp = f"{path}.hotc-tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(content)
        os.chmod(tmp, mode)
        os.replace(tmp, path)

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        path = str(props["path"])
        ctx.record_physical_id(path)
        self._write(path, str(props.get("content", "")), int(props.get("mode", 0o644)))
        return self._outcome(path)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        if not os.path.isfile(physical_id):
            return None
        return self._outcome(physical_id)

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        self._write(physical_id, str(new.get("content", "")), int(new.get("mode", 0o644)))
        return self._outcome(physical_id)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        try:
            os.unlink(physical_id)
        except FileNotFoundError:
            pass

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None


def resource_types() -> Iterator[PluginType]:
    yield PluginType(FILE, FileDriver())
