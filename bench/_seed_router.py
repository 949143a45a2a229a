"""The seed's router analysis, kept here as the bench's "before" baseline (not in `src/`).

A copy of the tokenizer and query rules the router shipped with before issue 16: ASCII-only
camelCase splitting, one bag of name (twice) + description + parameter text, the English
function-word stop list, no stemming, observation-only terms at 0.5. It ranks with today's
`BM25Index` (one field), so the comparison isolates the analysis and the query.
"""

from __future__ import annotations

import re
from typing import Final

from nika.agent.router import RouteContext, parameter_text
from nika.agent.seams import ToolDefinition
from nika.bm25 import BM25Index

STOP_WORDS: Final = frozenset(
    (
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "for", "from", "has", "have",
        "if", "in", "into", "is", "it", "its", "of", "on", "or", "that", "the", "their", "then",
        "there", "these", "this", "to", "was", "were", "will", "with", "you", "your"
    )
)  # fmt: skip
_TOKEN_RE: Final = re.compile(
    r"[A-Z]+[0-9]*(?=[A-Z][^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+[0-9]*|[A-Z]+[0-9]*"
)
_WORD_RE: Final = re.compile(r"[^\W_]+")
OBSERVATION_WEIGHT: Final = 0.5


def _lowered(text: str) -> list[str]:
    raw = _TOKEN_RE.findall(text)
    return "\n".join(raw).lower().split("\n") if raw else []


def tokenize(text: str) -> list[str]:
    return [t for t in _lowered(text) if len(t) > 1 and t not in STOP_WORDS]


def terms(text: str) -> set[str]:
    found: set[str] = set()
    mixed: list[str] = []
    for word in set(_WORD_RE.findall(text)):
        if word.isalpha() and word.islower():
            found.add(word)
        elif not word.isdigit():
            mixed.append(word)
    found.update(_lowered(" ".join(mixed)))
    found.difference_update(STOP_WORDS)
    return {t for t in found if len(t) > 1}


def document_text(definition: ToolDefinition) -> str:
    return "\n".join(
        (definition.name, definition.name, definition.description, parameter_text(definition))
    )


def context_query(ctx: RouteContext) -> dict[str, float]:
    primary = terms(ctx.prompt) | terms(ctx.last_assistant_text)
    observed = frozenset().union(*map(terms, ctx.last_observations))
    query = dict.fromkeys(observed - primary, OBSERVATION_WEIGHT)
    query.update(dict.fromkeys(primary, 1.0))
    return query


class SeedRanker:
    """The seed router's ranking: top `k` names for a context (empty: it would fail open)."""

    def __init__(self, universe: list[ToolDefinition]) -> None:
        self.index = BM25Index.build((d.name, tokenize(document_text(d))) for d in universe)

    def rank(self, ctx: RouteContext, k: int) -> list[str]:
        return [d.name for d in self.index.top_k(context_query(ctx), k)]
