"""docs/errors.md is generated from the one code registry and cannot drift (issue 35): the
committed page is what `scripts/error_codes.py` renders, with every registered code on it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from nika.codes import CODES

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    if "error_codes" not in sys.modules:
        spec = importlib.util.spec_from_file_location("error_codes",
                                                      ROOT / "scripts" / "error_codes.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["error_codes"] = module
        spec.loader.exec_module(module)
    return sys.modules["error_codes"]


def test_the_committed_page_is_the_rendered_one() -> None:
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    assert page == _script().render(), "docs/errors.md is stale: run python scripts/error_codes.py"


def test_every_registered_code_has_its_row() -> None:
    page = _script().render()
    for code, info in CODES.items():
        assert f"| `{code}` | {info.category} |" in page, code
