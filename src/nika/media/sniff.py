"""What a media payload IS, read from its first bytes: the magic number decides the format, and
for images the header decides the dimensions — no pixel is decoded, so a decompression bomb
has no surface here (its header is all that is read, and its declared size is judged).

`sniff` names PNG (IHDR), JPEG (the first SOFn segment), WebP (VP8 · VP8L · VP8X), and the
audio formats the speech builtin writes (WAV, MP3: format only). `content_credentials` tells
whether the payload carries a C2PA manifest in one of its standard carriages (PNG `caBX`,
JPEG APP11 JUMBF, a RIFF `C2PA` chunk, an ID3v2 `GEOB` of `application/c2pa`) — a DETECTION,
never a validation: a signed payload must not be written into (its hard binding hashes the
bytes), so the caller stands its own embed down.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

from nika.media import audio

PNG_MAGIC: Final = b"\x89PNG\r\n\x1a\n"
_JPEG_SOF: Final = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_MAX_SEGMENTS: Final = 4096
"""A header walk stops after this many segments or chunks: a crafted file cannot make it long."""

MIME: Final = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp", **audio.MIME}
"""The media type of every format sniffed here; the audio rows are `audio.MIME`'s."""
EXTENSION: Final = {"png": "png", "jpeg": "jpg", "webp": "webp", "wav": "wav", "mp3": "mp3"}


class SniffError(ValueError):
    """The payload is no format this reads, or its header is broken (`detail` says which)."""


@dataclass(frozen=True, slots=True)
class Sniffed:
    """A payload's format by its magic bytes, and an image's header dimensions (None for
    audio)."""

    format: str
    width: int | None = None
    height: int | None = None

    @property
    def mime_type(self) -> str:
        return MIME[self.format]

    @property
    def extension(self) -> str:
        return EXTENSION[self.format]


def sniff(data: bytes) -> Sniffed:
    """The format and header dimensions of `data`; `SniffError` when the magic is no known
    format or the header is truncated or malformed."""
    if data.startswith(PNG_MAGIC):
        return _png(data)
    if data.startswith(b"\xff\xd8\xff"):
        return _jpeg(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp(data)
    sound = audio.sniff(data)  # the one audio judge: WAV, MP3 (reserved version/layer refused)
    if sound is not None:
        return Sniffed(sound)
    head = data[:8].hex(" ") or "nothing"
    raise SniffError(f"the payload's first bytes ({head}) are no PNG, JPEG, WebP, WAV or MP3 "
                     "magic number")


def _png(data: bytes) -> Sniffed:
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise SniffError("the PNG has no IHDR chunk where the format puts it (truncated?)")
    width, height = struct.unpack(">II", data[16:24])
    return _sized("png", width, height)


def _jpeg(data: bytes) -> Sniffed:
    at = 2
    for _ in range(_MAX_SEGMENTS):
        while at < len(data) and data[at] == 0xFF and at + 1 < len(data) and data[at + 1] == 0xFF:
            at += 1  # fill bytes before a marker
        if at + 4 > len(data) or data[at] != 0xFF:
            break
        marker = data[at + 1]
        (length,) = struct.unpack(">H", data[at + 2:at + 4])
        if marker in _JPEG_SOF:
            if at + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            return _sized("jpeg", width, height)
        if marker == 0xDA or length < 2:  # scan data before any frame header
            break
        at += 2 + length
    raise SniffError("the JPEG has no readable SOF (frame header) segment")


def _webp(data: bytes) -> Sniffed:
    kind, body = data[12:16], data[20:]
    if kind == b"VP8X" and len(body) >= 10:
        width = 1 + int.from_bytes(body[4:7], "little")
        height = 1 + int.from_bytes(body[7:10], "little")
        return _sized("webp", width, height)
    if kind == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:
        bits = int.from_bytes(body[1:5], "little")
        return _sized("webp", 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF))
    if kind == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", body[6:10])
        return _sized("webp", width & 0x3FFF, height & 0x3FFF)
    raise SniffError(f"the WebP's first chunk {kind!r} is no readable VP8/VP8L/VP8X header")


def _sized(fmt: str, width: int, height: int) -> Sniffed:
    if width == 0 or height == 0:
        raise SniffError(f"the {fmt.upper()} header declares {width}×{height} pixels")
    return Sniffed(fmt, width, height)


def content_credentials(data: bytes) -> str | None:
    """`"c2pa"` when `data` carries a C2PA manifest in a standard carriage, else None."""
    if data.startswith(PNG_MAGIC):
        found = any(kind == b"caBX" for kind in _png_kinds(data))
    elif data.startswith(b"\xff\xd8"):
        found = _jpeg_has_jumbf(data)
    elif data[:4] == b"RIFF":
        found = b"C2PA" in _riff_kinds(data)
    elif data.startswith(b"ID3"):
        size = data[6:10]
        end = 10 + sum((b & 0x7F) << (7 * (3 - i)) for i, b in enumerate(size))
        found = b"GEOB" in data[10:end] and b"application/c2pa" in data[10:end]
    else:
        found = False
    return "c2pa" if found else None


def _png_kinds(data: bytes) -> list[bytes]:
    kinds, at = [], len(PNG_MAGIC)
    for _ in range(_MAX_SEGMENTS):
        if at + 8 > len(data):
            break
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        kinds.append(kind)
        if kind == b"IEND":
            break
        at += 12 + length
    return kinds


def _jpeg_has_jumbf(data: bytes) -> bool:
    at = 2
    for _ in range(_MAX_SEGMENTS):
        if at + 4 > len(data) or data[at] != 0xFF:
            return False
        marker = data[at + 1]
        (length,) = struct.unpack(">H", data[at + 2:at + 4])
        if marker == 0xEB and b"jumb" in data[at + 4:at + 2 + length]:
            return True
        if marker == 0xDA or length < 2:
            return False
        at += 2 + length
    return False


def _riff_kinds(data: bytes) -> list[bytes]:
    kinds, at = [], 12
    for _ in range(_MAX_SEGMENTS):
        if at + 8 > len(data):
            break
        kind, length = data[at:at + 4], int.from_bytes(data[at + 4:at + 8], "little")
        kinds.append(kind)
        at += 8 + length + (length & 1)  # chunks are padded to an even length
    return kinds
