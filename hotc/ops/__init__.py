"""The operations: one command's work each (plan, apply, destroy, import, migrating from Heat, the lifecycle
actions), between the CLI (options in, the view out) and the layers below. An operation prints nothing the
command's view does not hand it a stream for; :mod:`hotc.ops.plan` is the one place where a plan is made."""
