"""What the router reads: a definition as the index and the embedder see it, and the live
context as a weighted query (the module docstring of `nika.agent.router` says why each weight
is what it is; the measurements live beside each constant).

A definition is indexed by four BM25F fields (`document_fields`) and embedded as two views
(`embedding_texts`); a turn's context becomes one query (`context_query`): the request (the
prompt's last paragraph) and the model's last text at full weight, the standing preamble and
the tool observations lower, and a request word no definition has meets the indexed words it
begins (`extensions`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Final

from nika.agent._prerequisites import local_name
from nika.agent.seams import ToolDefinition
from nika.analyzer import subwords, terms, tokenize
from nika.bm25 import BM25Index

FIELD_WEIGHTS: Final = (2.0, 1.0, 0.25, 0.3)
"""BM25F weights of a definition's name, description, parameter text and subword terms. The
name weighed 3 until measured on BFCL: at 2, all-gold recall@12 on its dev split rises from
0.901 to 0.914 (held out 0.898 -> 0.901), on NESTFUL's from 0.834 to 0.849 (held out 0.815 ->
0.813)."""
BM25_K1: Final = 2.0
BM25_B: Final = 0.9
"""BM25 saturation and length normalisation, chosen with `FIELD_WEIGHTS` on the bench's dev
split (k1 1.5 / b 0.75, the textbook values, find all gold tools for 2-3 points fewer
queries)."""
PREAMBLE_WEIGHT: Final = 0.25
"""Query weight of a term found only in the standing part of the prompt (all but its last
paragraph)."""
OBSERVATION_WEIGHT: Final = 0.5
"""Query weight of a term found only in the tool observations (see the module docstring)."""
EXTENSION_MIN: Final = 4
EXTENSION_SUFFIX: Final = 3
"""A request word of at least `EXTENSION_MIN` letters that no definition has meets the
definitions' words it begins, at most `EXTENSION_SUFFIX` letters longer (see the module
docstring). Chosen on the bench's dev split: a suffix of two letters, or words of five letters
or more, change nothing there; a suffix of five adds nothing more and loses a RapidAPI
query."""
_PARAGRAPH_RE: Final = re.compile(r"\n(?:[ \t]*\n)+")


@dataclass(frozen=True, slots=True)
class RouteContext:
    """What the router ranks against this turn."""

    prompt: str
    last_assistant_text: str
    last_observations: tuple[str, ...]
    recent_tools: frozenset[str]
    """Tools called in the last `config.recent_turns` turns."""


def parameter_text(definition: ToolDefinition) -> str:
    """A definition's top-level parameter names and their descriptions, in sorted order."""
    parts: list[str] = []
    properties = definition.parameters.get("properties")
    if isinstance(properties, Mapping):
        for key in sorted(properties, key=str):
            parts.append(str(key))
            schema: Any = properties[key]
            if isinstance(schema, Mapping) and isinstance(schema.get("description"), str):
                parts.append(schema["description"])
    return "\n".join(parts)


def document_fields(
    definition: ToolDefinition,
) -> tuple[list[str], list[str], list[str], list[str]]:
    """The terms a definition is indexed by, per field: name, description, parameter text, and
    the subword terms of all three (`nika.analyzer.subwords`)."""
    name = tokenize(definition.name)
    description = tokenize(definition.description)
    parameters = tokenize(parameter_text(definition))
    return name, description, parameters, subwords([*name, *description, *parameters])


def embedding_texts(definition: ToolDefinition) -> tuple[str, str]:
    """What the semantic leg embeds for a definition, two views of it (a definition scores its
    best cosine to either): its name, split into words, with its description; and its name
    without the server with its description and parameter text (see the module
    docstring)."""
    described = f"{' '.join(tokenize_words(definition.name))}: {definition.description}"
    local = f"{' '.join(tokenize_words(local_name(definition.name)))}: {definition.description}"
    parameters = parameter_text(definition).replace("\n", "; ")
    return described, f"{local}\n{parameters}" if parameters else local


def tokenize_words(name: str) -> list[str]:
    """A tool name as lower-case words, unstemmed (`mcp:git/createBranch` -> mcp git create
    branch), for the embedder, which reads words, not stems."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", name)]


def split_prompt(prompt: str) -> tuple[str, str]:
    """(standing preamble, request): the request is the prompt's last paragraph, the newest
    text a user or an embedder appended; everything before it is the standing preamble."""
    paragraphs = [p for p in _PARAGRAPH_RE.split(prompt) if p.strip()]
    if len(paragraphs) < 2:
        return "", prompt
    return "\n\n".join(paragraphs[:-1]), paragraphs[-1]


def context_query(ctx: RouteContext) -> dict[str, float]:
    """The weighted BM25 query of the live context (see the module docstring), before the
    extensions, which need the router's index."""
    preamble, request = split_prompt(ctx.prompt)
    return weighted(
        with_subwords(terms(request) | terms(ctx.last_assistant_text)),
        terms(preamble),
        observed_terms(ctx.last_observations),
    )


def with_subwords(newest: AbstractSet[str]) -> AbstractSet[str]:
    """The newest text's terms and their subword terms (the preamble and observations get
    none: subwords are for a request that would otherwise meet nothing)."""
    extra = subwords(newest)
    return newest | frozenset(extra) if extra else newest


def extensions(word: str, index: BM25Index) -> tuple[str, ...]:
    """The indexed words `word` begins, at most `EXTENSION_SUFFIX` letters longer, when no
    definition has `word` and it has `EXTENSION_MIN` letters or more (see the module
    docstring); else none."""
    if len(word) < EXTENSION_MIN or word in index or not word.isalpha():
        return ()
    return tuple(index.extensions(word, EXTENSION_SUFFIX))


def observed_terms(observations: tuple[str, ...]) -> frozenset[str]:
    return frozenset().union(*map(terms, observations))


def weighted(
    newest: AbstractSet[str], preamble: AbstractSet[str], observed: AbstractSet[str]
) -> dict[str, float]:
    """Each term at the largest weight of the parts it appears in."""
    query = dict.fromkeys(observed, OBSERVATION_WEIGHT)
    for term in preamble:
        if query.get(term, 0.0) < PREAMBLE_WEIGHT:
            query[term] = PREAMBLE_WEIGHT
    query.update(dict.fromkeys(newest, 1.0))
    return query
