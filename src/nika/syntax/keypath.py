"""`KeyPath`: where a value sits in a loaded document.

Its own module so that the model, its builders and the type language share the one spelling
without loading each other: the type language loads only for a document that declares a type.
"""

from __future__ import annotations

KeyPath = tuple[str | int, ...]
"""Where a value sits in a document: mapping keys and sequence indexes from the root."""
