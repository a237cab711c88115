"""OS::Heat::ScalingPolicy over the signal store.

Heat's policy is a signal responder: ``alarm_url`` is a pre-signed (EC2-signed) CFN URL an alarm service POSTs
to with no other credential, ``signal_url`` a Heat API URL. hotc has no API, so the policy is one object in the
signal store (``PREFIX/STACK/policies/ID``):

- ``signal_url`` is a presigned PUT URL to it (``curl -X PUT URL`` from any webhook sender; every PUT is one
  pending signal, kept as an object version);
- ``alarm_url`` is where ``hotc watch STACK --listen`` receives an alarm service's POST
  (``RECEIVER_URL/v1/signal/ID/TOKEN``, ``[signals] receiver_url`` / ``HOTC_SIGNAL_RECEIVER``), which it stores
  as a pending signal of the same object; without a receiver it is the presigned PUT URL (S3 cannot take a
  POST).

Both are credentials (masked in plans and outputs, encrypted in the state). The receiver knows a token only by
its sha256, kept in the store beside the policy's object (``ID.alarm``). Signals are executed by ``hotc
signal``, ``hotc watch`` or the next ``hotc apply`` (:mod:`hotc.apply.scaling`), never by the policy's create.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from collections.abc import Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.signal_mixin import KEY_ATTR

POLICIES = "policies"
ALARM_SUFFIX = ".alarm"  # the object beside the policy's holding its alarm token's sha256
SECRETS = ("alarm_url", "signal_url")
RECEIVER_PATH = "/v1/signal/"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ScalingPolicyDriver:
    """Create/read/update/delete of a policy: its object key, the URLs to it."""

    def _outcome(self, pid: str, attrs: Mapping[str, Any]) -> Outcome:
        return Outcome(pid, attrs, sensitive_attributes=SECRETS)

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        pid = str(uuid.uuid4())
        store = ctx.signals()
        key = store.key(ctx.stack_name, POLICIES, pid)
        signal_url = store.presign(key, "PUT")
        ctx.record_physical_id(pid)
        receiver = getattr(store.cfg, "receiver_url", None)
        attrs: dict[str, Any] = {KEY_ATTR: key, "signal_url": signal_url}
        if receiver:
            token = secrets.token_urlsafe(32)
            store.put(key + ALARM_SUFFIX, json.dumps({"sha256": token_digest(token)}).encode())
            attrs["alarm_url"] = f"{receiver}{RECEIVER_PATH}{pid}/{token}"
        else:
            attrs["alarm_url"] = signal_url
        return self._outcome(pid, attrs)

    def _key(self, ctx: ActionContext, physical_id: str) -> dict[str, Any]:
        return {KEY_ATTR: ctx.signals().key(ctx.stack_name, POLICIES, physical_id)}

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        # what the state recorded, as in Heat: its alarm_url and signal_url are signed from the credentials and
        # the URL it wrote in the resource's data at create (access_key/secret_key, heat_signal_url), asking no
        # service. Here the key and the URLs live only in the state (presigning again would give other URLs), so
        # the refresh keeps them (no attributes here) and needs no signal store
        return self._outcome(physical_id, {})

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # scaling_adjustment, adjustment_type, cooldown, min_adjustment_step: read again by the next signal
        return self._outcome(physical_id, self._key(ctx, physical_id))

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        store = ctx.signals()
        key = store.key(ctx.stack_name, POLICIES, physical_id)
        store.delete_all(key)
        store.delete_all(key + ALARM_SUFFIX)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None
