"""A server's software-config metadata in the signal store (Heat's ``POLL_TEMP_URL`` over S3).

A server with ``user_data_format: SOFTWARE_CONFIG`` gets one private metadata object and a presigned GET URL
to it. The object holds what Heat keeps as the server's metadata: ``deployments`` (every deployment's derived
config, sorted by config name) and ``os-collect-config`` (the ``request`` collector's ``metadata_url``), and is
rewritten whenever a deployment changes; os-collect-config on the server polls it. Each rewrite carries a fresh
URL, which os-apply-config writes into os-collect-config.conf, so a server that gets updates keeps a valid URL
past one URL's lifetime.

The server's user_data is Heat's multipart cloud-init payload: a cloud-config part, a boothook, a part handler
that writes ``text/x-cfninitdata`` parts to ``/var/lib/heat-cfntools/`` (and ``/var/lib/cloud/data/``), the
template's user_data, and ``cfn-init-data`` (the metadata, which os-collect-config's ``heat_local`` collector
reads at first boot).
"""

from __future__ import annotations

import email
import json
import uuid
from collections.abc import Mapping
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import TYPE_CHECKING, Any

from hotc.errors import HotcError
from hotc.providers.base import ActionContext

if TYPE_CHECKING:  # the email package costs ~20 ms of start-up: imported where a MIME message is made
    from email.mime.text import MIMEText

SERVERS = "servers"
INDEX = "server-index"
COLLECTORS = ["ec2", "request", "local"]

# hotc's own small parts (same roles and names as Heat's; not Heat's text)
CLOUD_CONFIG = """#cloud-config
# written by hotc: keep the user's own cloud-config parts working next to the software-config ones
merge_how: dict(recurse_array)+list(append)
"""
BOOTHOOK = """#!/bin/sh
# written by hotc: the directories the software-config agents read at boot
mkdir -p /var/lib/heat-cfntools /var/lib/cloud/data
chmod 700 /var/lib/heat-cfntools
"""
PART_HANDLER = """#part-handler
# written by hotc: store text/x-cfninitdata parts where os-collect-config's heat_local collector reads them
import errno
import os


def list_types():
    return ["text/x-cfninitdata"]


def handle_part(data, ctype, filename, payload):
    if ctype in ("__begin__", "__end__"):
        return
    for directory in ("/var/lib/heat-cfntools", "/var/lib/cloud/data"):
        try:
            os.makedirs(directory, 0o700)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
        with open(os.path.join(directory, filename), "wb") as f:
            f.write(payload.encode("utf-8") if hasattr(payload, "encode") else payload)
"""


def _part(text: str, subtype: str, filename: str) -> MIMEText:
    try:
        text.encode("us-ascii")
        charset = "us-ascii"
    except UnicodeEncodeError:
        charset = "utf-8"
    msg = MIMEText(text, _subtype=subtype, _charset=charset)
    msg.add_header("Content-Disposition", "attachment", filename=filename)
    return msg


def software_config_user_data(user_data: str, metadata: Mapping[str, Any]) -> str:
    """Heat's SOFTWARE_CONFIG user_data: the multipart payload around the template's user_data."""
    parts: list[MIMEText] = [
        _part(CLOUD_CONFIG, "cloud-config", "cloud-config"),
        _part(BOOTHOOK, "cloud-boothook", "boothook.sh"),
        _part(PART_HANDLER, "part-handler", "part-handler.py"),
    ]
    if user_data:
        msg = (
            email.message_from_string(user_data) if user_data.startswith("Content-Type: multipart") else None
        )
        if msg is not None and msg.is_multipart():
            for sub in msg.get_payload():
                if not isinstance(sub, str):
                    parts.append(
                        _part(str(sub.get_payload()), sub.get_content_subtype(), sub.get_filename() or "")
                    )
        else:
            parts.append(_part(user_data, "x-shellscript" if user_data.startswith("#!") else "plain", ""))
    parts.append(_part(json.dumps(metadata), "x-cfninitdata", "cfn-init-data"))
    return MIMEMultipart(_subparts=parts).as_string()


