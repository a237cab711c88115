"""The applier: executes a Plan against the cloud (``executor``), keeps the state written after every change
(``statekeeper``), emits events (``events``), shows progress (``progress``), and runs the lifecycle commands
(``session``: apply/destroy; ``lifecycle``: check/suspend/resume)."""
