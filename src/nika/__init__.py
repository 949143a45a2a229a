"""nika: a Python engine for the Nika v1 workflow language.

The public surface: the agent loop as a library (`run_agent` and its seams), `resolve_provider`
for a `<provider>/<model>` string, and the `Verdict` that `nika.check.check` returns. The check
function stays in its subpackage: a top-level `check` would shadow the `nika.check` module.

Names load on first use (PEP 562), so `import nika` — and every `nika` command — pays only for
what it touches: `nika check` never imports the agent loop or numpy.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` stays unloaded: every `nika` command imports this package
if TYPE_CHECKING:
    from typing import Any

    from nika.agent import (
        AgentConfig,
        AgentObserver,
        AgentResult,
        AgentSpec,
        CompositeExecutor,
        Embedder,
        InMemoryExecutor,
        ModelRequest,
        ModelResponse,
        Provider,
        ToolCall,
        ToolDefinition,
        ToolExecutor,
        ToolFailure,
        ToolResult,
        Usage,
        run_agent,
        run_agent_sync,
    )
    from nika.check import Verdict
    from nika.errors import Location, NikaError
    from nika.providers import resolve_provider

__version__ = "0.1.0"

_HOMES = {
    "nika.agent": (
        "AgentConfig",
        "AgentObserver",
        "AgentResult",
        "AgentSpec",
        "CompositeExecutor",
        "Embedder",
        "InMemoryExecutor",
        "ModelRequest",
        "ModelResponse",
        "Provider",
        "ToolCall",
        "ToolDefinition",
        "ToolExecutor",
        "ToolFailure",
        "ToolResult",
        "Usage",
        "run_agent",
        "run_agent_sync",
    ),
    "nika.check": ("Verdict",),
    "nika.errors": ("Location", "NikaError"),
    "nika.providers": ("resolve_provider",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'nika' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this hook
    return value


__all__ = [
    "AgentConfig",
    "AgentObserver",
    "AgentResult",
    "AgentSpec",
    "CompositeExecutor",
    "Embedder",
    "InMemoryExecutor",
    "Location",
    "ModelRequest",
    "ModelResponse",
    "NikaError",
    "Provider",
    "ToolCall",
    "ToolDefinition",
    "ToolExecutor",
    "ToolFailure",
    "ToolResult",
    "Usage",
    "Verdict",
    "__version__",
    "resolve_provider",
    "run_agent",
    "run_agent_sync",
]
