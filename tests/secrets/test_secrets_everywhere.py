"""The secrets grep: a stack fed a hidden parameter and RandomStrings (in the root and in a nested stack) goes
through create, update, replace, a failed apply, a recovery and destroy. Every command's output in every format,
every saved plan, every state document, backup and stored version, and every event is collected, then grepped
for the hidden value and every random string, in clear, in base64 and in hex: nothing may be found.
``hotc output --show-sensitive`` is the one way to see them, and the test checks that it does.

The hidden value is given each way a user can give it: ``--parameter``, ``--parameter-file``, an environment
file's ``parameters`` or ``parameter_defaults``; and a nested template's own hidden parameter is set by an
environment's ``parameter_defaults``.

Offline: Heat-native types only (TestResource, Value, RandomString, a template resource); local state, and the
S3 backend over moto when it is installed."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.secrets.helpers import hotc

HIDDEN = "Hv7-hidden-Qm2pass"

ROOT = """\
heat_template_version: 2018-08-31
parameters:
  db_pass: {type: string, hidden: true}
  tag: {type: string, default: v1}
  length: {type: number, default: 24}
  fail: {type: boolean, default: false}
resources:
  # its own hidden parameter, set by an environment's parameter_defaults (or its default)
  deep:
    type: deep.yaml
  rnd:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
  a:
    type: OS::Heat::TestResource
    properties:
      value: {str_replace: {template: password=$P, params: {$P: {get_param: db_pass}}}}
  b:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['-', [{get_attr: [a, output]}, {get_param: tag}]]}
  v:
    type: OS::Heat::Value
    properties: {value: {get_attr: [rnd, value]}}
  w:
    type: OS::Heat::TestResource
    properties: {value: {get_resource: rnd}}
  f:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [v, value]}
      fail: {get_param: fail}
  nest:
    type: child.yaml
    properties:
      secret_in: {get_attr: [b, output]}
  after_nest:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [nest, cr]}}
  plain:
    type: OS::Heat::TestResource
    properties: {value: {get_param: tag}}
  # secrets and plain values side by side in one map and one list: only the secret leaves are hidden
  mixed:
    type: OS::Heat::Value
    properties:
      value:
        password: {get_param: db_pass}
        token: {get_attr: [rnd, value]}
        replicas: {get_param: length}
        tag: {get_param: tag}
        items: [{get_param: db_pass}, plain-item-Zq9, {get_resource: rnd}]
  mixed_reader:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [mixed, value, tag]}}
outputs:
  pw: {value: {get_attr: [a, output]}}
  derived: {value: {get_attr: [b, output]}}
  rv: {value: {get_attr: [v, value]}}
  rid: {value: {get_resource: rnd}}
  nest_echo: {value: {get_attr: [nest, echoed]}}
  nest_rnd: {value: {get_attr: [nest, cr]}}
  after_nest_out: {value: {get_attr: [after_nest, output]}}
  tag_out: {value: {get_attr: [plain, output]}}
  mixed_tag: {value: {get_attr: [mixed, value, tag]}}
  mixed_replicas: {value: {get_attr: [mixed, value, replicas]}}
  mixed_item: {value: {get_attr: [mixed, value, items, 1]}}
  mixed_secret: {value: {get_attr: [mixed, value, password]}}
  mixed_token: {value: {get_attr: [mixed, value, token]}}
  mixed_reader_out: {value: {get_attr: [mixed_reader, output]}}
"""

CHILD = """\
heat_template_version: 2018-08-31
parameters:
  secret_in: {type: string}
resources:
  inner:
    type: OS::Heat::TestResource
    properties: {value: {get_param: secret_in}}
  crnd:
    type: OS::Heat::RandomString
    properties: {length: 20}
outputs:
  echoed: {value: {get_attr: [inner, output]}}
  cr: {value: {get_attr: [crnd, value]}}
"""

DEEP = """\
heat_template_version: 2018-08-31
parameters:
  deep_pw: {type: string, hidden: true, default: not-a-secret}
resources:
  keeper:
    type: OS::Heat::TestResource
    properties: {value: {get_param: deep_pw}}
