"""One module per security rule, each holding ``RULE`` (found by :func:`hotc.lint.engine.all_rules`)."""
