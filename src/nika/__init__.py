"""nika: a Python engine for the Nika v1 workflow language.

The public surface: `check` a workflow statically, run the agent loop as a library with
`run_agent` and its seams, resolve a `<provider>/<model>` string to a `Provider`. Everything
else lives in the subpackages (`nika.agent`, `nika.check`, `nika.runtime`, `nika.tools`).
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
from nika.check import Verdict, check
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
    "check",
    "resolve_provider",
    "run_agent",
    "run_agent_sync",
]
