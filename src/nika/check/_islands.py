"""Parsed islands of one string, memoized across rungs.

The DAG and variables rungs (and the graph derivation) read the same strings; a
workflow of 10,000 tasks has about as many distinct binding strings, beyond the
expression parser's own cache. Parsing each text once keeps a check linear.

The expression language (`nika.syntax.expr` and its tree) loads with the first island
found: a check of a document without one never builds it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from nika.errors import NikaError
from nika.syntax.template import find_islands, is_whole_island

if TYPE_CHECKING:
    from nika.syntax.expr import Expr, Reference


@lru_cache(maxsize=1 << 16)
def parsed(text: str) -> tuple[Expr, ...] | NikaError:
    """The trees of every live island of `text`, in order, or the first refusal
    (`NIKA-VAR-008` unclosed, `NIKA-VAR-005` outside the grammar), unlocated."""
    try:
        islands = find_islands(text)
        if not islands:
            return ()
        from nika.syntax.expr import parse

        return tuple(parse(island.source) for island in islands)
    except NikaError as err:
        return err


def exprs(text: str) -> tuple[Expr, ...]:
    """The trees of `text`'s islands; none when any island is malformed (reported elsewhere)."""
    result = parsed(text)
    return () if isinstance(result, NikaError) else result


@lru_cache(maxsize=1 << 16)
def reads(text: str) -> tuple[Reference, ...]:
    """Every static reference across `text`'s islands, in order (none when malformed)."""
    found = exprs(text)
    if not found:
        return ()
    from nika.syntax.expr import references

    return tuple(ref for expr in found for ref in references(expr))


@lru_cache(maxsize=1 << 16)
def whole(text: str) -> Expr | None:
    """The one expression of `text` when it is exactly one well-formed island (so its
    value keeps its type), else None."""
    found = exprs(text)  # a malformed text parses to none, so the segmenting cannot raise
    return found[0] if len(found) == 1 and is_whole_island(text) else None
