"""Shared pytest configuration: each fixture module is owned by the layer that needs it."""

pytest_plugins = [
    "tests.fixtures.cloud",
    "tests.fixtures.s3",
]
