"""Walk the YAML event stream once, judging the profile and building plain data + positions.

One pass, an explicit stack (no recursion), and the first violation in document order
is raised. Positions are kept in a parallel tree: `(line, column, children)` where
children is a dict (mapping: key -> the KEY's position) or a list (sequence items).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, TypeAlias

from yaml import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from nika import codes
from nika.errors import Location, NikaError
from nika.syntax._yaml_scalar import ScalarRefusal, core_tag, resolve_plain, resolve_tagged

Kids: TypeAlias = "dict[str, Pos] | list[Pos] | None"
Pos: TypeAlias = "tuple[int, int, Kids]"

MAX_DEPTH: Final = 64
"""Nesting cap (root collection = level 1 · D-2026-07-17-N5): level 65 is NIKA-YAML-009."""
MAX_SCALAR_BYTES: Final = 65_536
"""Per-scalar cap in UTF-8 bytes (64 KiB · D-2026-07-17-N5): one byte more is NIKA-YAML-005."""

_CORE_PREFIX: Final = "tag:yaml.org,2002:"
# A scalar this short is under the byte cap whatever its characters (4 bytes each at most).
_FAST_SCALAR_CHARS: Final = MAX_SCALAR_BYTES // 4
_NO_KEY: Final = object()


class _Frame:
    """One open collection: its data, its positions, and (for a mapping) the pending key."""

    __slots__ = ("data", "kids", "is_map", "key", "key_line", "key_col")

    def __init__(self, data: Any, kids: Any, is_map: bool) -> None:
        self.data = data
        self.kids = kids
        self.is_map = is_map
        self.key: Any = _NO_KEY
        self.key_line = 0
        self.key_col = 0


def build_tree(events: Iterator[Any]) -> tuple[Any, Pos]:
    """Consume `events` (one libyaml stream) and return (root mapping, root position)."""
    frames: list[_Frame] = []
    root: tuple[Any, Pos] | None = None
    documents = 0
    for event in events:
        kind = type(event)
        if kind is ScalarEvent:
            mark = event.start_mark
            line, col = mark.line + 1, mark.column + 1
            if event.anchor is not None:
                raise _anchor(event.anchor, line, col)
            text = event.value
            if event.tag is None and not event.style and len(text) <= _FAST_SCALAR_CHARS:
                try:  # the common case, kept free of extra calls
                    value = resolve_plain(text)
                except ScalarRefusal as refusal:
                    where = Location(line, col)
                    raise NikaError(refusal.code, refusal.detail, location=where) from None
            else:
                value = _scalar(event, line, col)
            if not frames:
                raise _scalar_root(event, value, line, col)
            top = frames[-1]
            if top.is_map and top.key is _NO_KEY:
                if type(value) is not str or value == "<<" or value in top.data:
                    _check_key(event, value, top, line, col)
                top.key, top.key_line, top.key_col = value, line, col
            elif top.is_map:
                top.data[top.key] = value
                top.kids[top.key] = (top.key_line, top.key_col, None)
                top.key = _NO_KEY
            else:
                top.data.append(value)
                top.kids.append((line, col, None))
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            is_map = kind is MappingStartEvent
            mark = event.start_mark
            line, col = mark.line + 1, mark.column + 1
            if event.anchor is not None:
                raise _anchor(event.anchor, line, col)
            if event.tag is not None and event.tag != "!":
                _check_collection_tag(event.tag, is_map, line, col)
            if len(frames) >= MAX_DEPTH:
                raise _too_deep(line, col)
            data: Any = {} if is_map else []
            kids: Any = {} if is_map else []
            if not frames:
                if not is_map:
                    raise _root_shape("a sequence", line, col)
                root = (data, (line, col, kids))
            else:
                top = frames[-1]
                if top.is_map and top.key is _NO_KEY:
                    raise _complex_key(is_map, line, col)
                if top.is_map:
                    top.data[top.key] = data
                    top.kids[top.key] = (top.key_line, top.key_col, kids)
                    top.key = _NO_KEY
                else:
                    top.data.append(data)
                    top.kids.append((line, col, kids))
            frames.append(_Frame(data, kids, is_map))
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            frames.pop()
        elif kind is AliasEvent:
            mark = event.start_mark
            raise _alias(event.anchor, mark.line + 1, mark.column + 1)
        elif kind is DocumentStartEvent:
            documents += 1
            _check_document_start(event, documents)
    if root is None:
        raise _empty(1, 1)
    return root


def _scalar(event: Any, line: int, col: int) -> Any:
    text: str = event.value
    if len(text) > _FAST_SCALAR_CHARS and len(text.encode("utf-8")) > MAX_SCALAR_BYTES:
        raise NikaError(
            codes.YAML_005,
            f"the scalar starting {text[:30]!r}... is {len(text.encode('utf-8'))} bytes, past the "
            f"{MAX_SCALAR_BYTES}-byte (64 KiB) cap of the Nika YAML profile, which never "
            "truncates: move the payload into a file the workflow reads",
            location=Location(line, col),
        )
    tag = event.tag
    try:
        if tag is None:
            return resolve_plain(text) if not event.style else text
        if tag == "!":
            return text
        kind = core_tag(tag)
        if kind is None:
            raise _custom_tag(tag, line, col)
        if kind in ("map", "seq"):
            raise NikaError(
                codes.YAML_006,
                f"the tag !!{kind} is on the scalar {text!r}: a scalar cannot be a {kind}; "
                "remove the tag",
                location=Location(line, col),
            )
        return resolve_tagged(text, kind)
    except ScalarRefusal as refusal:
        raise NikaError(refusal.code, refusal.detail, location=Location(line, col)) from None


def _check_key(event: Any, key: Any, top: _Frame, line: int, col: int) -> None:
    if type(key) is not str:
        shown = "an empty key" if event.value == "" else f"the key {event.value!r}"
        raise NikaError(
            codes.YAML_007,
            f"{shown} is read as {_type_name(key)}, but the Nika YAML profile admits only "
            f"string keys: quote it (\"{event.value}\") or rename it",
            location=Location(line, col),
        )
    if key == "<<" and event.tag is None and not event.style:
        raise NikaError(
            codes.YAML_003,
            "the merge key '<<' is forbidden by the Nika YAML profile (YAML 1.2 dropped it and "
            "parsers disagree on it): write the merged keys out explicitly in this mapping",
            location=Location(line, col),
        )
    if key in top.data:
        first = top.kids[key]
        raise NikaError(
            codes.PARSE_017,
            f"the key {key!r} appears twice in one mapping (first at line {first[0]}, "
            f"column {first[1]}); YAML never keeps a silent last-wins here: keep a single "
            f"{key!r} entry and merge or rename the other",
            location=Location(line, col),
        )


def _check_collection_tag(tag: str, is_map: bool, line: int, col: int) -> None:
    kind = core_tag(tag)
    want = "map" if is_map else "seq"
    if kind is None:
        raise _custom_tag(tag, line, col)
    if kind != want:
        raise NikaError(
            codes.YAML_006,
            f"the tag !!{kind} is on a {'mapping' if is_map else 'sequence'}, which it cannot "
            "describe: remove the tag",
            location=Location(line, col),
        )


def _check_document_start(event: Any, documents: int) -> None:
    mark = event.start_mark
    where = Location(mark.line + 1, mark.column + 1)
    if documents > 1:
        raise NikaError(
            codes.PARSE_001,
            f"a second YAML document starts at line {where.line}: a workflow file holds exactly "
            "one document; remove the '---' separator or split the documents into files",
            location=where,
        )
    version = event.version
    if version is not None and tuple(version) != (1, 2):
        shown = ".".join(str(part) for part in version)
        raise NikaError(
            codes.PARSE_001,
            f"the directive '%YAML {shown}' asks for another YAML version, but a Nika file is "
            "YAML 1.2 (core schema): remove the directive or write '%YAML 1.2'",
            location=where,
        )


def _shorthand(tag: str) -> str:
    return "!!" + tag[len(_CORE_PREFIX) :] if tag.startswith(_CORE_PREFIX) else tag


def _custom_tag(tag: str, line: int, col: int) -> NikaError:
    return NikaError(
        codes.YAML_006,
        f"the tag {_shorthand(tag)!r} is outside the YAML 1.2 core schema (str, int, float, "
        "bool, null, map, seq) the Nika YAML profile admits: remove the tag and write the "
        "value as plain data",
        location=Location(line, col),
    )


def _anchor(name: str, line: int, col: int) -> NikaError:
    return NikaError(
        codes.YAML_001,
        f"the anchor '&{name}' is forbidden by the Nika YAML profile, even when nothing "
        f"references it: delete '&{name}' and repeat the value wherever it is needed",
        location=Location(line, col),
    )


def _alias(name: str, line: int, col: int) -> NikaError:
    return NikaError(
        codes.YAML_002,
        f"the alias '*{name}' is forbidden by the Nika YAML profile (what a reviewer reads "
        f"must be what the engine sees): replace '*{name}' with the value written out in full",
        location=Location(line, col),
    )


def _complex_key(is_map: bool, line: int, col: int) -> NikaError:
    shape = "mapping" if is_map else "sequence"
    return NikaError(
        codes.YAML_007,
        f"a {shape} is used as a mapping key, but the Nika YAML profile admits only string "
        "keys: use a string key and move the structure into its value",
        location=Location(line, col),
    )


def _too_deep(line: int, col: int) -> NikaError:
    return NikaError(
        codes.YAML_009,
        f"the collection at line {line}, column {col} is nesting level {MAX_DEPTH + 1}, past "
        f"the {MAX_DEPTH}-level cap of the Nika YAML profile (the root is level 1): "
        "flatten the structure or move deep data into a file",
        location=Location(line, col),
    )


def _scalar_root(event: Any, value: Any, line: int, col: int) -> NikaError:
    if value is None and event.value == "" and event.tag is None:
        return _empty(line, col)
    return _root_shape(f"the scalar {event.value[:40]!r}", line, col)


def _root_shape(what: str, line: int, col: int) -> NikaError:
    return NikaError(
        codes.PARSE_019,
        f"the document root is {what}, but a Nika file is a mapping that starts with "
        "'nika: <name>': write the file as 'key: value' entries at the top level",
        location=Location(line, col),
    )


def _empty(line: int, col: int) -> NikaError:
    return NikaError(
        codes.PARSE_002,
        "the document is empty, and a file with no 'nika:' key is not a Nika file: start it "
        "with 'nika: <name>' followed by 'tasks:'",
        location=Location(line, col),
    )


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    return f"the {type(value).__name__} {value!r}"
