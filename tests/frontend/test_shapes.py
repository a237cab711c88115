"""The store of call shapes' parse trees (:mod:`hotc.parser.shapes`): the IR built from stored trees is the IR
built from lark's over the corpus, a process that finds every shape stored does not import lark, and a torn,
foreign or oversized file or an unwritable directory is never an error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotc.parser import grammar as G
from hotc.parser import shapes as S
from hotc.parser.api import NO_TYPE_CHECKS, load_stack
from tests.corpus.corpus import WHAT, find_corpus, read_verdicts
from tests.inputs import needs_input

CORPUS = find_corpus(Path(__file__))
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh store directory, and a fresh grammar (the process's memo) before and after the test."""
    monkeypatch.setenv(S.ENV, str(tmp_path / "shapes"))
    G.grammar.cache_clear()
    yield tmp_path / "shapes"
    G.grammar.cache_clear()


def _lark_parses(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    real = G.Grammar._parse_uncached

    def counting(self: G.Grammar, *args: Any) -> Any:
        calls.append(args[-1])
        return real(self, *args)

    monkeypatch.setattr(G.Grammar, "_parse_uncached", counting)
    return calls


def _load_all(rows: list[Any]) -> list[str]:
    assert CORPUS is not None
    out = []
    for row in rows:
        envs = [str(CORPUS / e) for e in row.env_files]
        for strict in (False, True):
            st, diags = load_stack(
                str(CORPUS / row.path),
                envs,
                {},
                {},
                require_values=strict,
                checks=NO_TYPE_CHECKS,
                max_size=None,
            )
            t = None if st is None else st.template
            out.append(repr(t) + repr(diags))
    return out


@needs_input(CORPUS, WHAT)
def test_stored_trees_build_the_ir_lark_builds_over_the_corpus(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert CORPUS is not None
    rows = read_verdicts(CORPUS)
    calls = _lark_parses(monkeypatch)
    with_lark = _load_all(rows)  # every shape parsed by lark, the valid ones stored
    parsed = len(calls)
    (stored_file,) = store.iterdir()
    lines = stored_file.read_text().splitlines()
    assert parsed > 100 and 0 < len(lines) <= parsed
    G.grammar.cache_clear()  # a new process, as far as the grammar knows
    calls.clear()
    from_store = _load_all(rows)
    assert from_store == with_lark
    # only the shapes that do not parse (not stored) went through lark again
    assert len(calls) == parsed - len(lines)


def test_a_process_that_finds_its_shapes_stored_does_not_import_lark(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  r: {type: OS::Heat::RandomString}\n"
        "outputs:\n"
        "  a: {value: {get_attr: [r, value]}}\n"
        "  b: {value: {list_join: ['-', [{get_resource: r}, x]]}}\n"
        "  c: {value: {str_replace: {template: a$b, params: {$b: {get_attr: [r, value]}}}}}\n"
    )
    code = (
        "import sys\n"
        "from hotc.parser.api import NO_TYPE_CHECKS, load_stack\n"
        f"st, d = load_stack({str(template)!r}, [], {{}}, {{}}, require_values=False, checks=NO_TYPE_CHECKS)\n"
        "assert st is not None and not d, d\n"
        "print('lark' in sys.modules, repr(st.template.outputs))\n"
    )
    env = {**os.environ, S.ENV: str(tmp_path / "shapes"), "PYTHONPATH": str(REPO)}

    def run() -> tuple[bool, str]:
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        imported, outputs = out.stdout.strip().split(" ", 1)
        return imported == "True", outputs

    first = run()
    second = run()
    assert first[0] is True and second[0] is False
    assert first[1] == second[1]
    env[S.ENV] = "off"
    assert run()[0] is True and not (tmp_path / "off").exists()


def test_stored_tokens_are_what_the_builder_reads_of_lark_tokens() -> None:
    from lark import Token, Tree

    tree = Tree("start_call", [Tree("get_attr", [Token("FN_GET_ATTR_ALL", 0), Token("STRING", 3)])])
    enc = S.encode(tree)
    assert enc == ["start_call", [["get_attr", [["FN_GET_ATTR_ALL", 0], ["STRING", 3]]]]]
    back = S.decode(json.loads(json.dumps(enc)))
    assert isinstance(back, S.StoredTree) and back.data == "start_call"
    tok = back.children[0].children[1]
    assert isinstance(tok, str) and tok == "3" and tok.type == "STRING" and tok.value == 3
    # a token whose value is not a leaf index, or a child that is neither: not stored
    assert S.encode(Tree("x", [Token("STRING", "text")])) is None
    assert S.encode(Tree("x", [None])) is None
    for bad in ([], ["x"], ["x", "y"], [1, 2], ["x", [["y"]]], {"x": 1}):
        with pytest.raises(ValueError):
            S.decode(bad)


def test_torn_foreign_and_oversized_files(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = G.grammar()
    path = g.store.path
    assert path is not None and path.parent == store
    good = ["2018-08-31", "start_call", ["c:get_attr", "k", "[", "s", "s", "]", "}"]]
    tree = ["start_call", [["get_attr", [["FN_GET_ATTR_ALL", 0], ["LS", 2], ["STRING", 3], ["STRING", 4]]]]]
    store.mkdir(parents=True)
    path.write_text(
        "\n".join(
            [
                '["2018-08-31", "start_call", ["c:get_attr"',  # torn
                "not json",
                json.dumps(["2018-08-31", "start_call", "codes", tree]),  # codes not a list
                json.dumps([*good[:2], [1, 2], tree]),  # codes not strings
                json.dumps([*good, ["STRING", 3]]),  # a token, not a tree
                json.dumps([*good, ["x", "y"]]),
                json.dumps([*good, tree]),
            ]
        )
        + "\n"
    )
    trees = S.ShapeStore(path).trees()
    assert list(trees) == [(good[0], good[1], tuple(good[2]))]
    # oversized: started again
    with open(path, "ab") as fh:
        fh.truncate(S.MAX_BYTES + 1)
    assert S.ShapeStore(path).trees() == {} and not path.exists()


def test_an_unwritable_store_is_off_quietly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(S.ENV, str(blocker / "shapes"))  # a directory under a file: cannot be made
    G.grammar.cache_clear()
    try:
        template = tmp_path / "t.yaml"
        template.write_text(
            "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::RandomString}\n"
            "outputs:\n  a: {value: {get_attr: [r, value]}}\n"
        )
        st, diags = load_stack(str(template), [], {}, {}, require_values=False, checks=NO_TYPE_CHECKS)
        assert st is not None and not diags
        assert G.grammar().store.path is None
    finally:
        G.grammar.cache_clear()


def test_the_file_name_follows_what_the_trees_depend_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(S.ENV, str(tmp_path))
    g = G.Grammar()
    a = S.ShapeStore.for_grammar(g._text, g._functions_text).path
    b = S.ShapeStore.for_grammar(g._text + "\n// another grammar", g._functions_text).path
    c = S.ShapeStore.for_grammar(g._text, g._functions_text + "\n# another table").path
    assert a is not None and len({a, b, c}) == 3
    assert S.store_dir({S.ENV: "off"}) is None
    assert S.store_dir({"XDG_CACHE_HOME": "/x"}) == Path("/x/hotc/shapes")
    assert S.store_dir({"HOME": "/h"}) == Path("/h/.cache/hotc/shapes")
