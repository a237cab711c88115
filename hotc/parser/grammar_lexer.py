"""The lark side of :mod:`hotc.parser.grammar`: the custom lexer class lark is built with. A module of its own
so that lark is imported only when a call's shape has to be parsed (lark pickles the class by name into its
cache of the LALR tables, so it cannot be made inside a function)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lark.lexer import Lexer


class NodeLexer(Lexer):
    """lark custom lexer over a ``_LexJob`` of :mod:`hotc.parser.grammar` (interface 1: sees the parser
    state): the job walks the decoded data and yields tokens whose values are leaf indices."""

    __future_interface__ = 1

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Any]:
        job = lexer_state.text
        tokens: Iterator[Any] = job.walk(job.data, parser_state)
        return tokens
