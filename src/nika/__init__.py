"""nika: a Python engine for the Nika v1 workflow language."""

from __future__ import annotations

from nika.errors import Location, NikaError

__version__ = "0.1.0"

__all__ = [
    "Location",
    "NikaError",
    "__version__",
]
