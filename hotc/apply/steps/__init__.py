"""The work of each step of the apply graph, one module per action, on the services of
:class:`hotc.apply.stepenv.StepEnv`:

- :mod:`.apply`: an ``apply`` step decides what it does with the resource (adopt, nothing after all, update,
  keep a failed one that is healthy, create or replace);
- :mod:`.create`: create a resource, or the new instance of a replaced one;
- :mod:`.update`: update a resource in place;
- :mod:`.delete`: delete a resource or the old instances of a replaced one, or forget one (Retain);
- :mod:`.adopt`: adopt an existing object (Heat's ``external_id``, hotc's imports);
- :mod:`.hook`: pause at a hook (breakpoint) of the environment until it is cleared.

Crash recovery (what an interrupted run left) is :mod:`hotc.apply.recovery`; the walk that runs the steps in
order is :mod:`hotc.apply.walker`, driven by :mod:`hotc.apply.executor`.
"""
