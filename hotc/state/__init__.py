"""State: the per-stack document of what hotc created, and the backends that keep it (local, S3)."""

from hotc.state.backend import (
    Backend,
    BackendError,
    BaseBackend,
    HistoryEntry,
    Lock,
    LockHeldError,
    LockLostError,
    StateBackend,
    StateConflictError,
    StoredStack,
)
from hotc.state.codec import StateFormatError, content_changed, hide_parameter, reveal_parameter
from hotc.state.document import (
    FORMAT_VERSION,
    DeposedInstance,
    GroupState,
    OutputState,
    ParameterRecord,
    ProtectMark,
    ResourceState,
    ScalingDecision,
    StackState,
)
from hotc.state.events import Event
from hotc.state.factory import backend_from_config

__all__ = [
    "FORMAT_VERSION",
    "Backend",
    "BackendError",
    "BaseBackend",
    "DeposedInstance",
    "Event",
    "GroupState",
    "HistoryEntry",
    "Lock",
    "LockHeldError",
    "LockLostError",
    "OutputState",
    "ParameterRecord",
    "ProtectMark",
    "ResourceState",
    "ScalingDecision",
    "StackState",
    "StateBackend",
    "StateConflictError",
    "StateFormatError",
    "StoredStack",
    "backend_from_config",
    "content_changed",
    "hide_parameter",
    "reveal_parameter",
]
