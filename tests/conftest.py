"""Shared pytest configuration: each fixture module is owned by the layer that needs it."""

import pytest

from tests.inputs import check_needed_inputs

pytest_plugins = [
    "tests.fixtures.cloud",
    "tests.fixtures.s3",
    "tests.fixtures.agents",
]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    check_needed_inputs(item)
