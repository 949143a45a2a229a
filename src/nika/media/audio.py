"""Audio payloads read by their bytes, never by what a server says they are (stdlib §Audio).

`sniff` names the container from its magic bytes (WAV `RIFF…WAVE`, MP3 `ID3` or an MPEG
audio frame sync); `wav_duration_ms` is exact header math over the `fmt ` and `data` chunks.
An MP3's duration would need a walk of every frame (or a guess from a bitrate): it is
honestly unknown here (`None`), never estimated. Header-only: no sample is decoded.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final, Literal

AudioFormat = Literal["wav", "mp3"]

MIME: Final[dict[str, str]] = {"wav": "audio/wav", "mp3": "audio/mpeg"}
"""The media type each sniffed format is saved and described as."""

_CHUNK_WALK: Final = 64
"""At most this many RIFF chunks are read looking for `fmt ` and `data` (a header, not a file
of thousands of chunks, is what a speech server sends)."""


@dataclass(frozen=True, slots=True)
class WavHeader:
    """What a WAV header says: sample rate, channels, bits per sample, and the data bytes that
    are really present (a streaming writer's placeholder size is clamped to the payload)."""

    rate: int
    channels: int
    bits: int
    data_bytes: int

    @property
    def duration_ms(self) -> int:
        """Exact: whole sample frames over the rate, rounded to the nearest millisecond."""
        frame = self.channels * max(self.bits // 8, 1)
        frames = self.data_bytes // frame
        return (frames * 1000 + self.rate // 2) // self.rate


def sniff(payload: bytes) -> AudioFormat | None:
    """The payload's audio format by its magic bytes; None when it is not WAV or MP3."""
    if len(payload) >= 12 and payload[:4] == b"RIFF" and payload[8:12] == b"WAVE":
        return "wav"
    if payload[:3] == b"ID3":
        return "mp3"
    # An MPEG audio frame header: 11 sync bits, a version that is not the reserved 01, and a
    # layer that is not the reserved 00.
    if len(payload) >= 2 and payload[0] == 0xFF and payload[1] & 0xE0 == 0xE0:
        return "mp3" if payload[1] & 0x18 != 0x08 and payload[1] & 0x06 != 0 else None
    return None


def wav_header(payload: bytes) -> WavHeader | None:
    """The `fmt ` and `data` chunks of a RIFF/WAVE payload; None when either is missing or
    the format is not one a duration can be read from (zero rate, channels or frame size)."""
    if sniff(payload) != "wav":
        return None
    at, fmt = 12, None
    for _ in range(_CHUNK_WALK):
        if at + 8 > len(payload):
            return None
        tag, size = payload[at:at + 4], struct.unpack_from("<I", payload, at + 4)[0]
        body = at + 8
        if tag == b"fmt " and size >= 16 and body + 16 <= len(payload):
            _, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", payload, body)
            fmt = (rate, channels, bits)
        elif tag == b"data":
            if fmt is None or fmt[0] == 0 or fmt[1] == 0 or fmt[2] == 0:
                return None
            present = min(size, len(payload) - body)
            return WavHeader(rate=fmt[0], channels=fmt[1], bits=fmt[2], data_bytes=present)
        at = body + size + (size & 1)  # chunks are word-aligned
    return None


def duration_ms(payload: bytes) -> int | None:
    """The exact duration of a WAV payload in milliseconds; None for MP3 (or an unreadable
    header): unknown, never a guess."""
    header = wav_header(payload)
    return None if header is None else header.duration_ms
