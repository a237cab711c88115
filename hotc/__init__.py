"""hotc: a plan/apply compiler for OpenStack Heat Orchestration Templates."""

__version__ = "0.1.0"
