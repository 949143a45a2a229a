"""`${{ … }}` islands inside strings (04-variables §The one syntax, §Escaping, §Value rendering).

A string is a sequence of literal text and *islands*. The escape rule counts the
contiguous backslash run right before `${{`: an odd run escapes the opener (one
backslash is consumed), an even run leaves the island live, and each remaining
pair renders as one backslash. Backslashes anywhere else are ordinary characters.

The closing `}}` is found quote-aware, so `${{ x == '}}' }}` is one island; if the
quotes never balance the first plain `}}` closes it (the expression parser then
names the real defect). An opener with no closer is `NIKA-VAR-008`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from nika import codes
from nika.errors import NikaError

OPEN: Final = "${{"
CLOSE: Final = "}}"

PathKey = str | int


@dataclass(frozen=True, slots=True)
class Island:
    """One live `${{ … }}`: `text[start:end]` is the whole island, `source` the stripped inside."""

    start: int
    end: int
    source: str


Segment = str | Island


class _Closer:
    """Finds the `}}` closing each island of one string, quote-aware, in linear total time.

    A scan that runs off the end unclosed proves that none of the (offset, open quote)
    states it passed through reaches a close; later scans stop on such a state instead of
    walking the same tail again (`${{ "\\" }}` repeated would otherwise be quadratic).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.dead: set[tuple[int, str]] = set()

    def close(self, i: int) -> int:
        """Index of the `}}` closing an island whose body starts at `i`; -1 if none."""
        text = self.text
        plain = text.find(CLOSE, i)
        if plain < 0:
            return -1
        if "'" not in text[i:plain] and '"' not in text[i:plain]:
            return plain  # the common case: no quote before the first `}}`
        quote = ""
        seen: list[tuple[int, str]] = []
        n = len(text)
        while i < n:
            state = (i, quote)
            if state in self.dead:
                break
            seen.append(state)
            ch = text[i]
            if quote:
                if ch == "\\":
                    i += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif text.startswith(CLOSE, i):
                return i
            i += 1
        self.dead.update(seen)
        return -1


def _unclosed(text: str, at: int) -> NikaError:
    excerpt = text[at : at + 40]
    return NikaError(
        codes.VAR_008,
        f"the `${{{{` opener at offset {at} ({excerpt!r}) is never closed; "
        "close it with `}}`, or write `\\${{` for a literal `${{`",
        details={"offset": at, "text": text},
    )


def segments(text: str) -> tuple[Segment, ...]:
    """Split `text` into literal runs (escapes already applied) and live islands, in order."""
    out: list[Segment] = []
    literal: list[str] = []
    closer = _Closer(text)
    pos = 0
    search = 0
    while True:
        at = text.find(OPEN, search)
        if at < 0:
            break
        run = 0
        while at - run - 1 >= pos and text[at - run - 1] == "\\":
            run += 1
        literal.append(text[pos : at - run])
        literal.append("\\" * (run // 2))
        if run % 2:
            literal.append(OPEN)
            pos = search = at + len(OPEN)
            continue
        body = at + len(OPEN)
        close = closer.close(body)
        if close < 0:
            close = text.find(CLOSE, body)
        if close < 0:
            raise _unclosed(text, at)
        if literal:
            joined = "".join(literal)
            if joined:
                out.append(joined)
            literal = []
        end = close + len(CLOSE)
        out.append(Island(at, end, text[body:close].strip()))
        pos = search = end
    literal.append(text[pos:])
    joined = "".join(literal)
    if joined:
        out.append(joined)
    return tuple(out)


def find_islands(text: str) -> tuple[Island, ...]:
    """Every live island of `text`, in order; raises `NIKA-VAR-008` on an unclosed opener."""
    return tuple(s for s in segments(text) if isinstance(s, Island))


def has_islands(text: str) -> bool:
    """Does `text` carry at least one live island?"""
    return bool(find_islands(text))


def is_whole_island(text: str) -> bool:
    """Is `text` exactly one island and nothing else (so its value keeps its type)?"""
    parts = segments(text)
    return len(parts) == 1 and isinstance(parts[0], Island) and parts[0].start == 0


def unescape(text: str) -> str:
    """The literal rendering of a string with no live islands (escapes applied)."""
    out: list[str] = []
    for part in segments(text):
        if isinstance(part, Island):
            raise _live_island(part)
        out.append(part)
    return "".join(out)


def _live_island(island: Island) -> NikaError:
    return NikaError(
        codes.VAR_005,
        f"an expression `${{{{ {island.source} }}}}` appears where only literal text is allowed; "
        "remove it or escape it as `\\${{`",
    )


def render_json(value: Any) -> str:
    """A value's canonical JSON (`nika.canonical`), or the coded refusal when it has none."""
    from nika.canonical import canonical_json  # JSON loads with the first value rendered

    try:
        return canonical_json(value)
    except (TypeError, ValueError) as err:
        raise NikaError(
            codes.VAR_006,
            f"the value {value!r:.80} has no JSON rendering ({err}); "
            "reshape it to JSON data (objects, arrays, strings, numbers, booleans, null)",
        ) from None


def stringify(value: Any) -> str:
    """How a value reads inside a string: scalars naturally, containers as canonical JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NikaError(
                codes.VAR_006,
                f"the number {value!r} cannot be rendered; produce a finite number",
            )
        return repr(value)
    if isinstance(value, bytes | bytearray | memoryview):
        raise NikaError(
            codes.VAR_007,
            "a bytes value cannot be substituted into a string; pass it whole "
            "(a value position holding only `${{ … }}`) or write it to a file and pass the path",
        )
    if isinstance(value, Mapping | Sequence):
        return render_json(value)
    raise NikaError(
        codes.VAR_006,
        f"the value {value!r:.80} of type {type(value).__name__} cannot be rendered into a string; "
        "reshape it to JSON data",
    )


def render(text: str, evaluate: Callable[[Island], Any]) -> Any:
    """Resolve `text`: a whole island keeps its value's type; otherwise a string is built.

    `evaluate` is called once per island, left to right (single pass: results are
    never re-scanned for islands).
    """
    parts = segments(text)
    if len(parts) == 1 and isinstance(parts[0], Island) and parts[0].start == 0:
        return evaluate(parts[0])
    return "".join(p if isinstance(p, str) else stringify(evaluate(p)) for p in parts)


def walk_strings(
    value: Any, path: tuple[PathKey, ...] = ()
) -> Iterator[tuple[tuple[PathKey, ...], str]]:
    """Yield every string nested in `value` with its key path (mapping keys, list indices)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from walk_strings(item, (*path, str(key)))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from walk_strings(item, (*path, index))


def is_literal(value: Any) -> bool:
    """True when no string nested in `value` carries `${{` (nothing in it waits on a run)."""
    return all("${{" not in text for _, text in walk_strings(value))
