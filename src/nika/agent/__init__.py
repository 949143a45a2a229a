"""The agent loop as a library: `run_agent(spec, provider=..., tools=..., observer=...)`.

Seams (`Provider`, `ToolExecutor`, `AgentObserver`) are Protocols; their data is frozen
dataclasses. Test doubles live in `nika.agent.fakes`.
"""

from __future__ import annotations

from nika.agent.config import AgentConfig
from nika.agent.executors import CompositeExecutor, InMemoryExecutor
from nika.agent.intrinsic import (
    INTRINSICS,
    DoneIntrinsic,
    Finish,
    Intrinsic,
    IntrinsicOutcome,
    LoopContext,
    is_loop_only,
)
from nika.agent.loop import AgentResult, run_agent, run_agent_sync
from nika.agent.observe import (
    AgentEvent,
    BudgetCheckpoint,
    ComposeChecked,
    Finished,
    ModelCalled,
    Nudged,
    RunStarted,
    Stalled,
    ToolCompleted,
    ToolsSelected,
    TurnStarted,
)
from nika.agent.seams import (
    AgentObserver,
    AssistantMessage,
    CallId,
    Embedder,
    Message,
    ModelRequest,
    ModelResponse,
    Provider,
    StopCheck,
    ToolCall,
    ToolDefinition,
    ToolExecutor,
    ToolFailure,
    ToolName,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from nika.agent.spec import AgentSpec

__all__ = [
    "AgentConfig",
    "AgentEvent",
    "AgentObserver",
    "AgentResult",
    "AgentSpec",
    "AssistantMessage",
    "BudgetCheckpoint",
    "CallId",
    "ComposeChecked",
    "CompositeExecutor",
    "DoneIntrinsic",
    "Embedder",
    "Finish",
    "Finished",
    "INTRINSICS",
    "InMemoryExecutor",
    "Intrinsic",
    "IntrinsicOutcome",
    "LoopContext",
    "Message",
    "ModelCalled",
    "ModelRequest",
    "ModelResponse",
    "Nudged",
    "Provider",
    "RunStarted",
    "Stalled",
    "StopCheck",
    "ToolCall",
    "ToolCompleted",
    "ToolDefinition",
    "ToolExecutor",
    "ToolFailure",
    "ToolName",
    "ToolResult",
    "ToolResultMessage",
    "ToolsSelected",
    "TurnStarted",
    "Usage",
    "UserMessage",
    "is_loop_only",
    "run_agent",
    "run_agent_sync",
]
