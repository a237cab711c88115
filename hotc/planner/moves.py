"""Planned moves: a resource that changes address in the template keeps its object (Terraform's ``moved``).

A move ``OLD=NEW`` says that what the state records at ``OLD`` is, from now on, the template's ``NEW``: a
rename (``server=web``), into or out of a group (``web=group[0]``, ``group[2]=web``), into or out of a nested
template (``db=app.db``, ``app.db=db``), or a whole group or nested stack at once (``web=app`` moves ``web[0]``,
``web[1].port``, ... to ``app[0]``, ``app[1].port``). Addresses follow the conventions (``name``,
``name[index]``, ``parent.child``, composable).

Moves come from ``--move OLD=NEW`` (plan, apply), the ``moves`` list of a pinned stack in ``hotc.toml``, and the
moves file beside the template (``TEMPLATE_STEM.moves.yaml``, see :func:`moves_file_for`), so that a move is
reviewed with the template change that needs it.

The planner applies the moves to the recorded state before it compares (:func:`move_state`): the moved
resource is planned at its new address as any other (no-op, or the update its properties need), and its change
carries ``moved_from``; the plan lists the moves (``Plan.moves``) and the apply performs them on the state alone
(no cloud call) before anything else, recording one event per moved resource.

Checked (:func:`resolve_moves`, :func:`check_types`): OLD must be in the state and NEW free (a move given on the
command line; one from a file whose OLD is gone and whose NEW is recorded is taken as done, with a note); the
type may not change; NEW must be in the template.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from hotc.errors import HotcError, did_you_mean
from hotc.model import model
from hotc.state.document import StackState

FLAG = "--move"
MOVES_FILE_SUFFIX = ".moves.yaml"

# one step of an address: a resource name (no dot, bracket, equals sign or blank), then member indexes
_STEP = re.compile(r"[^.\[\]=\s]+(\[\d+\])*")


@model(slots=True)
class Move:
    """One requested move, as given: ``from_address`` and ``to_address`` (a leaf, a group or a nested stack),
    ``source`` (``--move``, ``hotc.toml [stacks.NAME]``, the moves file and its line), and ``leaves``: the
    recorded leaf addresses it moves, (old, new) pairs, filled in when the plan is made."""

    from_address: str
    to_address: str
    source: str = FLAG
    leaves: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return f"{self.from_address}={self.to_address}"


def parse_address(text: str, where: str = FLAG) -> str:
    """``text`` as an address (``name``, ``name[2]``, ``parent.child``, ``web[2].port``), or HotcError."""
    addr = text.strip()
    if not addr or not all(_STEP.fullmatch(step) for step in addr.split(".")):
        raise HotcError(
            f"{where}: {text!r} is not a resource address: use NAME, NAME[INDEX] (a group member) or "
            "PARENT.CHILD (a resource of a nested template), e.g. 'web', 'group[2]', 'app.db'"
        )
    return addr


def parse_move(text: str, source: str = FLAG) -> Move:
    """``OLD=NEW`` (``--move``, a ``moves`` entry of ``hotc.toml``)."""
    old, sep, new = text.partition("=")
    if not sep:
        raise HotcError(
            f"{source}: {text!r}: expected OLD=NEW, e.g. --move server=web or --move web=group[0]"
        )
    move = Move(parse_address(old, source), parse_address(new, source), source)
    if move.from_address == move.to_address:
        raise HotcError(f"{source}: {text!r} moves {move.from_address} onto itself; remove it")
    return move


def moves_file_for(template: Path) -> Path:
    """The moves file of a template: beside it, named after it (``web.yaml`` -> ``web.moves.yaml``)."""
    return template.with_name(template.stem + MOVES_FILE_SUFFIX)


def load_moves_file(path: Path) -> tuple[Move, ...]:
    """The moves of a moves file (none when there is no such file)::

    moves:
      - from: server
        to: web
      - from: web
        to: group[0]
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    except OSError as exc:
        raise HotcError(f"{path}: error: cannot read it: {exc.strerror or exc}") from exc
    import yaml  # lazy: only a template with a moves file pays for it; hotc check must not load yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        raise HotcError(
            f"{place}: error: not valid YAML: {getattr(exc, 'problem', exc)}; fix the file"
        ) from None
    shape = "a moves file holds 'moves:', a list of entries {from: OLD, to: NEW} (docs/guides/moves.md)"

    def at(node: Any) -> str:
        return f"{path}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"

    if root is None:
        return ()
    if not isinstance(root, yaml.MappingNode):
        raise HotcError(f"{at(root)}: error: {shape}")
    items: Any = None
    for key, value in root.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value == "moves"):
            raise HotcError(f"{at(key)}: error: unknown key {key.value!r}; {shape}")
        items = value
    if items is None or (isinstance(items, yaml.ScalarNode) and items.value in ("", "~", "null")):
        return ()
    if not isinstance(items, yaml.SequenceNode):
        raise HotcError(f"{at(items)}: error: {shape}")
    out: list[Move] = []
    for item in items.value:
        fields: dict[str, str] = {}
        if isinstance(item, yaml.MappingNode):
            for key, value in item.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else None
                if name not in ("from", "to") or not isinstance(value, yaml.ScalarNode) or name in fields:
                    raise HotcError(f"{at(key)}: error: an entry has 'from' and 'to' (addresses), once each")
                fields[name] = str(value.value)
        if set(fields) != {"from", "to"}:
            raise HotcError(f"{at(item)}: error: expected an entry {{from: OLD, to: NEW}}")
        where = at(item)
        out.append(parse_move(f"{fields['from']}={fields['to']}", where))
    return tuple(out)


