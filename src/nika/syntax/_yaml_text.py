"""Byte- and text-level gates of the YAML profile: size cap, BOM, UTF-8 validity, NFC.

These run before any YAML parsing, so a refused source never reaches the parser.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from nika import codes
from nika.errors import Location, NikaError

MAX_DOCUMENT_BYTES: Final = 1_048_576
"""The document size cap (1 MiB · D-2026-07-17-N5): one byte more is NIKA-YAML-010."""

_BOMS: Final = (
    (b"\xef\xbb\xbf", "UTF-8"),
    (b"\xff\xfe", "UTF-16 little-endian"),
    (b"\xfe\xff", "UTF-16 big-endian"),
)


def location_of_offset(text: str, offset: int) -> Location:
    """The 1-based line/column of character `offset` in `text` (columns count code points)."""
    line_start = text.rfind("\n", 0, offset) + 1
    return Location(text.count("\n", 0, offset) + 1, offset - line_start + 1)


def location_of_byte(data: bytes, offset: int) -> Location:
    """The 1-based position of byte `offset`, given that `data[:offset]` is valid UTF-8."""
    return location_of_offset(data[:offset].decode("utf-8", "replace"), offset)


def decode_source(source: str | bytes) -> tuple[str, bytes]:
    """Admit the raw source under the profile's encoding rules; return (text, utf8_bytes).

    Order of the gates is fixed so the first violation is deterministic: size, BOM,
    UTF-8 validity, NFC.
    """
    data = _encode(source) if isinstance(source, str) else bytes(source)
    _check_size(data)
    _check_bom(data)
    text = source if isinstance(source, str) else _decode(data)
    _check_nfc(text)
    return text, data


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        where = location_of_offset(text, exc.start)
        raise NikaError(
            codes.YAML_011,
            f"the text holds a lone surrogate U+{ord(text[exc.start]):04X} at line "
            f"{where.line}, column {where.column}, which no UTF-8 file can carry: "
            "remove it or replace it with the character you meant",
            location=where,
        ) from None


def _check_size(data: bytes) -> None:
    if len(data) > MAX_DOCUMENT_BYTES:
        raise oversize(len(data))


def oversize(size: int | None) -> NikaError:
    """The profile's refusal of a document of `size` bytes (None: more than the cap, its
    size unknown — a stream cut off one byte past it)."""
    shown = f"{size} bytes" if size is not None else f"more than {MAX_DOCUMENT_BYTES} bytes"
    return NikaError(
        codes.YAML_010,
        f"the document is {shown}, past the {MAX_DOCUMENT_BYTES}-byte (1 MiB) cap "
        "of the Nika YAML profile: split it into smaller workflows (invoke: workflow:) "
        "or move large payloads into files the workflow reads",
        details={"size": size, "cap": MAX_DOCUMENT_BYTES},
        location=Location(1, 1),
    )


def _check_bom(data: bytes) -> None:
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise NikaError(
                codes.YAML_011,
                f"the file starts with a {name} byte-order mark ({bom.hex(' ').upper()}): "
                "the Nika YAML profile refuses a BOM rather than strip it silently; "
                "save the file as UTF-8 without BOM",
                location=Location(1, 1),
            )
    if data.startswith(b"\x00\x00\xfe\xff"):
        raise NikaError(
            codes.YAML_011,
            "the file starts with a UTF-32 byte-order mark (00 00 FE FF): "
            "save the file as UTF-8 without BOM",
            location=Location(1, 1),
        )


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = location_of_byte(data, exc.start)
        bad = data[exc.start : exc.end].hex(" ").upper()
        raise NikaError(
            codes.YAML_011,
            f"byte(s) {bad} at line {where.line}, column {where.column} are not valid UTF-8: "
            "a workflow file is UTF-8 text; re-save it with UTF-8 encoding",
            location=where,
        ) from None


def _check_nfc(text: str) -> None:
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return
    line_no, column, snippet = _first_non_nfc(text)
    fixed = unicodedata.normalize("NFC", snippet)
    raise NikaError(
        codes.YAML_011,
        f"the text at line {line_no}, column {column} is not NFC-normalized "
        f"({_codepoints(snippet)} should be {_codepoints(fixed)}): the Nika YAML profile "
        "never normalizes silently; "
        "re-save the file with NFC normalization (e.g. `uconv -x any-nfc`)",
        location=Location(line_no, column),
    )


def _first_non_nfc(text: str) -> tuple[int, int, str]:
    """Find the first cluster (a starter and its combining marks) that NFC would change."""
    for line_no, line in enumerate(text.split("\n"), start=1):
        if line.isascii() or unicodedata.is_normalized("NFC", line):
            continue
        start = 0
        for i in range(1, len(line) + 1):
            if i < len(line) and unicodedata.combining(line[i]):
                continue
            cluster = line[start:i]
            if not unicodedata.is_normalized("NFC", cluster):
                return line_no, start + 1, cluster
            start = i
        # Two starters that compose together (e.g. Hangul jamo): point at the line.
        return line_no, 1, line
    return 1, 1, text


def _codepoints(text: str) -> str:
    return " ".join(f"U+{ord(ch):04X}" for ch in text[:8]) + (" ..." if len(text) > 8 else "")
