"""OS::Heat::RandomString: a random string made in-process.

Like Heat: ``length`` (default 32, 1..512) characters drawn from ``character_classes`` (default
lettersdigits, at least 1) and ``character_sequences``, each class/sequence contributing at least its
``min`` characters; the legacy ``sequence`` names one class. ``salt`` is ignored by the generator: changing
it (or anything else) replaces the resource, i.e. makes a new string. ``get_resource`` and the ``value``
attribute give the string.

As in Heat, the physical id is a physical resource name (``STACK-NAME-xxxxxxxxxxxx``), not the secret: the
string is the ``value`` attribute, declared sensitive (stored masked in the state: a digest, plus the value
encrypted when a state key is configured) and named as the reference id, so ``get_resource`` gives it.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.naming import physical_name

CLASSES: Mapping[str, str] = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}
DEFAULT_CLASSES = ({"class": "lettersdigits", "min": 1},)


def _int(v: Any, what: str, default: int) -> int:
    if v is None:
        return default
    try:
        return int(v)
    except (TypeError, ValueError):
        raise HotcError(f"{what}: {v!r} is not an integer") from None


def generate(props: Mapping[str, Any], rng: Any = None) -> str:
    """The random string for ``props`` (raises HotcError on impossible settings)."""
    rng = rng or secrets.SystemRandom()
    length = _int(props.get("length"), "length", 32)
    if not 1 <= length <= 512:
        raise HotcError(f"length {length} is out of range: it must be between 1 and 512")
    classes = props.get("character_classes")
    if classes is None:
        classes = list(DEFAULT_CLASSES)
    classes = list(classes)
    if props.get("sequence"):
        classes.append({"class": props["sequence"], "min": 1})
    pools: list[tuple[str, int]] = []
    for i, c in enumerate(classes):
        name = (c or {}).get("class") or "lettersdigits"
        if name not in CLASSES:
            raise HotcError(f"character_classes[{i}].class {name!r} is not one of {', '.join(CLASSES)}")
        pools.append((CLASSES[name], _int((c or {}).get("min"), f"character_classes[{i}].min", 1)))
    for i, s in enumerate(props.get("character_sequences") or []):
        seq = (s or {}).get("sequence")
        if not seq:
            raise HotcError(f"character_sequences[{i}].sequence is required and must not be empty")
        pools.append((str(seq), _int((s or {}).get("min"), f"character_sequences[{i}].min", 1)))
    if sum(m for _, m in pools) > length:
        raise HotcError(
            "Length property cannot be smaller than combined character class and character sequence minimums"
        )
    allowed = sorted(set("".join(p for p, _ in pools)))
    if not allowed:
        raise HotcError("no characters to choose from: character_classes and character_sequences are empty")
    chars = [rng.choice(pool) for pool, m in pools for _ in range(m)]
    chars += [rng.choice(allowed) for _ in range(length - len(chars))]
    rng.shuffle(chars)
    return "".join(chars)


VALUE = "value"


def _outcome(physical_id: str, value: str | None) -> Outcome:
    return Outcome(
        physical_id,
        {VALUE: value} if value is not None else {},
        sensitive_attributes=(VALUE,),
        reference_attribute=VALUE,
    )


class RandomStringDriver:
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        value = generate(props)
        return _outcome(physical_name(ctx.stack_name, ctx.address), value)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        # the string lives only in the state: nothing to read back (the applier keeps the recorded value)
        return _outcome(physical_id, None)

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # every property forces a replacement, so an update only happens when nothing relevant changed
        return _outcome(physical_id, generate(new) if changed else None)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        return None

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None
