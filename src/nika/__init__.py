"""nika: a Python engine for the Nika v1 workflow language.

The public surface: the agent loop as a library (`run_agent` and its seams), `resolve_provider`
for a `<provider>/<model>` string, and the `Verdict` that `nika.check.check` returns. The check
function stays in its subpackage: a top-level `check` would shadow the `nika.check` module.
"""

from __future__ import annotations

from nika.agent import (
    AgentConfig,
    AgentObserver,
    AgentResult,
    AgentSpec,
    CompositeExecutor,
    InMemoryExecutor,
    ModelRequest,
    ModelResponse,
    Provider,
    ToolCall,
    ToolDefinition,
    ToolExecutor,
    ToolResult,
    Usage,
    run_agent,
    run_agent_sync,
)
from nika.check import Verdict
from nika.errors import Location, NikaError
from nika.providers import resolve_provider

__version__ = "0.1.0"

__all__ = [
    "AgentConfig",
    "AgentObserver",
    "AgentResult",
    "AgentSpec",
    "CompositeExecutor",
    "InMemoryExecutor",
    "Location",
    "ModelRequest",
    "ModelResponse",
    "NikaError",
    "Provider",
    "ToolCall",
    "ToolDefinition",
    "ToolExecutor",
    "ToolResult",
    "Usage",
    "Verdict",
    "__version__",
    "resolve_provider",
    "run_agent",
    "run_agent_sync",
]