def metadata_document(
    store: Any, key: str, deployments: list[Mapping[str, Any]], collectors: list[str] | None = None
) -> dict[str, Any]:
    """The metadata os-collect-config sees: deployments sorted by config name, and a fresh GET URL.
    ``collectors``: Heat's list for the server type (a Nova server's starts with ``ec2``)."""
    return {
        "deployments": sorted(deployments, key=lambda d: str(d.get("name") or "")),
        "os-collect-config": {
            "collectors": list(collectors if collectors is not None else COLLECTORS),
            "request": {"metadata_url": store.presign(key, "GET")},
            "cfn": None,
            "heat": None,
            "zaqar": None,
        },
    }


def create_server_metadata(ctx: ActionContext, user_data: str) -> tuple[str, str]:
    """Make a new server's metadata object (no deployments yet). Returns (user_data payload, object key)."""
    doc, key = new_metadata_object(ctx)
    return software_config_user_data(user_data, doc), key


def new_metadata_object(
    ctx: ActionContext, collectors: list[str] | None = None, name: str | None = None
) -> tuple[dict[str, Any], str]:
    """Make a server's metadata object with no deployments (``name``: its object name, default a fresh
    UUID). Returns (the metadata document, the object's key)."""
    store = ctx.signals()
    key = store.key(ctx.stack_name, SERVERS, name or str(uuid.uuid4()))
    doc = metadata_document(store, key, [], collectors)
    store.put(key, json.dumps(doc).encode())
    store.put(key + ".deployments", b"{}")
    return doc, key


def register_server(ctx: ActionContext, server_id: str, key: str) -> None:
    """Record which metadata object belongs to the server ``server_id`` (deployments name the server by id)."""
    store = ctx.signals()
    store.put(store.key(ctx.stack_name, INDEX, server_id), key.encode(), "text/plain")


def server_metadata_key(ctx: ActionContext, server_id: str) -> str | None:
    store = ctx.signals()
    raw = store.get(store.key(ctx.stack_name, INDEX, server_id))
    return raw.decode() if raw else None


def forget_server(ctx: ActionContext, server_id: str) -> None:
    store = ctx.signals()
    key = server_metadata_key(ctx, server_id)
    if key is not None:
        store.delete_all(key)
        store.delete_all(key + ".deployments")
    store.delete_all(store.key(ctx.stack_name, INDEX, server_id))


def push_deployment(
    ctx: ActionContext,
    server_id: str,
    name: str,
    config: Mapping[str, Any] | None,
    drop: tuple[str, str] | None = None,
) -> None:
    """Put (or with ``config`` None remove) the deployment ``name``'s derived config in the server's metadata
    and rewrite the metadata object. Serialised per server within the run (deployments run concurrently).
    ``name`` is the deployment's id, so that a replacement and the deployment it replaces are two entries.
    ``drop``: (entry, derived config id): also remove that entry if it still holds that config (an entry
    written under the resource's address by an earlier hotc)."""
    store = ctx.signals()
    key = server_metadata_key(ctx, server_id)
    if key is None:
        if config is None:
            return
        raise HotcError(
            f"server {server_id} has no software-config metadata: give it user_data_format: SOFTWARE_CONFIG "
            "(hotc makes the metadata when it creates the server)"
        )
    with store.lock_for(key):
        raw = store.get(key + ".deployments")
        entries: dict[str, Any] = json.loads(raw) if raw else {}
        if config is None:
            entries.pop(name, None)
        else:
            entries[name] = dict(config)
        if (
            drop is not None
            and isinstance(entries.get(drop[0]), Mapping)
            and entries[drop[0]].get("id") == drop[1]
        ):
            entries.pop(drop[0])
        store.put(key + ".deployments", json.dumps(entries).encode())
        store.put(
            key,
            json.dumps(
                metadata_document(store, key, list(entries.values()), _collectors(store, key))
            ).encode(),
        )


def _collectors(store: Any, key: str) -> list[str] | None:
    """The collectors the server's metadata was made with (a DeployedServer's differ from a Nova server's)."""
    raw = store.get(key)
    try:
        doc = json.loads(raw) if raw else None
    except ValueError:
        return None
    occ = doc.get("os-collect-config") if isinstance(doc, dict) else None
    found = occ.get("collectors") if isinstance(occ, dict) else None
    return [str(c) for c in found] if isinstance(found, list) else None
