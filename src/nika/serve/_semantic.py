"""The LSP's semantic document (spec 16): the canonical projection verbatim, the reason it is
absent, and the source span of each task's declaring `id` key.

It wraps `nika.check.projection`'s graph and never re-derives it; the spans come from the
positions the strict loader recorded, converted to LSP ranges (UTF-16 columns).
"""

from __future__ import annotations

import re
from typing import Any, Final

from nika.check.projection import Projection
from nika.serve._ranges import Lines

SEMANTIC_DOCUMENT_FORMAT: Final = 1
"""The surface's own version (spec 16), independent of the nested `graph_format`."""

_TOP_KEY: Final = re.compile(r"^[A-Za-z_][\w-]*\s*:")
_TASK_KEY: Final = re.compile(r"^( +)([a-z][a-z0-9_]*)\s*:")


def semantic_document(projection: Projection, text: str | None = None) -> dict[str, Any]:
    """`{semantic_document_format, graph | reason, spans}` for one checked source (`text`:
    its source, for the spans of a document that did not load)."""
    doc: dict[str, Any] = {"semantic_document_format": SEMANTIC_DOCUMENT_FORMAT}
    if projection.graph is not None:
        doc["graph"] = projection.graph
    else:
        doc["graph"] = None
        doc["reason"] = projection.reason or "findings"
    spans = task_spans(projection)
    if not spans and projection.checked.document is None and text is not None:
        spans = recovered_spans(text)
    doc["spans"] = spans
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


def recovered_spans(text: str) -> dict[str, Any]:
    """The spans a line scan can still find when the YAML did not load: the keys one level
    under a top-level `tasks:` line, at the indentation of the first of them."""
    lines = Lines.of(text)
    out: dict[str, Any] = {}
    inside, indent = False, None
    for number in range(len(lines.lines)):
        line = lines.line(number)
        if _TOP_KEY.match(line):
            inside = line.split(":", 1)[0].strip() == "tasks"
            continue
        match = _TASK_KEY.match(line) if inside else None
        if match is None:
            continue
        if indent is None:
            indent = len(match.group(1))
        if len(match.group(1)) == indent and match.group(2) not in out:
            out[match.group(2)] = lines.token_range(number + 1, indent + 1)
    return out
