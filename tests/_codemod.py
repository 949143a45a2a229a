"""`scripts/codes_codemod.py` for the tests: a dev script, not a package, so loaded by path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_codemod() -> ModuleType:
    """The script as a module, loaded once (its dataclasses need it in `sys.modules`)."""
    if "codes_codemod" not in sys.modules:
        spec = importlib.util.spec_from_file_location("codes_codemod",
                                                      ROOT / "scripts" / "codes_codemod.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["codes_codemod"] = module
        spec.loader.exec_module(module)
    return sys.modules["codes_codemod"]
