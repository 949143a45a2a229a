"""`nika.media.sniff`: formats by magic bytes and image dimensions by header alone (real files
written by Pillow), C2PA detection in each standard carriage, and `png.insert_text`."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from nika.media import audio, png
from nika.media.sniff import SniffError, content_credentials, sniff


def _pil(fmt: str, mode: str = "RGB", size: tuple[int, int] = (37, 23), **kw: object) -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, (200, 30, 90, 128)[:len(mode)]).save(buffer, fmt, **kw)
    return buffer.getvalue()


@pytest.mark.parametrize(("data", "fmt", "mime"), [
    (_pil("PNG"), "png", "image/png"),
    (_pil("JPEG"), "jpeg", "image/jpeg"),
    (_pil("JPEG", progressive=True), "jpeg", "image/jpeg"),
    (_pil("WEBP", lossless=False), "webp", "image/webp"),
    (_pil("WEBP", lossless=True), "webp", "image/webp"),
    (_pil("WEBP", mode="RGBA", lossless=False), "webp", "image/webp"),
])
def test_images_are_sized_by_their_header(data: bytes, fmt: str, mime: str) -> None:
    found = sniff(data)
    assert (found.format, found.mime_type, found.width, found.height) == (fmt, mime, 37, 23)


def test_audio_is_named_without_dimensions() -> None:
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt "
    assert sniff(wav).format == "wav" and sniff(wav).width is None
    assert sniff(b"ID3\x04\x00\x00\x00\x00\x00\x00").extension == "mp3"


@pytest.mark.parametrize("head", [
    b"\xff\xfb\x90\x00", b"\xff\xf3\x64\x00", b"\xff\xe3\x64\x00",  # MPEG-1/2/2.5 L3
    b"\xff\xe8\x90\x00", b"\xff\xf9\x90\x00", b"\xff\xe0\x00\x00",  # reserved ones
    b"ID3\x04\x00\x00\x00\x00\x00\x00", b"RIFF\x24\x00\x00\x00WAVEfmt ",
])
def test_audio_agrees_with_the_audio_sniffer(head: bytes) -> None:
    expected = audio.sniff(head)
    if expected is None:
        with pytest.raises(SniffError):
            sniff(head)
    else:
        found = sniff(head)
        assert (found.format, found.mime_type) == (expected, audio.MIME[expected])


@pytest.mark.parametrize("data", [b"", b"GIF89a....", b"%PDF-1.7", png.SIGNATURE + b"\x00",
                                  b"\xff\xd8\xff\xda\x00\x02", b"RIFF\x00\x00\x00\x00WEBPVP8Z"])
def test_unknown_or_broken_headers_are_refused(data: bytes) -> None:
    with pytest.raises(SniffError):
        sniff(data)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def test_c2pa_is_detected_in_each_carriage() -> None:
    plain_png = _pil("PNG")
    at = len(png.SIGNATURE) + 25
    assert content_credentials(plain_png) is None
    assert content_credentials(plain_png[:at] + _chunk(b"caBX", b"jumb") + plain_png[at:]) \
        == "c2pa"
    jpeg = _pil("JPEG")
    app11 = b"\xff\xeb" + struct.pack(">H", 2 + 12) + b"JP\x00\x00jumbc2pa"
    assert content_credentials(jpeg) is None
    assert content_credentials(jpeg[:2] + app11 + jpeg[2:]) == "c2pa"
    webp = _pil("WEBP")
    signed = webp + b"C2PA" + struct.pack("<I", 4) + b"jumb"
    assert content_credentials(webp) is None and content_credentials(signed) == "c2pa"
    frame = b"GEOB" + struct.pack(">I", 24) + b"\x00\x00\x00application/c2pa\x00\x00\x00c"
    id3 = b"ID3\x04\x00\x00" + bytes([0, 0, 0, len(frame)]) + frame
    assert content_credentials(id3 + b"\xff\xfb") == "c2pa"
    assert content_credentials(b"ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb") is None


def test_insert_text_adds_one_chunk_and_keeps_the_rest() -> None:
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    original = png.encode(pixels)
    stamped = png.insert_text(original, "nika", '{"tool":"x"}')
    assert png.read_texts(stamped) == {"nika": '{"tool":"x"}'}
    assert np.array_equal(png.decode(stamped), pixels)
    assert stamped.replace(_chunk(b"tEXt", b'nika\x00{"tool":"x"}'), b"") == original
    with pytest.raises(png.PngError):
        png.insert_text(b"GIF89a", "nika", "x")


@pytest.mark.parametrize("length", [12, 14, 0xFFFFFFFF])
def test_insert_text_refuses_an_ihdr_that_is_not_13_bytes(length: int) -> None:
    ihdr = struct.pack(">IIBBBBB", 5, 4, 8, 2, 0, 0, 0) + b"\x00"  # 14 bytes of body
    odd = (png.SIGNATURE + struct.pack(">I", length) + b"IHDR" + ihdr
           + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + _chunk(b"IEND", b""))
    with pytest.raises(png.PngError) as caught:
        png.insert_text(odd, "nika", "x")
    assert caught.value.kind == "corrupt" and f"declares {length} bytes" in caught.value.detail
