"""The one boundary between the YAML library and nika: events in, NikaError out.

libyaml (through PyYAML's C binding) is the event source: it is about 25x faster than a
pure-Python parser on a 10k-task workflow, and it never constructs anything: anchors,
aliases and tags arrive as plain event attributes, so nothing is expanded or built before
the profile has judged it. Scalar typing is nika's own (YAML 1.2 core schema), never the
library's YAML 1.1 resolver.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from yaml import StreamEndEvent, YAMLError
from yaml._yaml import CParser

from nika import codes
from nika.errors import Location, NikaError
from nika.syntax._yaml_text import location_of_byte

# Library wording -> the fix an author should apply; first match wins.
_HINTS: tuple[tuple[str, str], ...] = (
    ("a tab character", "indent with spaces: YAML forbids tabs for indentation"),
    ("mapping values are not allowed", "quote a value that contains ': ', or fix the indent"),
    ("could not find expected ':'", "add ': ' after the key, or close the open quote or bracket"),
    ("did not find expected key", "align this line with the keys of its mapping"),
    ("did not find expected node content", "give the entry a value, or close the bracket"),
    ("found unexpected end of stream", "close the open quote or bracket"),
    ("undefined tag handle", "remove the tag: the Nika YAML profile admits core tags only"),
    ("control characters are not allowed", "remove the character, or write it as an escape "
     "inside a double-quoted string"),
)
_DEFAULT_HINT = "fix the YAML syntax at that position (indentation, quotes, brackets, ': ')"


def parse_events(data: bytes) -> Iterator[Any]:
    """Yield the libyaml events of `data` (valid UTF-8), ending with the StreamEndEvent.

    Every exception the library raises is translated here into NIKA-PARSE-001 with the
    library's position; nothing else in nika touches the library's exception types.
    """
    parser = CParser(data)
    try:
        while True:
            event = parser.get_event()
            yield event
            if type(event) is StreamEndEvent:
                return
    except YAMLError as exc:
        raise _syntax_error(exc, data) from None
    except Exception as exc:  # a library defect must still surface as a typed error
        raise NikaError(
            codes.IMPL_001,
            f"the YAML parser failed unexpectedly ({type(exc).__name__}: {exc}): "
            "please report this input to the nika maintainers",
        ) from None


def _syntax_error(exc: YAMLError, data: bytes) -> NikaError:
    problem = str(getattr(exc, "problem", None) or getattr(exc, "reason", None) or exc)
    context = getattr(exc, "context", None)
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        where = Location(mark.line + 1, mark.column + 1)
    elif isinstance(getattr(exc, "position", None), int):
        where = location_of_byte(data, min(exc.position, len(data)))
        char = getattr(exc, "character", None)
        if isinstance(char, int):
            problem = f"character U+{char:04X}: {problem}"
    else:
        where = Location(1, 1)
    said = f"{context}, {problem}" if context else problem
    if "exceeded maximum nesting depth" in said:
        # libyaml's own flow-level guard (1000) fires while scanning ahead, before the
        # events that would reach the profile's cap: the violation is the same one.
        return NikaError(
            codes.YAML_009,
            f"the flow collections opened up to line {where.line}, column {where.column} nest "
            "far past the 64-level cap of the Nika YAML profile (the root is level 1): "
            "flatten the structure or move deep data into a file",
            location=where,
        )
    if _char_at(data, where) == "\t":
        said = f"{said} (a tab character)"
    hint = next((fix for needle, fix in _HINTS if needle in said), _DEFAULT_HINT)
    opened = _unclosed(exc, where)
    if opened is not None:
        what, at = opened
        return NikaError(
            codes.PARSE_001,
            f"the YAML does not parse: the {what} opened at line {at.line}, column {at.column} "
            f"is not closed (the parser gave up at line {where.line}, column {where.column}: "
            f"{said}); close it on line {at.line}",
            location=at,
        )
    return NikaError(
        codes.PARSE_001,
        f"the YAML does not parse at line {where.line}, column {where.column}: {said}; {hint}",
        location=where,
    )


_OPENERS: tuple[tuple[str, str], ...] = (
    ("while parsing a flow mapping", "`{`"),
    ("while parsing a flow sequence", "`[`"),
    ("while scanning a quoted scalar", "quote"),
)


def _unclosed(exc: YAMLError, where: Location) -> tuple[str, Location] | None:
    """The bracket or quote left open on an EARLIER line than where libyaml noticed: the
    line to fix is the one it opened on (a `}` missing on line 5 is noticed on line 7)."""
    context, mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if not isinstance(context, str) or mark is None or mark.line + 1 >= where.line:
        return None
    what = next((name for needle, name in _OPENERS if context.startswith(needle)), None)
    return None if what is None else (what, Location(mark.line + 1, mark.column + 1))


def _char_at(data: bytes, where: Location) -> str:
    lines = data.decode("utf-8", "replace").split("\n")
    if where.line > len(lines):
        return ""
    line = lines[where.line - 1]
    return line[where.column - 1] if where.column <= len(line) else ""
