"""Hidden values given in environment files: taken out of every copy of those files hotc keeps, and put back
where a command needs them (``--existing``, a saved plan), byte for byte; a state written before they were
taken out is sealed on its next use, with a note."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hotc.state import hidden_env
from tests.secrets.helpers import HIDDEN, hotc

ENV = f"""\
# the team's environment
parameters:
  db_pass: {HIDDEN}   # rotated monthly
  tag: v1
parameter_defaults:
  length: 20
"""


def _store(workdir: Path) -> str:
    return "".join(p.read_text() for p in (workdir / ".hotc").glob("s.json*"))


def test_scrub_and_refill_give_back_the_same_file() -> None:
    text = (
        "parameters:\n  db_pass: |\n    two\n    lines\n  keep: 1\n"
        "parameter_defaults: {db_pass: 'x y', other: {a: [1, 2]}}\nresource_registry: {A: b.yaml}\n"
    )
    scrubbed, found = hidden_env.scrub(text, ["db_pass", "other"])
    assert "two" not in scrubbed and "x y" not in scrubbed and "[1, 2]" not in scrubbed
    assert "keep: 1" in scrubbed and "resource_registry: {A: b.yaml}" in scrubbed
    assert [(h.section, h.name) for h in found] == [
        ("parameters", "db_pass"),
        ("parameter_defaults", "db_pass"),
        ("parameter_defaults", "other"),
    ]
    assert found[0].value == "two\nlines\n" and found[2].value == {"a": [1, 2]}
    texts = {(h.section, h.name): h.text for h in found}
    assert hidden_env.refill(scrubbed, lambda s, n: texts[(s, n)]) == text
    # scrubbing twice changes nothing more; a template's own parameters section is never an environment's
    assert hidden_env.scrub(scrubbed, ["db_pass", "other"]) == (scrubbed, ())


def test_existing_puts_the_value_back_from_the_state(workdir: Path, capsys: Any) -> None:
    (workdir / "env.yaml").write_text(ENV)
    code, _, err = hotc(capsys, "apply", "-t", "s.yaml", "-e", "env.yaml", "--auto-approve")
    assert code == 0, err
    stored = _store(workdir)
    assert HIDDEN not in stored and "rotated monthly" in stored  # the rest of the file is kept as written
    doc = json.loads((workdir / ".hotc" / "s.json").read_text())
    sealed = doc["template"]["hidden_values"]["env.yaml"]["parameters"]["db_pass"]
    assert set(sealed) == {"digest", "encrypted"}
    # --existing: the stored environment, the value decrypted with the state key; only `tag` changes
    code, out, err = hotc(capsys, "apply", "s", "--existing", "--parameter", "tag=v2", "--auto-approve")
    assert code == 0, err
    assert "1 updated" in out or "to update" in out
    code, out, err = hotc(capsys, "output", "s", "pw", "--show-sensitive")
    assert code == 0 and out.strip() == f"password={HIDDEN}", err
    assert HIDDEN not in _store(workdir)


def test_existing_without_a_key_asks_for_the_value(workdir: Path, capsys: Any, s3_bucket: Any) -> None:
    """An S3 state with no HOTC_STATE_KEY keeps digests only: --existing asks for the value again."""
    (workdir / "env.yaml").write_text(ENV)
    b = ("--backend", s3_bucket.url)
    assert hotc(capsys, "apply", "-t", "s.yaml", "-e", "env.yaml", "--auto-approve", *b)[0] == 0
    code, out, err = hotc(capsys, "plan", "s", "--existing", *b)
    assert code == 1 and "db_pass" in err and "--parameter" in err, err
    code, out, err = hotc(capsys, "plan", "s", "--existing", "--parameter", f"db_pass={HIDDEN}", *b)
    assert code == 0 and "0 to create, 0 to update, 0 to replace, 0 to delete" in out, out + err


def test_saved_plan_takes_the_value_from_the_file_it_was_made_from(workdir: Path, capsys: Any) -> None:
    (workdir / "env.yaml").write_text(ENV)
    code, _, err = hotc(capsys, "plan", "-t", "s.yaml", "-e", "env.yaml", "-o", "p.json")
    assert code == 0, err
    assert HIDDEN not in (workdir / "p.json").read_text()
    moved = workdir / "env.away"
    (workdir / "env.yaml").rename(moved)
    code, _, err = hotc(capsys, "apply", "p.json")
    assert code == 1 and "db_pass" in err and "--parameter" in err, err
    code, _, err = hotc(capsys, "apply", "p.json", "--parameter", "db_pass=not-the-value")
    assert code == 1 and "differs" in err, err
    code, _, err = hotc(capsys, "apply", "p.json", "--parameter", f"db_pass={HIDDEN}")
    assert code == 0, err
    assert hotc(capsys, "output", "s", "pw", "--show-sensitive")[1].strip() == f"password={HIDDEN}"
    # and from the file itself, when it is where the plan saw it
    moved.rename(workdir / "env.yaml")
    (workdir / "env.yaml").write_text(ENV.replace("tag: v1", "tag: v3"))
    assert hotc(capsys, "plan", "-t", "s.yaml", "-e", "env.yaml", "-o", "p2.json")[0] == 0
    code, _, err = hotc(capsys, "apply", "p2.json")
    assert code == 0, err
    assert HIDDEN not in _store(workdir)


def test_a_state_written_in_clear_is_sealed_on_its_next_use(workdir: Path, capsys: Any) -> None:
    """A state document as older versions of hotc wrote it (the environment kept verbatim)."""
    (workdir / "env.yaml").write_text(ENV)
    assert hotc(capsys, "apply", "-t", "s.yaml", "-e", "env.yaml", "--auto-approve")[0] == 0
    path = workdir / ".hotc" / "s.json"
    doc = json.loads(path.read_text())
    doc["template"]["files"]["env.yaml"] = ENV
    del doc["template"]["hidden_values"]
    del doc["template"]["hidden_parameters"]
    path.write_text(json.dumps(doc))
    (workdir / ".hotc" / "s.json.backup").write_text(json.dumps(doc))
    code, out, err = hotc(capsys, "apply", "-t", "s.yaml", "-e", "env.yaml", "--auto-approve")
    assert code == 0, err
    assert "No changes" in out
    assert "note:" in err and "1 hidden parameter value" in err
    assert HIDDEN not in _store(workdir)  # the backup included
    # sealed once: the next run has nothing to say
    code, out, err = hotc(capsys, "apply", "-t", "s.yaml", "-e", "env.yaml", "--auto-approve")
    assert code == 0 and "note:" not in err
