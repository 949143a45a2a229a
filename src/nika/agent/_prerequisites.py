"""Prerequisite tools: which tools a tool's inputs come from, as its own schema says.

API and MCP tool schemas routinely say where an argument comes from: "`hotel_id` can be
retrieved from the **(Search Hotels)** endpoint", "the id returned by `list_projects`". A
model offered the tool but not the one it names must spend a turn without it, so the router
offers the named tool beside it (`nika.agent.router`, `PREREQUISITE_SHARE`).

A definition B requires a definition A when a parameter description of B names A: the words
of A's tool name (`mcp:booking/Search_Car_Rentals` reads search car rentals) appear there as
a phrase, in any spelling that splits into the same words ("Search Car Rentals",
`searchCarRentals`, `search_car_rentals`). Only names of two words or more count (a one-word
name such as `translate` is an ordinary word), only tools of B's own server count (a server's
documentation names its own tools; another server's `exchange_rate` in a sentence is a
coincidence), and a phrase two of the server's tools share names neither. At each position
the longest name wins, so "Search Hotels By Coordinates" is not also "Search Hotels".

Built once per run with the index; the result depends only on the definitions, not on their
order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from nika.agent.seams import ToolDefinition
from nika.analyzer import words

_MIN_WORDS: Final = 2

Phrase = tuple[str, ...]


def server_of(name: str) -> str:
    """The namespace a tool name belongs to: `mcp:github/create_issue` -> `mcp:github`,
    `nika:read` -> `nika`, a bare `get_weather` -> "" (bare names share one namespace)."""
    head, slash, _ = name.rpartition("/")
    if slash:
        return head
    scheme, colon, _ = name.partition(":")
    return scheme if colon else ""


def _tool_words(name: str) -> Phrase:
    return tuple(words(name.rpartition("/")[2].rpartition(":")[2]))


def _descriptions(definition: ToolDefinition) -> Iterable[str]:
    """The top-level parameter descriptions, in parameter-name order."""
    properties = definition.parameters.get("properties")
    if not isinstance(properties, Mapping):
        return
    for key in sorted(properties, key=str):
        schema: Any = properties[key]
        if isinstance(schema, Mapping) and isinstance(schema.get("description"), str):
            yield schema["description"]


class _Names:
    """One server's tool names as phrases: phrase -> the one tool it names (None when tools
    share it), and for each first word the phrase lengths that start with it, longest first."""

    def __init__(self) -> None:
        self.table: dict[Phrase, str | None] = {}
        self.sizes: dict[str, tuple[int, ...]] = {}

    def add(self, phrase: Phrase, name: str) -> None:
        self.table[phrase] = None if phrase in self.table else name
        sizes = self.sizes.get(phrase[0], ())
        if len(phrase) not in sizes:
            self.sizes[phrase[0]] = tuple(sorted((*sizes, len(phrase)), reverse=True))

    def named(self, text: list[str]) -> list[str]:
        """Tool names found in `text`, left to right, the longest phrase at each position."""
        out: list[str] = []
        i = 0
        while i < len(text):
            step = 1
            for size in self.sizes.get(text[i], ()):
                phrase = tuple(text[i : i + size])
                if phrase in self.table:
                    name = self.table[phrase]
                    if name is not None:
                        out.append(name)
                    step = size
                    break
            i += step
        return out


def prerequisites(universe: Iterable[ToolDefinition]) -> dict[str, tuple[str, ...]]:
    """Each definition's prerequisites, in the order its parameter descriptions (sorted by
    parameter name) first name them; definitions without any are left out."""
    definitions = sorted(universe, key=lambda d: d.name)
    servers: dict[str, _Names] = {}
    for d in definitions:
        phrase = _tool_words(d.name)
        if len(phrase) >= _MIN_WORDS:
            servers.setdefault(server_of(d.name), _Names()).add(phrase, d.name)
    found: dict[str, tuple[str, ...]] = {}
    for d in definitions:
        names = servers.get(server_of(d.name))
        if names is None:
            continue
        named: dict[str, None] = {}
        for text in _descriptions(d):
            for name in names.named(words(text)):
                if name != d.name:
                    named[name] = None
        if named:
            found[d.name] = tuple(named)
    return found
