"""The public surface is deliberate: `nika.__all__` is pinned here and kept sorted."""

from __future__ import annotations

import importlib

import nika

PINNED = [
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


def test_top_level_all_is_pinned_and_sorted() -> None:
    assert nika.__all__ == PINNED
    assert nika.__all__ == sorted(nika.__all__)


def test_every_exported_name_resolves() -> None:
    for package in ("nika", "nika.agent", "nika.check"):
        module = importlib.import_module(package)
        assert module.__all__ == sorted(module.__all__), package
        for name in module.__all__:
            assert hasattr(module, name), f"{package}.{name}"


def test_version_matches_the_distribution() -> None:
    from importlib.metadata import version

    from nika.packaged import DISTRIBUTION

    assert nika.__version__ == version(DISTRIBUTION)


def test_importing_nika_stays_light() -> None:
    import subprocess
    import sys

    heavy = "('nika.agent', 'numpy', 'openai')"
    code = f"import sys, nika; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