"""

DEEP_HIDDEN = "Dp4-nested-Xk8pass"

SENSITIVE_OUTPUTS = {
    "pw",
    "derived",
    "rv",
    "rid",
    "nest_echo",
    "nest_rnd",
    "after_nest_out",
    "mixed_secret",
    "mixed_token",
}
PLAN_FORMATS = ("text", "json", "markdown", "sarif")


@dataclass
class Run:
    """Everything hotc printed or wrote, and every secret value it must not show."""

    capsys: Any
    backend: tuple[str, ...]
    stored: Callable[[], dict[str, bytes]]
    texts: dict[str, str] = field(default_factory=dict)
    secrets: set[str] = field(default_factory=lambda: {HIDDEN})
    # how the hidden value is given: to plan or apply -t, and to apply PLANFILE
    given: tuple[str, ...] = ()
    given_to_saved: tuple[str, ...] = ()

    def __call__(self, label: str, *args: str, expect: int | None = 0) -> tuple[int, str, str]:
        code, out, err = hotc(self.capsys, *args)
        n = len(self.texts)
        self.texts[f"{n:03d} {label}: hotc {' '.join(args)} [stdout]"] = out
        self.texts[f"{n:03d} {label}: hotc {' '.join(args)} [stderr]"] = err
        if expect is not None:
            assert code == expect, (label, args, out, err)
        return code, out, err

    def snapshot(self, label: str) -> None:
        for name, data in self.stored().items():
            self.texts[f"{label}: stored {name}"] = data.decode("utf-8", "replace")

    def reveal(self, label: str) -> dict[str, Any]:
        """The sensitive outputs in clear (the one way), also recorded as secrets to grep for."""
        code, out, err = hotc(
            self.capsys, "output", "s", "--format", "json", "--show-sensitive", *self.backend
        )
        assert code == 0, err
        doc = json.loads(out)
        assert {k for k, o in doc.items() if o["sensitive"]} == SENSITIVE_OUTPUTS, (label, doc)
        for name in ("rv", "rid", "nest_rnd"):
            value = doc[name]["value"]
            assert isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9]{16,24}", value), (label, name, value)
            self.secrets.add(value)
        assert doc["pw"]["value"] == f"password={HIDDEN}"
        assert doc["mixed_secret"]["value"] == HIDDEN and not doc["mixed_tag"]["sensitive"]
        # the masked views of the same command say (sensitive), never the value
        code, out, _ = hotc(self.capsys, "output", "s", "pw", "--show-sensitive", *self.backend)
        assert code == 0 and out.strip() == f"password={HIDDEN}"
        return doc


def _read_everything(run: Run, label: str) -> None:
    b = run.backend
    for fmt in ("text", "json"):
        run(label, "output", "s", "--format", fmt, *b)
        run(label, "show", "s", "--format", fmt, *b)
        run(label, "resource", "list", "s", "--format", fmt, *b)
        run(label, "events", "s", "--format", fmt, *b)
    run(label, "output", "s", "pw", *b, expect=1)  # sensitive: refused without --show-sensitive
    run(label, "output", "s", "tag_out", *b)
    _, listing, _ = run(label, "state", "list", "s", *b)
    addresses = listing.split()
    assert "nest.inner" in addresses and "nest.crnd" in addresses and "rnd" in addresses
    for addr in addresses:
        for fmt in ("text", "json"):
            run(label, "resource", "show", "s", addr, "--format", fmt, *b)
            run(label, "state", "show", "s", addr, "--format", fmt, *b)
    for fmt in ("dot", "mermaid"):
        run(label, "graph", "s", "--format", fmt, *b)
    run(label, "check", "s", *b, expect=None)
    run(label, "state", "pull", "s", *b)
    run(label, "state", "history", "s", *b)
    run(label, "template", "show", "s", *b)
    run(label, "stack", "list", *b)


def _plan_everything(run: Run, label: str, workdir: Path, *params: str) -> Path:
    args = ("plan", "-t", "root.yaml", "s", *params, *run.backend)
    for fmt in PLAN_FORMATS:
        run(label, *args, "--format", fmt)
    run(label, "validate", "-t", "root.yaml", *params, "--format", "json")
    run(label, "graph", "-t", "root.yaml", *params)
    saved = workdir / f"{label}.plan.json"
    run(label, *args, "-o", str(saved))
    for fmt in ("text", "json", "markdown"):
        run(label, "show", str(saved), "--format", fmt)
    run.texts[f"{label}: saved plan {saved.name}"] = saved.read_text()
    return saved


def _texts(run: Run, label: str, *needles: str) -> list[str]:
    """What was recorded under ``label`` whose name holds every needle."""
    return [
        t
        for k, t in run.texts.items()
        if (k.startswith(f"{label}:") or k.split(" ", 1)[-1].startswith(f"{label}:"))
        and all(n in k for n in needles)
    ]


def _side_by_side(run: Run, label: str, tag: str, length: int) -> None:
    """The plain values beside secrets in ``mixed`` show, in every format; the secret leaves do not (the grep
    checks they are never in clear)."""
    plan = "plan -t root.yaml"
    (text,) = _texts(run, label, plan, "--format text", "[stdout]")
    (md,) = _texts(run, label, plan, "--format markdown", "[stdout]")
    (js,) = _texts(run, label, plan, "--format json", "[stdout]")
    (saved,) = _texts(run, label, "saved plan")
    if label == "create":
        block = text.split("+ mixed (OS::Heat::Value)")[1].split("\n\n")[0]
        assert '"plain-item-Zq9"' in block and f'"replicas": {length}' in block and f'"tag": "{tag}"' in block
        assert '"password": "(sensitive)"' in block and '"token": "(sensitive)"' in block
        assert "plain-item-Zq9" in md and "plain-item-Zq9" in saved
        mixed = next(c for c in json.loads(js)["resource_changes"] if c["address"] == "mixed")
        value = mixed["after"]["value"]
        assert value["replicas"] == length and value["tag"] == tag and value["items"][1] == "plain-item-Zq9"
        assert value["password"] is None and value["token"] is None and value["items"][0] is None
        assert mixed["after_sensitive"] == {
            "value": {"password": True, "token": True, "items": [True, False, True]}
        }
    elif label == "update":
        assert f'~ value.tag: "v1" -> "{tag}"' in text, text
    elif label == "replace":
        assert f"~ value.replicas: 24 -> {length}" in text, text
    outs = json.loads(_texts(run, label, "output s --format json", "[stdout]")[-1])
    assert outs["mixed_tag"] == {"value": tag, "description": "", "sensitive": False}
    assert outs["mixed_replicas"]["value"] == length and outs["mixed_item"]["value"] == "plain-item-Zq9"
    assert outs["mixed_secret"]["value"] is None and outs["mixed_secret"]["sensitive"] is True
    (state,) = _texts(run, label, "state show s mixed --format json", "[stdout]")
    assert "plain-item-Zq9" in state and f'"replicas": {length}' in state


def _scenario(run: Run, workdir: Path) -> None:
    (workdir / "root.yaml").write_text(ROOT)
    (workdir / "child.yaml").write_text(CHILD)
    (workdir / "deep.yaml").write_text(DEEP)
    secret = run.given
    b = run.backend

    # create, from a saved plan
    saved = _plan_everything(run, "create", workdir, *secret)
    run("create", "apply", str(saved), *run.given_to_saved, *b)
    first = run.reveal("create")
    run.snapshot("create")
    _read_everything(run, "create")
    _side_by_side(run, "create", "v1", 24)

    # update in place: b, the nested stack's inner resource and what reads them
    _plan_everything(run, "update", workdir, *secret, "--parameter", "tag=v2")
    _, out, _ = run(
        "update", "apply", "-t", "root.yaml", "s", *secret, "--parameter", "tag=v2", "--auto-approve", *b
    )
    assert "Apply complete!" in out and "to update" in out
    assert run.reveal("update")["derived"]["value"] == f"password={HIDDEN}-v2"
    run.snapshot("update")
    _read_everything(run, "update")
    _side_by_side(run, "update", "v2", 24)

    # replace: a new random string (the old one is deposed, then deleted); v, w, f follow
    tag2 = ("--parameter", "tag=v2")
    _plan_everything(run, "replace", workdir, *secret, *tag2, "--parameter", "length=16")
    _, out, _ = run(
        "replace",
        "apply",
        "-t",
        "root.yaml",
        "s",
        *secret,
        *tag2,
        "--parameter",
        "length=16",
        "--auto-approve",
        *b,
    )
    assert "1 replaced" in out, out
    second = run.reveal("replace")
    assert second["rv"]["value"] != first["rv"]["value"] and len(second["rv"]["value"]) == 16
    run.snapshot("replace")
    _read_everything(run, "replace")
    _side_by_side(run, "replace", "v2", 16)

    # a failed apply: f fails to update, the stack is left failed
    failing = (*secret, *tag2, "--parameter", "length=16", "--parameter", "fail=true")
    _plan_everything(run, "failure", workdir, *failing)
    _, out, err = run("failure", "apply", "-t", "root.yaml", "s", *failing, "--auto-approve", *b, expect=1)
    assert "FAILED" in out + err and "Test Resource failed" in out + err
    run.snapshot("failure")
    _read_everything(run, "failure")

    # recovery
    run(
        "recover",
        "apply",
        "-t",
        "root.yaml",
        "s",
        *secret,
        *tag2,
        "--parameter",
        "length=16",
        "--auto-approve",
        *b,
    )
    run.reveal("recover")
    run.snapshot("recover")

    # destroy
    for fmt in PLAN_FORMATS:
        run("destroy", "plan", "--destroy", "s", "--format", fmt, *b)
    saved = workdir / "destroy.plan.json"
    run("destroy", "plan", "--destroy", "s", "-o", str(saved), *b)
    run.texts["destroy: saved plan"] = saved.read_text()
    run("destroy", "destroy", "s", "--auto-approve", *b)
    run.snapshot("destroy")
    run("destroy", "stack", "list", *b)


def _encodings(secret: str) -> set[str]:
    raw = secret.encode()
    return {
        secret,
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
        raw.hex(),
        raw.hex().upper(),
    }


def _grep(run: Run) -> None:
    assert len(run.secrets) >= 4  # the hidden value, two generations of rnd, the nested stack's crnd
    wanted = {form: secret for secret in run.secrets for form in _encodings(secret)}
    found = [(label, wanted[form]) for label, text in run.texts.items() for form in wanted if form in text]
    assert not found, f"secrets found in clear: {found[:10]}"
    # the grep covered what it claims: outputs of every format, stored documents and events
    joined = "\n".join(run.texts)
    for what in ("--format markdown", "--format sarif", "saved plan", "stored", "events s --format json"):
        assert what in joined, what
    assert sum("(sensitive)" in t for t in run.texts.values()) > 50


# each way of giving the hidden value: (files to write, args for plan / apply -t, args for apply PLANFILE)
WAYS: dict[str, tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]] = {
    "--parameter": ({}, ("--parameter", f"db_pass={HIDDEN}"), ("--parameter", f"db_pass={HIDDEN}")),
    "--parameter-file": (
        {"pw.txt": HIDDEN},
        ("--parameter-file", "db_pass=pw.txt"),
        ("--parameter", f"db_pass={HIDDEN}"),
    ),
    "-e parameters": ({"env.yaml": f"parameters:\n  db_pass: {HIDDEN}\n"}, ("-e", "env.yaml"), ()),
    "-e parameter_defaults": (
        {"env.yaml": f"parameter_defaults:\n  db_pass: '{HIDDEN}'\n  deep_pw: {DEEP_HIDDEN}\n"},
        ("-e", "env.yaml"),
        (),
    ),
    "-e both, and a nested template's own": (
        {
            "base.yaml": f"parameter_defaults: {{deep_pw: {DEEP_HIDDEN}}}\n",
            "env.json": json.dumps({"parameters": {"db_pass": HIDDEN}, "parameter_defaults": {"tag": "v1"}}),
        },
        ("-e", "base.yaml", "-e", "env.json"),
        (),
    ),
}


def _run_for(way: str, workdir: Path, capsys: Any, backend: tuple[str, ...], stored: Any) -> Run:
    files, given, to_saved = WAYS[way]
    for name, text in files.items():
        (workdir / name).write_text(text)
    run = Run(capsys, backend, stored, given=given, given_to_saved=to_saved)
    if DEEP_HIDDEN in "".join(files.values()):
        run.secrets.add(DEEP_HIDDEN)
    return run


@pytest.mark.parametrize("way", list(WAYS))
def test_secrets_never_appear_in_clear_local(way: str, workdir: Path, capsys: Any) -> None:
    store = workdir / ".hotc"

    def stored() -> dict[str, bytes]:
        return {str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()}

    run = _run_for(way, workdir, capsys, (), stored)
    _scenario(run, workdir)
    _grep(run)
    # the local key file exists (it is the key, not a secret value) and the state documents are gone with the stack
    assert (store / "state.key").exists()


@pytest.mark.parametrize("way", ["--parameter", "-e both, and a nested template's own"])
def test_secrets_never_appear_in_clear_s3(
    way: str, workdir: Path, capsys: Any, s3_bucket: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOTC_STATE_KEY", "team passphrase for the secrets test")
    client = s3_bucket.client()

    def stored() -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for page in client.get_paginator("list_object_versions").paginate(Bucket=s3_bucket.name):
            for v in page.get("Versions", []):
                body = client.get_object(Bucket=s3_bucket.name, Key=v["Key"], VersionId=v["VersionId"])[
                    "Body"
                ]
                out[f"{v['Key']}@{v['VersionId']}"] = body.read()
        return out

    run = _run_for(way, workdir, capsys, ("--backend", s3_bucket.url), stored)
    _scenario(run, workdir)
    _grep(run)
    assert any(k.endswith(".json") or "state" in k for k in stored()), "the S3 state was collected"
