"""The composition root: the one place where the layers are wired together for a command.

The lower layers never reach up or sideways for what they need; they are handed it here:

- the parser's checks of built-in types (:func:`type_checks`: provider property and attribute schemas, given to
  ``load_stack``);
- the planner's custom-constraint rules (:func:`constraint_rules`: ``glance.image``, ``nova.flavor``, ``ip_addr``
  ... from the OpenStack provider, given to ``check_constraints`` / ``enforce_constraints``);
- the drivers the executor and the refresh use (:func:`drivers`);
- the cloud connection (:func:`cloud`: one lazily made, shared openstacksdk connection per run);
- the output sinks: every command writes to the :class:`Sinks` it is given (stdout, stderr), resolved when the
  command runs so that a caller that redirects them (tests, an embedding program) sees everything.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from hotc.model import model

# Each getter imports what it hands over: ``validate`` needs the type checks only, not the drivers, the
# OpenStack constraints or the cloud's authentication (start-up pays only for what the command uses).
if (
    TYPE_CHECKING
):  # the planner costs ~1 s to import (networkx, deepdiff): only the commands that plan load it
    from hotc.parser.api import TypeChecks
    from hotc.planner.api import ConstraintRules
    from hotc.providers.base import Driver


@model
class Sinks:
    """Where a command writes: results to ``out``, diagnostics, notes and progress to ``err``."""

    out: IO[str]
    err: IO[str]


def sinks() -> Sinks:
    return Sinks(out=sys.stdout, err=sys.stderr)


def type_checks() -> TypeChecks:
    # lazy: the composition root gives each command only the providers it asks for (hotc check: no parser)
    from hotc.providers import checks

    return checks.type_checks()


def constraint_rules() -> ConstraintRules:
    # lazy: the composition root gives each command only the providers it asks for (hotc check: no parser)
    from hotc.providers.openstack import constraints as openstack_constraints

    return openstack_constraints


def drivers() -> Callable[[str], Driver | None]:
    # lazy: the composition root gives each command only the providers it asks for (hotc check: no parser)
    from hotc.providers.drivers import driver_for

    return driver_for


def cloud(os_cloud: str | None, *, prewarm: bool = False) -> Callable[[], Any]:
    """A getter of one openstacksdk connection, made on first use (runs that touch no cloud never connect)
    and shared by every thread of the run: ``--os-cloud``, else ``OS_CLOUD`` / the ``OS_*`` variables /
    clouds.yaml; errors say what to set. ``prewarm``: connect now in the background (commands that will use
    the cloud), overlapping the token request with reading the state and planning."""
    # lazy: the composition root gives each command only the providers it asks for (hotc check: no parser)
    from hotc.providers.openstack.auth import cloud_factory

    return cloud_factory(os_cloud, prewarm=prewarm)


__all__ = ["Sinks", "cloud", "constraint_rules", "drivers", "sinks", "type_checks"]
