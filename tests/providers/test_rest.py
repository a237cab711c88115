"""The REST plumbing shared by the Aodh, Manila and Mistral drivers (hotc.providers.openstack.rest): an error
answer is the service's exception with its status and its own message, read from the JSON each service writes
(or the text of a non-JSON answer), cut at 500 characters; a good answer is its JSON, an empty one None."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hotc.providers.openstack.aodh.base import AodhHTTPError
from hotc.providers.openstack.aodh.base import _message as aodh_message
from hotc.providers.openstack.common import NotFound, call
from hotc.providers.openstack.manila.common import ManilaHTTPError
from hotc.providers.openstack.manila.common import _message as manila_message
from hotc.providers.openstack.mistral.api import MistralHTTPError
from hotc.providers.openstack.mistral.api import _message as mistral_message
from hotc.providers.openstack.rest import ServiceHTTPError, json_answer


class Resp:
    def __init__(self, status: int, body: Any = None, text: str | None = None) -> None:
        self.status_code = status
        self.text = text if text is not None else ("" if body is None else json.dumps(body))
        self.content = self.text.encode()
        self.reason = "Reason"

    def json(self) -> Any:
        return json.loads(self.text)


@pytest.mark.parametrize(
    ("error", "message", "body", "expected"),
    [
        (ManilaHTTPError, manila_message, {"itemNotFound": {"code": 404, "message": "Share x not found"}}, "Share x not found"),
        (AodhHTTPError, aodh_message, {"error_message": {"faultstring": "Alarm x not found"}}, "Alarm x not found"),
        (AodhHTTPError, aodh_message, {"error_message": "bad rule"}, "bad rule"),
        (MistralHTTPError, mistral_message, {"faultstring": "Workflow not found [name=w]"}, "Workflow not found [name=w]"),
    ],
)  # fmt: skip
def test_an_error_answer_carries_its_status_and_the_services_own_message(
    error: type[ServiceHTTPError], message: Any, body: Any, expected: str
) -> None:
    with pytest.raises(error) as got:
        json_answer(Resp(404, body), error, message)
    assert got.value.status_code == 404 and got.value.details == expected == str(got.value)


def test_a_non_json_error_gives_its_text_and_long_ones_are_cut() -> None:
    with pytest.raises(MistralHTTPError) as got:
        json_answer(Resp(502, text="  Bad Gateway  "), MistralHTTPError, mistral_message)
    assert got.value.details == "Bad Gateway"
    with pytest.raises(MistralHTTPError) as got:
        json_answer(Resp(400, {"faultstring": "x" * 900}), MistralHTTPError, mistral_message)
    assert got.value.details == "x" * 500


def test_a_good_answer_is_its_json_and_an_empty_one_none() -> None:
    assert json_answer(Resp(200, {"a": 1}), MistralHTTPError, mistral_message) == {"a": 1}
    assert json_answer(Resp(204), MistralHTTPError, mistral_message) is None
    assert json_answer(Resp(202, text=""), MistralHTTPError, mistral_message) is None


def test_call_takes_a_404_for_not_found() -> None:
    def missing() -> Any:
        return json_answer(Resp(404, {"faultstring": "gone"}), MistralHTTPError, mistral_message)

    with pytest.raises(NotFound):
        call(None, "read workflow w", missing)
