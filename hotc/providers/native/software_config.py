"""The software-config family, as in-process config objects (no cloud and no Heat needed).

OS::Heat::SoftwareConfig, StructuredConfig, CloudConfig and MultipartMime each make an immutable config
object: ``get_resource`` gives its id (a UUID), the ``config`` attribute its content. Every property forces
a replacement (Heat's schemas), so there is no update. CloudConfig's content is ``#cloud-config`` plus the
YAML of ``cloud_config``; MultipartMime's is a MIME multipart message built from ``parts``, where a part's
``config`` naming another config resource of the stack (by its id) is replaced by that config's content.
"""

from __future__ import annotations

import email
import hashlib
import os
import re
import uuid
from collections.abc import Callable, Mapping
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import TYPE_CHECKING, Any

import yaml

from hotc.providers.base import DELETE, ActionContext, Outcome

if TYPE_CHECKING:  # the email package costs ~20 ms of start-up: imported where a MIME message is made
    from email.mime.text import MIMEText

UNGROUPED = "Heat::Ungrouped"


def _io(item: Any, output: bool) -> dict[str, Any]:
    """An input or output as Heat's software config holds it: ``description`` (and an input's ``default``)
    default to ``""``, ``type`` to String; an input's ``replace_on_change`` is kept only when true, an output's
    ``error_output`` always."""
    d = dict(item) if isinstance(item, Mapping) else {"name": item}
    out: dict[str, Any] = {"name": d.get("name"), "description": d.get("description") or ""}
    out["type"] = d.get("type") or "String"
    if output:
        out["error_output"] = bool(d.get("error_output", False))
    else:
        out["default"] = d.get("default", "") if d.get("default") is not None else ""
        if d.get("replace_on_change"):
            out["replace_on_change"] = True
    return out


def _name(ctx: ActionContext, cid: str) -> str:
    """Heat names a config after its resource's physical name, ``STACK-NAME-<12 characters>`` (here derived
    from the config's id, so it is the same on every read)."""
    res = re.sub(r"[^A-Za-z0-9_-]+", "-", ctx.address).strip("-")
    tail = "".join(c for c in hashlib.sha256(cid.encode()).hexdigest() if c.isalpha() or c.isdigit())[:12]
    return f"{ctx.stack_name}-{res}-{tail}"


def _show(cid: str, ctx: ActionContext, group: str, config: Any, props: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "config": config,
        "show": {
            "id": cid,
            "name": _name(ctx, cid),
            "group": group,
            "config": config,
            "inputs": [_io(i, False) for i in props.get("inputs") or []],
            "outputs": [_io(o, True) for o in props.get("outputs") or []],
            "options": dict(props.get("options") or {}),
        },
    }


class _ConfigDriver:
    """Shared CRUD of an immutable config object; subclasses say what the content is."""

    def content(self, ctx: ActionContext, props: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def group(self, props: Mapping[str, Any]) -> str:
        return str(props.get("group") or UNGROUPED)

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        cid = str(uuid.uuid4())
        return Outcome(cid, _show(cid, ctx, self.group(props), self.content(ctx, props), props))

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        return Outcome(
            physical_id, _show(physical_id, ctx, self.group(props), self.content(ctx, props), props)
        )

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # immutable: any real change is planned as a replacement; keep the id when nothing changed
        return self.read(ctx, physical_id, new) or Outcome(physical_id)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        return None

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None


class SoftwareConfigDriver(_ConfigDriver):
    def content(self, ctx: ActionContext, props: Mapping[str, Any]) -> Any:
        return props.get("config")


class StructuredConfigDriver(_ConfigDriver):
    def content(self, ctx: ActionContext, props: Mapping[str, Any]) -> Any:
        return props.get("config")


def cloud_config_text(cloud_config: Any) -> str:
    return "#cloud-config\n" + yaml.safe_dump(cloud_config)


class CloudConfigDriver(_ConfigDriver):
    def group(self, props: Mapping[str, Any]) -> str:
        return UNGROUPED

    def content(self, ctx: ActionContext, props: Mapping[str, Any]) -> Any:
        return cloud_config_text(props.get("cloud_config") or {})


def _is_uuid(s: Any) -> bool:
    if not isinstance(s, str):
        return False
    try:
        uuid.UUID(s)
    except ValueError:
        return False
    return True


def _message(part: str, subtype: str, filename: str) -> MIMEText:
    try:
        part.encode("us-ascii")
        charset = "us-ascii"
    except UnicodeEncodeError:
        charset = "utf-8"
    msg = MIMEText(part, _subtype=subtype, _charset=charset) if subtype else MIMEText(part, _charset=charset)
    if filename:
        msg.add_header("Content-Disposition", "attachment", filename=filename)
    return msg


def multipart_text(parts: list[Any], lookup: Callable[[str], Any]) -> str:
    """The MIME message for ``parts``; ``lookup(id)`` gives the content of a config object or None."""
    subparts: list[Any] = []
    for item in parts or []:
        item = item or {}
        config = item.get("config")
        part = config
        if isinstance(config, str) and _is_uuid(config):
            found = lookup(config)
            if found is not None:
                part = found
        if not isinstance(part, str):
            part = yaml.safe_dump(part) if part is not None else ""
        if item.get("type", "text") == "multipart":
            msg = email.message_from_string(part)
            if msg.is_multipart():
                for sub in msg.get_payload():
                    if isinstance(sub, str):
                        continue
                    subparts.append(
                        _message(str(sub.get_payload()), sub.get_content_subtype(), sub.get_filename() or "")
                    )
            continue
        filename = item.get("filename") or ""
        subtype = item.get("subtype") or ""
        if not subtype and filename:
            subtype = os.path.splitext(filename)[0]
        subparts.append(_message(part, subtype, filename))
    return MIMEMultipart(_subparts=subparts).as_string()


class MultipartMimeDriver(_ConfigDriver):
    def content(self, ctx: ActionContext, props: Mapping[str, Any]) -> Any:
        lookup = getattr(ctx, "lookup", None)

        def config_of(cid: str) -> Any:
            if lookup is None:
                return None
            rs = lookup(cid)
            if rs is None:
                return None
            return rs.attributes.get("config")

        return multipart_text(list(props.get("parts") or []), config_of)
