"""OS::Heat::SwiftSignalHandle over the signal store: Heat makes a Swift temp URL to a versioned object; hotc a
presigned PUT URL to a versioned S3 object. ``get_resource`` and ``endpoint`` give the URL, ``curl_cli`` is
``curl -i -X PUT '<url>'`` (as Heat's), ``token`` is empty."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.native.signal_mixin import SignalHandleMixin, curl_put


class SwiftSignalHandleDriver(SignalHandleMixin):
    reference = "endpoint"

    def secret_names(self) -> tuple[str, ...]:
        return ("token", "endpoint", "curl_cli")

    def url_attributes(self, url: str, props: Mapping[str, Any]) -> dict[str, Any]:
        return {"token": "", "endpoint": url, "curl_cli": curl_put(url)}
