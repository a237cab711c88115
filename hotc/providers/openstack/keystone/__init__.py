"""Keystone drivers, one type per module: ``project``, ``role``; ``common`` holds the look-ups they share."""
