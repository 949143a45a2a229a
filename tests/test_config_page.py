"""docs/config.md names every environment variable nika reads (issue 35): a `NIKA_*` name the
source spells as a string literal and the page does not name fails here."""

from __future__ import annotations

import re
from pathlib import Path

import nika

SRC = Path(nika.__file__).resolve().parent
PAGE = Path(__file__).resolve().parent.parent / "docs" / "config.md"


def read_names() -> set[str]:
    """Every `"NIKA_…"` string literal in the source (the variables it reads by name)."""
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        found |= set(re.findall(r"""["'](NIKA_[A-Z][A-Z0-9_]*)["']""", path.read_text("utf-8")))
    return found


def test_every_variable_the_source_reads_is_on_the_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    names = read_names()
    assert "NIKA_MCP_CONFIG" in names and "NIKA_RAY_ADDRESS" in names  # the scan sees them
    assert sorted(n for n in names if f"`{n}`" not in page) == []


def test_the_provider_patterns_are_on_the_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert "`NIKA_<ID>_API_KEY`" in page and "`NIKA_<ID>_BASE_URL`" in page
