"""Bounds on what a template may make hotc do, with Heat's figures where Heat has one.

Heat refuses a template or environment over ``max_template_size`` (524288 bytes) and a request body over
``max_json_body_size`` (1048576 bytes) before reading it. It has no explicit bound on nesting: its YAML reader
(libyaml) stops at 1000 levels and everything after it (``json.loads``, function resolution, condition
resolution) recurses in Python, so a document or a chain of conditions a few hundred levels deep ends in a
``RecursionError`` there. hotc names the bound instead, below where anything of its own could run out of stack,
and refuses past it with a positioned error.
"""

from __future__ import annotations

from typing import Any

#: Heat's ``max_template_size`` (bytes): a template, an environment, a ``get_file`` target.
MAX_TEMPLATE_SIZE = 512 * 1024
#: Heat's ``max_json_body_size`` (bytes): the most an evaluated value (a string, or a list or mapping as JSON
#: text) may hold. Heat sends a template, its files and its parameters in one body of at most this size, so no
#: value Heat could be asked to create from can be larger.
MAX_VALUE_SIZE = 1024 * 1024
#: Lists and mappings nested in a template, an environment or a ``json`` parameter value.
MAX_NESTING_DEPTH = 200
#: A condition's depth: the nesting of its expression plus, through each condition it names, that one's depth
#: (with two levels for the reference itself): ``c2: {not: c1}`` is 3 deeper than ``c1``.
MAX_CONDITION_DEPTH = 200


def nesting_depth(value: Any, stop: int = MAX_NESTING_DEPTH + 1) -> int:
    """How deep lists and mappings nest in ``value`` (a scalar is 0, ``[]`` is 1), counted without recursion;
    the walk stops at ``stop``."""
    deepest = 0
    work: list[tuple[Any, int]] = [(value, 1)]
    while work:
        v, d = work.pop()
        if isinstance(v, dict):
            children: Any = v.values()
        elif isinstance(v, list | tuple):
            children = v
        else:
            continue
        if d > deepest:
            deepest = d
            if d >= stop:
                return d
        work.extend((c, d + 1) for c in children if isinstance(c, dict | list | tuple))
    return deepest
