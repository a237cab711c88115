"""Heat's functional test_template_versions (TemplateVersionTest): the template versions Heat lists. Each HOT
version of the suite's list is one hotc accepts (validate)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clirun import run_hotc

supported_template_versions = [
    "2013-05-23",
    "2014-10-16",
    "2015-04-30",
    "2015-10-15",
    "2012-12-12",
    "2010-09-09",
    "2016-04-08",
    "2016-10-14",
    "newton",
    "2017-02-24",
    "ocata",
    "2017-09-01",
    "pike",
    "2018-03-02",
    "queens",
    "2018-08-31",
    "rocky",
    "2021-04-16",
    "wallaby",
]


@pytest.mark.parametrize("version", supported_template_versions)
def test_template_version(tmp_path: Path, version: str) -> None:
    if version in ("2010-09-09", "2012-12-12"):
        pytest.skip("a CloudFormation-format version: hotc reads HOT templates only, by design")
    text = f"heat_template_version: {version}\nresources: {{}}\n"
    (tmp_path / "t.yaml").write_text(text)
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
