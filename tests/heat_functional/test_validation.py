"""Heat's functional test_validation (SimpleStackValidationTest, StackValidationTest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.heat_functional.heat import HeatStack


def test_validate_json_content(tmp_path: Path) -> None:
    # a value that looks like the start of JSON content is a string
    template = """
heat_template_version: rocky
resources:
  server:
    type: OS::Heat::TestResource
    properties:
      value: =%da
"""
    HeatStack(tmp_path).create(template, expected_status="CREATE_COMPLETE")


@pytest.mark.skip(reason="needs Nova (a server, its key pair, image and flavor): a cloud scenario")
def test_stack_validate_provider_references_parent_resource() -> None:
    pass
