"""Security rules for HOT templates (``hotc lint``, ``hotc validate --lint``).

One rule per module under :mod:`hotc.lint.rules`; the rule API is :mod:`hotc.lint.rule`, the engine
:mod:`hotc.lint.engine`, the outputs :mod:`hotc.lint.render`. Everyone else uses :mod:`hotc.lint.api`.
"""
