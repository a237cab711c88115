"""Running hotc in-process for the secrets tests, and the template they share."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hotc.cli.app import main

HIDDEN = "Zq9-hidden-Pa55"  # the hidden parameter's value: never in a template, a file or an output

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  db_pass:
    type: string
    hidden: true
  tag:
    type: string
    default: v1
  length:
    type: number
    default: 24
resources:
  rnd:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: length}
  a:
    type: OS::Heat::TestResource
    properties:
      value:
        str_replace:
          template: password=$P
          params: {$P: {get_param: db_pass}}
  b:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['-', [{get_attr: [a, output]}, {get_param: tag}]]}
  v:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [rnd, value]}
  w:
    type: OS::Heat::TestResource
    properties:
      value: {get_resource: rnd}
  plain:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: tag}
outputs:
  pw: {value: {get_attr: [a, output]}}
  derived: {value: {get_attr: [b, output]}}
  rv: {value: {get_attr: [v, value]}}
  rid: {value: {get_resource: rnd}}
  wout: {value: {get_attr: [w, output]}}
  tag_out: {value: {get_attr: [plain, output]}}
"""


def hotc(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """One hotc command in-process: (exit code, stdout, stderr); a traceback is a failure."""
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out, err


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def env_without(*names: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in names}
