"""PNG v1 reading and writing: the part of the format the media builtins speak.

Reading (`read_header`, `decode`): the signature and IHDR are judged first, and the decoded
size is judged from the header BEFORE anything is decompressed — at most `MAX_SIDE` pixels a
side and `MAX_PIXELS` in all — so a decompression bomb is refused without allocating. Bit
depth 8, colour types gray (0), gray+alpha (4), RGB (2) and RGBA (6), no interlace; every
chunk's CRC is checked; the image data inflates through zlib with its output bounded to the
exact size the header implies. Pixels come back as a uint8 array (height, width, channels).

Writing (`encode`) uses our own deflate (`_deflate`): filter 0 on every row, fixed-Huffman
or stored blocks, so the bytes are the same on every machine. `tEXt` chunks ride along.

Every refusal is a `PngError` whose `kind` says which: `format` (not a PNG this reads),
`corrupt` (structurally broken, a CRC or Adler mismatch, truncated), `budget` (too large).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

from nika.media._deflate import zlib_stream
from nika.media._unfilter import unfilter

SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
MAX_SIDE: Final = 16_384
MAX_PIXELS: Final = 1 << 26
CHANNELS: Final = {0: 1, 4: 2, 2: 3, 6: 4}
"""Channels per supported colour type (gray, gray+alpha, RGB, RGBA)."""
_COLOUR_NAMES: Final = {0: "gray", 2: "RGB", 3: "palette", 4: "gray+alpha", 6: "RGBA"}
_TYPE_OF: Final = {v: k for k, v in CHANNELS.items()}
_STEP: Final = 1 << 20

Pixels = npt.NDArray[np.uint8]
Kind = Literal["format", "corrupt", "budget"]


class PngError(Exception):
    """A PNG this module refuses: `kind` (format · corrupt · budget) and a prescriptive
    `detail`."""

    def __init__(self, kind: Kind, detail: str) -> None:
        super().__init__(detail)
        self.kind: Kind = kind
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Header:
    """The IHDR fields this module reads."""

    width: int
    height: int
    depth: int
    colour: int
    interlace: int

    @property
    def channels(self) -> int:
        return CHANNELS[self.colour]


def budget_problem(width: int, height: int) -> str | None:
    """Why `width` × `height` is over the pixel budget (None when it fits)."""
    if width > MAX_SIDE or height > MAX_SIDE:
        return (f"{width}×{height} pixels exceeds the {MAX_SIDE} pixels per side cap; "
                "downscale the image first")
    if width * height > MAX_PIXELS:
        return (f"{width}×{height} = {width * height} pixels exceeds the 2^26 "
                f"({MAX_PIXELS}) pixel budget; downscale the image first")
    return None


def _chunks(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """Each chunk's type and payload, CRC-checked, from just after the signature."""
    at = len(SIGNATURE)
    while True:
        if at + 8 > len(data):
            raise PngError("corrupt", f"the PNG is truncated at byte {at} (no IEND chunk); "
                           "re-export the file")
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        end = at + 8 + length + 4
        if end > len(data):
            raise PngError("corrupt", f"chunk {kind!r} at byte {at} runs past the end of the "
                           "file (truncated PNG); re-export the file")
        body = data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[end - 4:end])
        if zlib.crc32(kind + body) != crc:
            raise PngError("corrupt", f"chunk {kind!r} at byte {at} fails its CRC check "
                           "(corrupted file); re-export the file")
        yield kind, body
        if kind == b"IEND":
            return
        at = end


def read_header(data: bytes) -> Header:
    """The signature and IHDR, judged: format, then the pixel budget. Reads nothing else."""
    if not data.startswith(SIGNATURE):
        raise PngError("format", "the input is not a PNG file (no PNG signature); produce "
                       "PNG upstream, e.g. `nika:image_generate` with `format: png`")
    if len(data) < len(SIGNATURE) + 25:
        raise PngError("corrupt", "the PNG is truncated inside its header; re-export the file")
    kind, body = next(_chunks(data))
    if kind != b"IHDR" or len(body) != 13:
        raise PngError("corrupt", "the PNG does not start with a 13-byte IHDR chunk")
    width, height, depth, colour, method, flt, interlace = struct.unpack(">IIBBBBB", body)
    if width == 0 or height == 0 or method != 0 or flt != 0 or interlace > 1:
        raise PngError("corrupt", f"the PNG header is invalid ({width}×{height}, compression "
                       f"{method}, filter {flt}, interlace {interlace})")
    problem = budget_problem(width, height)
    if problem is not None:
        raise PngError("budget", f"the PNG header declares {problem}")
    if colour not in CHANNELS or depth != 8:
        name = _COLOUR_NAMES.get(colour, f"colour type {colour}")
        raise PngError("format", f"the PNG is {name} at bit depth {depth}; only 8-bit gray, "
                       "gray+alpha, RGB and RGBA are read — convert it to 8-bit RGB(A) first")
    if interlace:
        raise PngError("format", "the PNG is interlaced (Adam7); save it non-interlaced")
    return Header(width, height, depth, colour, interlace)


