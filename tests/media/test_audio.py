"""`nika.media.audio`: the format by magic bytes, a WAV's duration exact from its header, an
MP3's honestly unknown."""

from __future__ import annotations

import io
import struct
import wave

import pytest

from nika.media.audio import duration_ms, sniff, wav_header


def _wav(frames: int, rate: int, channels: int = 1, width: int = 2) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(width)
        out.setframerate(rate)
        out.writeframes(b"\0" * frames * channels * width)
    return buffer.getvalue()


@pytest.mark.parametrize(("payload", "fmt"), [
    (_wav(10, 8000), "wav"),
    (b"ID3\x04\x00" + b"\0" * 20, "mp3"),
    (b"\xff\xfb\x90\x00" + b"\0" * 20, "mp3"),  # MPEG-1 Layer III frame sync
    (b"\xff\xf3\x90\x00", "mp3"),  # MPEG-2 Layer III
    (b"\xff\xe9\x00\x00", None),  # the reserved version 01
    (b"\xff\xf9\x00\x00", None),  # the reserved layer 00 (an ADTS AAC header)
    (b"RIFF\0\0\0\0AVI ", None),
    (b"<html>", None),
    (b"", None),
])
def test_sniff_reads_the_magic(payload: bytes, fmt: str | None) -> None:
    assert sniff(payload) == fmt


@pytest.mark.parametrize(("frames", "rate", "channels", "width", "ms"), [
    (8000, 8000, 1, 2, 1000),
    (22050 * 3 // 2, 22050, 1, 2, 1500),
    (44100, 44100, 2, 2, 1000),
    (24000 // 3, 24000, 1, 1, 333),  # 333.33… rounds to the nearest millisecond
    (1, 48000, 1, 3, 0),
])
def test_wav_duration_is_header_math(frames, rate, channels, width, ms) -> None:
    assert duration_ms(_wav(frames, rate, channels, width)) == ms


def test_a_streaming_placeholder_size_is_clamped_to_the_bytes_present() -> None:
    data = bytearray(_wav(16000, 16000))
    struct.pack_into("<I", data, 40, 0xFFFFFFFF)  # the `data` chunk's size, as espeak streams it
    header = wav_header(bytes(data))
    assert header is not None and header.data_bytes == 32000 and header.duration_ms == 1000


def test_chunks_before_fmt_and_data_are_walked() -> None:
    data = _wav(800, 8000)
    extra = b"LIST" + struct.pack("<I", 5) + b"abcde\0"  # odd size: word-aligned pad
    assert duration_ms(data[:12] + extra + data[12:]) == 100


@pytest.mark.parametrize("payload", [
    b"\xff\xfb\x90\x00" * 8,  # MP3: honestly unknown
    b"RIFF\0\0\0\0WAVE" + b"junk\0\0\0\0" * 70 + _wav(10, 8000)[12:],  # past the chunk walk
    b"RIFF\x04\0\0\0WAVE",  # no chunks at all
    b"RIFF\0\0\0\0WAVEdata\x04\0\0\0\0\0\0\0",  # data before fmt
    _wav(10, 8000).replace(b"\x40\x1f\0\0", b"\0\0\0\0", 1),  # a zero sample rate
])
def test_no_duration_is_guessed(payload: bytes) -> None:
    assert duration_ms(payload) is None