# ------------------------------------------------------------------------------------------ the state side


def _under(address: str, prefix: str) -> bool:
    return address == prefix or address.startswith((prefix + ".", prefix + "["))


def _renamed(address: str, pairs: Iterable[tuple[str, str]]) -> str:
    for old, new in pairs:
        if _under(address, old):
            return new + address[len(old) :]
    return address


def resolve_moves(
    state: StackState | None, moves: Iterable[Move], stack: str
) -> tuple[tuple[Move, ...], tuple[str, ...]]:
    """The moves with the leaves each one moves, checked against ``state`` (HotcError, listing every bad
    move, with what to do), and the notes to show. A move from a file whose OLD is not recorded and whose NEW
    is, is taken as done (its note says to remove it); one from a file on a stack with no state yet is
    skipped (nothing to move)."""
    resources = state.resources if state is not None else {}
    done: list[Move] = []
    notes: list[str] = []
    problems: list[str] = []
    taken: dict[str, str] = {}  # new leaf address -> the move that takes it
    leaving: set[str] = set()
    seen: set[tuple[str, str]] = set()
    for m in moves:
        if (m.from_address, m.to_address) in seen:
            continue  # the same move written twice (on the command line and in a file): once
        seen.add((m.from_address, m.to_address))
        leaves = tuple(
            (a, m.to_address + a[len(m.from_address) :]) for a in resources if _under(a, m.from_address)
        )
        arrived = [a for a in resources if _under(a, m.to_address)]
        if m.source != FLAG and not leaves and (arrived or not resources):
            why = (
                f"the state has {m.to_address} and no {m.from_address}"
                if arrived
                else "the stack has no state yet"
            )
            notes.append(
                f"note: move {m} ({m.source}) has nothing to do: {why}; remove it once every stack is past it"
            )
            continue
        if not leaves:
            hint = did_you_mean(m.from_address, resources)
            if arrived:
                hint = f" It has {m.to_address} already: the move looks done; drop it."
            problems.append(
                f"move {m} ({m.source}): stack {stack!r} has no resource {m.from_address!r} in its state, so "
                f"there is nothing to move.{hint} See 'hotc state list {stack}'."
            )
            continue
        for old, new in leaves:
            if new in taken:
                problems.append(
                    f"move {m} ({m.source}): {new} is also the target of move {taken[new]}; keep one"
                )
            taken[new] = str(m)
            leaving.add(old)
        done.append(replace(m, leaves=leaves))
    for m in done:
        clash = sorted(new for _old, new in m.leaves if new in resources and new not in leaving)
        if clash:
            problems.append(
                f"move {m} ({m.source}): {', '.join(clash)} already exists in the state; a move cannot replace a "
                f"recorded resource. Remove the move, or first 'hotc state rm {stack} {clash[0]}' (the object "
                "stays in the cloud) if that record is the one to drop"
            )
    if problems:
        raise HotcError("; ".join(problems) if len(problems) == 1 else "\n".join(["bad moves:", *problems]))
    return tuple(done), tuple(notes)


def move_state(state: StackState, moves: Iterable[Move]) -> StackState:
    """``state`` with every leaf of ``moves`` at its new address: the dependencies on it, the AutoScalingGroup
    records, the protection marks and the accepted drift follow. Serial and lineage stay (nothing is
    written here)."""
    pairs = [p for m in moves for p in m.leaves]
    if not pairs:
        return state
    old_to_new = dict(pairs)
    prefixes = [(m.from_address, m.to_address) for m in moves]

    def key(a: str) -> str:
        return old_to_new.get(a) or _renamed(a, prefixes)

    resources = {}
    for a, r in state.resources.items():
        new = old_to_new.get(a, a)
        resources[new] = replace(
            r, address=new, dependencies=tuple(old_to_new.get(d, d) for d in r.dependencies)
        )

    def drift_key(k: str) -> str:
        address, sep, path = k.partition(":")
        return key(address) + sep + path

    return replace(
        state,
        resources=resources,
        groups={key(k): v for k, v in state.groups.items()},
        protected={(key(k) if k else k): v for k, v in state.protected.items()},
        accepted_drift={drift_key(k): v for k, v in state.accepted_drift.items()},
    )


