"""Run by the test cloud's Heat interpreter (not hotc's): prints, as JSON, the properties schema (type, required,
update_allowed, immutable, default) and the attribute names of each resource type named on the command line, as
the installed Heat's resource registry has them. Imports nothing from hotc."""

from __future__ import annotations

import json
import sys
from typing import Any


def main(names: list[str]) -> None:
    from heat.engine import resources

    resources.initialise()
    registry = resources.global_env()
    out: dict[str, Any] = {}
    for name in names:
        try:
            cls = registry.get_class(name)
        except Exception as exc:  # noqa: BLE001 - a type this Heat does not know
            out[name] = {"error": str(exc)}
            continue
        props = {
            key: {
                "type": s.type,
                "required": bool(s.required),
                "update_allowed": bool(s.update_allowed),
                "immutable": bool(s.immutable),
                "default": s.default,
            }
            for key, s in cls.properties_schema.items()
        }
        out[name] = {"props": props, "attrs": sorted(cls.attributes_schema)}
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    main(sys.argv[1:])
