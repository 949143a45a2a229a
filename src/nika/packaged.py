"""What the installed distribution carries: its name on the package index and its data.

The distribution is `nika-engine` (`nika` on the index is an unrelated project); the import
name and the command stay `nika`. Package data lives in ONE directory, `nika/data/` (the price
and energy tables, the `nika new` templates): the wheel carries it as it stands in the source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

DISTRIBUTION: Final = "nika-engine"
"""The name to install: `pip install 'nika-engine[ray]'`, never `nika`."""

DATA: Final = Path(__file__).resolve().parent / "data"
"""The package data directory, inside the installed package."""


def extra(name: str) -> str:
    """How to install the optional extra `name`, e.g. `pip install 'nika-engine[ray]'`."""
    return f"pip install '{DISTRIBUTION}[{name}]'"
