"""OS::Heat::WaitConditionHandle over the signal store.

Heat's default transport, TOKEN_SIGNAL, gives a Heat API endpoint and a Keystone token to POST to. hotc has no
API: ``endpoint`` is a presigned PUT URL to the handle's object instead, ``curl_cli`` a curl prefix that PUTs
to it (so ``wc_notify --data-binary '{"status": "SUCCESS"}'`` works unchanged) and ``token`` is empty (the
URL carries its own signature). TEMP_URL_SIGNAL gives ``signal`` = ``{"alarm_url": URL}`` as Heat does (and
no endpoint/curl_cli/token); NO_SIGNAL needs no signal at all (a WaitCondition on it completes at once).
CFN_SIGNAL, HEAT_SIGNAL and ZAQAR_SIGNAL need a Heat or Zaqar service and are refused at plan time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hotc.providers.native.signal_mixin import SignalHandleMixin, curl_put

SECRETS = ("token", "endpoint", "curl_cli", "signal")


class WaitConditionHandleDriver(SignalHandleMixin):
    def secret_names(self) -> tuple[str, ...]:
        return SECRETS

    def needs_store(self, props: Mapping[str, Any]) -> bool:
        return bool(props.get("signal_transport", "TOKEN_SIGNAL") != "NO_SIGNAL")

    def url_attributes(self, url: str, props: Mapping[str, Any]) -> dict[str, Any]:
        transport = props.get("signal_transport") or "TOKEN_SIGNAL"
        if transport == "TOKEN_SIGNAL":
            return {"token": "", "endpoint": url, "curl_cli": curl_put(url), "signal": json.dumps(None)}
        if transport == "TEMP_URL_SIGNAL":
            return {
                "token": None,
                "endpoint": None,
                "curl_cli": None,
                "signal": json.dumps({"alarm_url": url}),
            }
        return {"token": None, "endpoint": None, "curl_cli": None, "signal": json.dumps({})}
