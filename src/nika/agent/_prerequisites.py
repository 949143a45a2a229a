"""Prerequisite tools: which tools a tool's inputs come from, as its own schema says.

API and MCP tool schemas routinely say where an argument comes from: "`hotel_id` can be
retrieved from the **(Search Hotels)** endpoint", "the id returned by `list_projects`". A
model offered the tool but not the one it names must spend a turn without it, so the router
offers the named tool beside it (`nika.agent.router`, `PREREQUISITE_WEIGHT`).

A definition B requires a definition A when a parameter description of B names A: the words
of A's tool name (`mcp:booking/Search_Car_Rentals` reads search car rentals) appear there as
a phrase, in any spelling that splits into the same words ("Search Car Rentals",
`searchCarRentals`, `search_car_rentals`). Only names of two words or more count (a one-word
name such as `translate` is an ordinary word), only tools of B's own server count (a server's
documentation names its own tools; another server's `exchange_rate` in a sentence is a
coincidence), and a phrase two of the server's tools share names neither. At each position
the longest name wins, so "Search Hotels By Coordinates" is not also "Search Hotels".

Within a family, the name's leading words may be left out: tools whose names start with the
same words are one API's endpoints (`SkyScrapperFlightSearch`, `SkyScrapperSearchAirport`), and
an endpoint's documentation names its siblings without the family's name ("the Search Airport
API"). So for B, each sibling A whose name shares B's first word (or more) is also named by
the rest of its name after any of those shared words, when two words or more remain and the
text writes them capitalised, as a proper name: for `TripadvisorSearchHotels`, "the Search
Location API" names `TripadvisorSearchLocation`, "sort product offers" names no
`Product_Search_Product_Offers`.

Built once per run with the index; the result depends only on the definitions, not on their
order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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


def local_name(name: str) -> str:
    """A tool's name without its server: `mcp:github/create_issue` -> `create_issue`."""
    return name.rpartition("/")[2].rpartition(":")[2]


def _tool_words(name: str) -> Phrase:
    return tuple(words(local_name(name)))


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

    def named(
        self, text: list[str], families: Sequence[_Names] = (), capital: Sequence[bool] = ()
    ) -> list[str]:
        """Tool names found in `text`, left to right, the longest phrase at each position.
        `families` add the short names of the dependent's siblings (one table per shared
        prefix), which count only where every word is capitalised (`capital`, per word of
        `text`); a full name wins a tie, and a short name two siblings share names neither."""
        out: list[str] = []
        i = 0
        while i < len(text):
            step = 1
            sizes = self.sizes.get(text[i], ())
            if families:
                sizes = tuple(sorted(
                    {*sizes, *(n for f in families for n in f.sizes.get(text[i], ()))},
                    reverse=True,
                ))  # fmt: skip
            for size in sizes:
                phrase = tuple(text[i : i + size])
                if phrase in self.table:
                    found: set[str | None] = {self.table[phrase]}
                elif families and all(capital[i : i + size]):
                    found = {f.table[phrase] for f in families if phrase in f.table}
                else:
                    continue
                if not found:
                    continue
                name = found.pop() if len(found) == 1 else None
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
    # A family per (server, leading words): the rest of each member's name, two words or
    # more. Built in one pass over the names, so a server of many tools sharing a first word
    # costs no pairwise comparison.
    families: dict[tuple[str, Phrase], _Names] = {}
    for d in definitions:
        phrase, server = _tool_words(d.name), server_of(d.name)
        if len(phrase) >= _MIN_WORDS:
            servers.setdefault(server, _Names()).add(phrase, d.name)
        for cut in range(1, len(phrase) - _MIN_WORDS + 1):
            families.setdefault((server, phrase[:cut]), _Names()).add(phrase[cut:], d.name)
    found: dict[str, tuple[str, ...]] = {}
    for d in definitions:
        server = server_of(d.name)
        names = servers.get(server)
        if names is None:
            continue
        phrase = _tool_words(d.name)
        mine = [
            family
            for cut in range(1, len(phrase) + 1)
            if (family := families.get((server, phrase[:cut]))) is not None
        ]
        named: dict[str, None] = {}
        for text in _descriptions(d):
            written = words(text, fold=False)
            capital = [w[:1].isupper() for w in written]
            for name in names.named([w.casefold() for w in written], mine, capital):
                if name != d.name:
                    named[name] = None
        if named:
            found[d.name] = tuple(named)
    return found