def check_types(moves: Iterable[Move], state: StackState, desired_types: Mapping[str, str]) -> None:
    """Each moved leaf lands on a resource of the template with the type it has in ``state`` (HotcError
    otherwise: a move keeps the object, it cannot change its type)."""
    problems: list[str] = []
    for m in moves:
        for old, new in m.leaves:
            recorded = state.resources[old].type
            wanted = desired_types.get(new)
            if wanted is None:
                inside = sorted(a for a in desired_types if _under(a, new) and a != new)
                where = (
                    f"; the template has {', '.join(inside[:5])} there: move to one of them" if inside else ""
                )
                problems.append(
                    f"move {m} ({m.source}): {new} is not a resource of the template{where}. Add it to the "
                    "template, or fix the move." + ("" if inside else did_you_mean(new, desired_types))
                )
            elif wanted != recorded:
                problems.append(
                    f"move {m} ({m.source}): refused: {old} is a {recorded} and {new} is a {wanted} in the "
                    "template; a move keeps the object, it cannot change its type. Drop the move to replace it "
                    f"(delete {old}, create {new}), or give {new} the type {recorded}"
                )
    if problems:
        raise HotcError(problems[0] if len(problems) == 1 else "\n".join(["bad moves:", *problems]))


def annotate(plan: Any, moves: tuple[Move, ...]) -> Any:
    """``plan`` with its moves, and ``moved_from`` on the change of each moved leaf."""
    if not moves:
        return plan
    back = {new: old for m in moves for old, new in m.leaves}
    changes = tuple(
        replace(c, moved_from=back[c.address]) if c.address in back and not c.deposed else c
        for c in plan.changes
    )
    return replace(plan, changes=changes, moves=moves)


# ------------------------------------------------------------------------------------------ the suggestion


def _tail(address: str) -> str:
    """What follows the first name (``[2].port`` of ``web[2].port``): equal tails pair a renamed group's
    members."""
    head = re.match(r"[^.\[]*", address)
    return address[head.end() :] if head else address


def same_properties(type_name: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether a recorded resource's properties equal a desired one's (defaults applied, as the plan compares)."""
    # lazy: hotc check loads this module, not the parser nor the schema registry (test_startup_imports)
    from hotc.planner.diff import apply_defaults, changed_keys
    from hotc.providers.registry import get_schema as registry_lookup

    rtype = registry_lookup(type_name)
    return not changed_keys(rtype, apply_defaults(rtype, before), apply_defaults(rtype, after))


def _whole(pairs: list[tuple[str, str]], addresses: list[str]) -> list[tuple[str, str]]:
    """``pairs`` with the members of a renamed group or nested stack (``g[0]=h[0]``, ``g[1]=h[1]``) as one move
    ``g=h`` when they are every resource the plan has under ``g``."""
    heads: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for old, new in pairs:
        tail = _tail(old)
        if tail and tail == _tail(new):
            heads.setdefault((old[: -len(tail)], new[: -len(tail)]), []).append((old, new))
    out: list[tuple[str, str]] = []
    done: set[tuple[str, str]] = set()
    for old, new in pairs:
        tail = _tail(old)
        head = (old[: -len(tail)], new[: -len(tail)]) if tail and tail == _tail(new) else None
        members = heads.get(head) if head is not None else None
        if (
            head is None
            or members is None
            or {a for a in addresses if _under(a, head[0])} != {o for o, _n in members}
        ):
            out.append((old, new))
        elif head not in done:
            done.add(head)
            out.append(head)
    return out


def suggest_moves(plan: Any, same: Any = same_properties) -> tuple[str, ...]:
    """Notes for each delete + create of the same type whose properties are equal (``same(type, before,
    after)``): the exact ``--move`` that keeps the object. A delete with several equal creates pairs with the
    one of the same member index / child name, else it is left out (ambiguous)."""
    deletes = [
        c for c in plan.changes if c.action.value == "delete" and not c.deposed and c.before is not None
    ]
    creates = [
        c for c in plan.changes if c.action.value == "create" and c.import_id is None and c.after is not None
    ]
    if not deletes or not creates:
        return ()
    used: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for d in deletes:
        fits = [
            c
            for c in creates
            if c.type == d.type and c.address not in used and same(d.type, d.before, c.after)
        ]
        if len(fits) > 1:
            fits = [c for c in fits if _tail(c.address) == _tail(d.address)]
        if len(fits) != 1:
            continue
        used.add(fits[0].address)
        pairs.append((d.address, fits[0].address))
    if not pairs:
        return ()
    pairs = _whole(pairs, [c.address for c in plan.changes if not c.deposed])
    flags = " ".join(f"--move {old}={new}" for old, new in pairs)
    listed = ", ".join(f"{old} -> {new}" for old, new in pairs)
    return (
        f"hint: this plan deletes and creates resources that look the same ({listed}); if they are the same "
        f"objects at new addresses, keep them with: {flags} (or list the moves in the moves file beside the "
        "template)",
    )
