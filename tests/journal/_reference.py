"""The spec's reference proof layer, loaded from its path as an independent judge (never copied)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Final

CONFORMANCE: Final = next(p / "shared" / "nika-spec" / "conformance"
                          for p in Path(__file__).resolve().parents
                          if (p / "shared" / "nika-spec").is_dir())
"""The spec's conformance kit: `shared/` sits beside the checkout (or a worktree's parent)."""


def proof_core() -> ModuleType:
    """`conformance/proof_core.py`, imported once."""
    found = sys.modules.get("proof_core")
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location("proof_core", CONFORMANCE / "proof_core.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["proof_core"] = module
    spec.loader.exec_module(module)
    return module


def reference_verdict(data: bytes) -> str:
    """The reference decoder's verdict on `data`: `admit` or its refusal class."""
    core = proof_core()
    try:
        core.decode_untrusted(data.decode("utf-8"))
    except core.DecodeRefusal as refusal:
        return str(refusal.cls)
    return "admit"
