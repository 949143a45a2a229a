"""The strict YAML profile loader: source text in, plain data with positions out.

A workflow file is YAML 1.2 (core schema) restricted by the Nika YAML profile
(spec 01 §YAML profile · canon/laws/yaml-profile.yaml · NIKA-YAML-001..011). The loader
judges the whole profile in one pass over the parser's events, before anything is
constructed, and raises the FIRST violation as a `NikaError` carrying a `Location`.

Wire codes: duplicate keys are NIKA-PARSE-017 (spec 05's floor, pinned by the
conformance fixtures), syntax errors and multi-document streams NIKA-PARSE-001, an
empty document NIKA-PARSE-002, a non-mapping root NIKA-PARSE-019, a decimal integer
longer than 4300 digits NIKA-YAML-012; invalid UTF-8 joins BOM / non-NFC under
NIKA-YAML-011.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nika._gc import gc_paused
from nika.errors import Location
from nika.syntax._yaml_events import parse_events
from nika.syntax._yaml_text import MAX_DOCUMENT_BYTES, decode_source, oversize
from nika.syntax._yaml_tree import MAX_DEPTH, MAX_SCALAR_BYTES, Pos, build_tree

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_SCALAR_BYTES",
    "Document",
    "load_document",
    "load_mapping",
    "read_source",
]


@dataclass(frozen=True, slots=True)
class Document:
    """A loaded workflow document.

    `root` is plain Python (insertion-ordered dict / list / str / int / float / bool /
    None), `source` the decoded text, `path` where it came from (None for in-memory text).
    """

    root: Any
    source: str
    path: str | None
    _positions: Pos | None = field(default=None, repr=False, compare=False)

    def node(self, path: tuple[str | int, ...]) -> Any:
        """The plain data the author wrote at key `path`; None when it is absent."""
        node = self.root
        for step in path:
            if isinstance(node, Mapping):
                node = node.get(step)
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                node = node[step]
            else:
                return None
        return node

    def locate(self, path: tuple[str | int, ...]) -> Location | None:
        """The 1-based position of the node at key `path`.

        A str segment selects a mapping entry and yields its KEY's position; an int
        segment selects a sequence item. A segment that does not resolve stops the walk
        and the nearest located ancestor's position is returned; None only when the
        document carries no positions at all.
        """
        node = self._positions
        if node is None:
            return None
        for segment in path:
            kids = node[2]
            nxt: Pos | None = None
            if isinstance(segment, str) and isinstance(kids, dict):
                nxt = kids.get(segment)
            elif (
                isinstance(segment, int)
                and not isinstance(segment, bool)
                and isinstance(kids, list)
                and 0 <= segment < len(kids)
            ):
                nxt = kids[segment]
            if nxt is None:
                break
            node = nxt
        return Location(node[0], node[1])


def load_document(source: str | bytes, *, path: str | None = None) -> Document:
    """Parse under the strict profile; raise NikaError (with .location) on the FIRST violation.

    Gates run in a fixed order: document size, BOM, UTF-8 validity, NFC, then one pass
    over the YAML events (syntax, anchors, aliases, tags, keys, caps, scalar typing).
    """
    text, data = decode_source(source)
    with gc_paused():  # the walk builds plain, acyclic data: nothing for the collector to find
        root, positions = build_tree(parse_events(data))
    return Document(root=root, source=text, path=path, _positions=positions)


def load_mapping(text: str) -> dict[str, Any]:
    """Embedded YAML (a skill file's frontmatter) as a plain mapping, read by the same event
    walk as a workflow: YAML 1.2 core schema, no anchors, aliases or custom tags, string keys.
    A workflow file's own gates (size, BOM, NFC) are the caller's. Raises `NikaError`: an
    empty text is NIKA-PARSE-002, a root other than a mapping NIKA-PARSE-019."""
    with gc_paused():
        root, _ = build_tree(parse_events(text.encode("utf-8", errors="replace")))
    return dict(root)


def read_source(name: str) -> bytes:
    """The bytes of the workflow file `name` (`-`: standard input), read through the guard
    (`nika.guarded_read`): a FIFO, device or directory is refused before a byte is read, a
    file past the profile's cap is `NIKA-YAML-010` before it is read, a stalled stdin is cut
    off. Raises `NikaError` (`NIKA-CLI-002` or `NIKA-YAML-010`)."""
    from nika.guarded_read import Unreadable, read_input, refusal

    data = read_input(name, MAX_DOCUMENT_BYTES)
    if not isinstance(data, Unreadable):
        return data
    if data.reason == "too_large":
        raise oversize(data.size)
    raise refusal("the workflow", name, data, other=", or `-` and the workflow on stdin")
