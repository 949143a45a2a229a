"""The LSP's semantic document (spec 16): the canonical projection verbatim, the reason it is
absent, and the source span of each task's declaring `id` key.

It wraps `nika.check.projection`'s graph and never re-derives it; the spans come from the
positions the strict loader recorded, converted to LSP ranges (UTF-16 columns).
"""

from __future__ import annotations

from typing import Any, Final

from nika.check.projection import Projection
from nika.serve._ranges import Lines

SEMANTIC_DOCUMENT_FORMAT: Final = 1
"""The surface's own version (spec 16), independent of the nested `graph_format`."""


def semantic_document(projection: Projection) -> dict[str, Any]:
    """`{semantic_document_format, graph | reason, spans}` for one checked source."""
    doc: dict[str, Any] = {"semantic_document_format": SEMANTIC_DOCUMENT_FORMAT}
    if projection.graph is not None:
        doc["graph"] = projection.graph
    else:
        doc["graph"] = None
        doc["reason"] = projection.reason or "findings"
    doc["spans"] = task_spans(projection)
    return doc


def task_spans(projection: Projection) -> dict[str, Any]:
    """Task id → the LSP range of its key under `tasks:` (what the source still shows when
    the graph cannot be built: a document that loaded keeps its spans)."""
    document = projection.checked.document
    if document is None:
        return {}
    tasks = document.node(("tasks",))
    if not isinstance(tasks, dict):
        return {}
    lines = Lines.of(document.source)
    out: dict[str, Any] = {}
    for key in tasks:
        where = document.locate(("tasks", key))
        if isinstance(key, str) and where is not None:
            out[key] = lines.token_range(where.line, where.column)
    return out