def _inflate(inflater: Any, body: bytes, raw: bytearray, expected: int) -> None:
    """Inflate `body` onto `raw` in 1 MiB steps (no second copy of a large image), refusing
    the first byte past `expected`."""
    pending = body
    while pending:
        try:
            piece = inflater.decompress(pending, min(_STEP, expected + 1 - len(raw)))
        except zlib.error as err:
            raise PngError("corrupt", f"the image data does not inflate ({err}); the file is "
                           "corrupted — re-export it") from None
        raw += piece
        if len(raw) > expected:
            raise PngError("corrupt", "the image data inflates to more bytes than the header "
                           "declares; the file is corrupted — re-export it")
        if not piece and inflater.unconsumed_tail == pending:
            return  # no progress: the stream ended (the rest is unused data)
        pending = inflater.unconsumed_tail


def decode(data: bytes, checkpoint: Callable[[], None] = lambda: None) -> Pixels:
    """The pixels of a PNG (height, width, channels), after `read_header` judged it."""
    header = read_header(data)
    stride = header.width * header.channels
    expected = header.height * (stride + 1)
    inflater = zlib.decompressobj()
    raw = bytearray()
    seen_data = False
    for kind, body in _chunks(data):
        if kind == b"IDAT":
            seen_data = True
            _inflate(inflater, body, raw, expected)
        elif kind[0] & 0x20 == 0 and kind not in (b"IHDR", b"IEND", b"PLTE"):
            raise PngError("format", f"the PNG carries an unknown critical chunk {kind!r}")
    if not seen_data or not inflater.eof or len(raw) != expected:
        raise PngError("corrupt", f"the image data is incomplete ({len(raw)} of {expected} "
                       "bytes, or no end of stream); the file is truncated — re-export it")
    checkpoint()
    try:
        return unfilter(raw, header.height, header.width, header.channels, checkpoint)
    except ValueError as err:
        raise PngError("corrupt", str(err)) from None


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def text_chunk(keyword: str, text: str) -> tuple[str, str]:
    """A tEXt entry, checked: a 1..=79 character Latin-1 keyword and Latin-1 text."""
    if not 1 <= len(keyword) <= 79 or "\x00" in keyword + text:
        raise ValueError(f"invalid tEXt keyword {keyword!r}")
    keyword.encode("latin-1")
    text.encode("latin-1")
    return keyword, text


def encode(pixels: Pixels, texts: Sequence[tuple[str, str]] = (),
           checkpoint: Callable[[], None] = lambda: None) -> bytes:
    """A PNG of `pixels` (height, width, 1..=4 channels of uint8), with `texts` as tEXt
    chunks after IHDR, in the order given. Byte-identical for identical input everywhere."""
    height, width, channels = pixels.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _TYPE_OF[channels], 0, 0, 0)
    rows = np.zeros((height, width * channels + 1), np.uint8)  # filter byte 0 on every row
    rows[:, 1:] = pixels.reshape(height, width * channels)
    stream = zlib_stream(rows.tobytes(), pixel=channels, row=width * channels + 1,
                         checkpoint=checkpoint)
    out = [SIGNATURE, _chunk(b"IHDR", header)]
    for keyword, text in texts:
        out.append(_chunk(b"tEXt", keyword.encode("latin-1") + b"\x00" + text.encode("latin-1")))
    out += [_chunk(b"IDAT", stream), _chunk(b"IEND", b"")]
    return b"".join(out)


def read_texts(data: bytes) -> dict[str, str]:
    """The tEXt chunks of a PNG (the first value per keyword)."""
    read_header(data)
    found: dict[str, str] = {}
    for kind, body in _chunks(data):
        if kind == b"tEXt" and b"\x00" in body:
            key, _, value = body.partition(b"\x00")
            found.setdefault(key.decode("latin-1"), value.decode("latin-1"))
    return found


def insert_text(data: bytes, keyword: str, text: str) -> bytes:
    """`data` (a PNG) with one more tEXt chunk right after IHDR — the other chunks, pixels
    included, byte for byte as they were (any bit depth or colour type: nothing is decoded)."""
    keyword, text = text_chunk(keyword, text)
    if not data.startswith(SIGNATURE) or data[12:16] != b"IHDR":
        raise PngError("format", "the input is not a PNG file (no PNG signature and IHDR)")
    (length,) = struct.unpack(">I", data[8:12])
    end = len(SIGNATURE) + 8 + 13 + 4
    if length != 13 or len(data) < end:  # the chunk ends elsewhere: a tEXt would split it
        raise PngError("corrupt", f"the PNG's IHDR chunk declares {length} bytes, not 13 (or "
                       "is truncated); re-export the file")
    chunk = _chunk(b"tEXt", keyword.encode("latin-1") + b"\x00" + text.encode("latin-1"))
    return data[:end] + chunk + data[end:]
