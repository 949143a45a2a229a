from __future__ import annotations

import io
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from nika.media import png
from nika.media._deflate import zlib_stream

MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png(width: int, height: int, idat: bytes, colour: int = 2, depth: int = 8,
         interlace: int = 0) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    return (png.SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat)
            + _chunk(b"IEND", b""))


def _pillow(pixels: np.ndarray, **save: object) -> bytes:
    out = io.BytesIO()
    channels = pixels.shape[2]
    data = pixels[:, :, 0] if channels == 1 else pixels
    Image.fromarray(data, MODES[channels]).save(out, "PNG", **save)
    return out.getvalue()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from([1, 2, 3, 4]),
       st.integers(0, 2**32 - 1), st.integers(1, 256))
def test_encode_round_trips_through_pillow_and_our_decoder(w, h, channels, seed, levels):
    rng = np.random.RandomState(seed)
    pixels = (rng.randint(0, levels, (h, w, channels)) * (255 // max(1, levels - 1))
              ).astype(np.uint8)
    data = png.encode(pixels, [("nika", '{"a":1}')])
    assert np.array_equal(png.decode(data), pixels)
    back = np.array(Image.open(io.BytesIO(data)))
    assert np.array_equal(back.reshape(pixels.shape), pixels)
    assert png.read_texts(data) == {"nika": '{"a":1}'}


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("level", [0, 6, 9])
@pytest.mark.parametrize("size", [(33, 47), (300, 21)])  # 300 rows: past one wavefront band
def test_decodes_every_filter_pillow_writes(channels, level, size):
    y, x = np.mgrid[0:size[0], 0:size[1]]
    pixels = np.stack([(x * 5 + y * 3 + c * 40 + (x * y) // 7) % 256 for c in range(channels)],
                      axis=2)
    pixels = pixels.astype(np.uint8)
    data = _pillow(pixels, compress_level=level)
    assert np.array_equal(png.decode(data), pixels)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=3000), st.integers(1, 8), st.integers(1, 400))
def test_deflate_inflates_back_with_zlib(raw, pixel, row):
    assert zlib.decompress(zlib_stream(raw, pixel=pixel, row=row)) == raw


def test_deflate_compresses_repetition_and_never_balloons():
    flat = bytes(100_000)
    assert len(zlib_stream(flat, pixel=3, row=301)) < 1_500
    noise = np.random.RandomState(0).randint(0, 256, 200_000).astype(np.uint8).tobytes()
    assert len(zlib_stream(noise, pixel=3, row=301)) <= len(noise) + 5 * 4 + 11  # stored blocks


def test_encoding_is_pinned():
    """The writer's bytes are the contract: a change here is a format version bump."""
    y, x = np.mgrid[0:16, 0:16]
    pixels = np.stack([x * 16, y * 16, (x ^ y) * 16], axis=2).astype(np.uint8)
    import hashlib

    assert hashlib.sha256(png.encode(pixels, [("nika", "t")])).hexdigest() == (
        "c58bdcb7248179645d7ec915dd972aa13a43b0167e3b468bf3a22635519d8ff5"
    )


def test_header_claiming_100000_squared_is_refused_before_decompression():
    data = _png(100_000, 100_000, zlib.compress(b"\x00" * 10))
    with pytest.raises(png.PngError) as err:
        png.decode(data)
    assert err.value.kind == "budget" and "16384" in err.value.detail


def test_budget_is_judged_from_the_header():
    assert png.budget_problem(16_384, 4_096) is None
    assert png.budget_problem(16_385, 1) is not None
    assert png.budget_problem(16_384, 4_097) is not None  # 2^26 + 16384


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"GIF89a....", "format"),
        (_png(4, 4, b"", colour=3), "format"),
        (_png(4, 4, b"", depth=16), "format"),
        (_png(4, 4, b"", interlace=1), "format"),
        (_png(0, 4, b""), "corrupt"),
        (_png(2, 2, b"not zlib"), "corrupt"),
        (_png(2, 2, zlib.compress(b"\x00" * 6)), "corrupt"),  # too short
        (_png(2, 2, zlib.compress(b"\x00" * 7 + b"\x00" * 7 + b"\x00")), "corrupt"),  # too long
        (_png(1, 1, zlib.compress(b"\x07\x00\x00\x00")), "corrupt"),  # filter type 7
    ],
)
def test_refusals_name_their_kind(data, kind):
    with pytest.raises(png.PngError) as err:
        png.decode(data)
    assert err.value.kind == kind


def test_truncated_and_crc_corrupted_files_are_refused():
    good = png.encode(np.zeros((8, 8, 3), np.uint8))
    for cut in (len(good) - 1, len(good) - 13, 40, 20):
        with pytest.raises(png.PngError) as err:
            png.decode(good[:cut])
        assert err.value.kind == "corrupt"
    idat = good.index(b"IDAT")
    broken = bytearray(good)
    broken[idat + 6] ^= 0xFF
    with pytest.raises(png.PngError) as err:
        png.decode(bytes(broken))
    assert err.value.kind == "corrupt" and "CRC" in err.value.detail


_BOMB = r"""
import resource, struct, sys, zlib
from nika.media import png
def chunk(k, b):
    return struct.pack(">I", len(b)) + k + b + struct.pack(">I", zlib.crc32(k + b))
z = zlib.compressobj(1)
zeros = bytes(1 << 20)
body = b"".join(z.compress(zeros) for _ in range(1024)) + z.flush()  # 1 GiB inflated, ~1 MiB
def make(w, h):
    return (png.SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", body) + chunk(b"IEND", b""))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for w, h in ((100_000, 100_000), (16_384, 16_384), (256, 256)):
    try:
        png.decode(make(w, h))
    except png.PngError as e:
        print(e.kind)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)
"""


def test_a_decompression_bomb_is_refused_in_bounded_memory():
    out = subprocess.run([sys.executable, "-c", _BOMB], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert out[:3] == ["budget", "budget", "corrupt"]
    assert int(out[3]) < 64  # MiB over the baseline: the 1 GiB never inflates


@pytest.mark.parametrize("height", [9, 300])  # short runs byte by byte; long: the wavefront
def test_each_filter_type_unfilters_exactly(height):
    """Rows filtered by hand with each of the five types, and a mix of them."""
    rng = np.random.RandomState(5)
    pixels = rng.randint(0, 256, (height, 7, 3)).astype(np.int64)
    stride = 7 * 3

    def paeth(a, b, c):
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        return a if pa <= pb and pa <= pc else (b if pb <= pc else c)

    mixed = [0, 1, 2, 3, 4, 4, 3, 2, 1] * (height // 9) + [4] * (height % 9)
    for kinds in ([0] * height, [1] * height, [2] * height, [3] * height, [4] * height, mixed,
                  [3, 4] * (height // 2) + [4] * (height % 2)):
        flat = pixels.reshape(height, stride)
        rows = []
        for y, kind in enumerate(kinds):
            prior = flat[y - 1] if y else np.zeros(stride, np.int64)
            line = [kind]
            for i in range(stride):
                a = flat[y, i - 3] if i >= 3 else 0
                b, c = prior[i], (prior[i - 3] if i >= 3 else 0)
                pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
                line.append((flat[y, i] - pred) % 256)
            rows.append(bytes(line))
        data = _png(7, height, zlib.compress(b"".join(rows)))
        assert np.array_equal(png.decode(data), pixels.astype(np.uint8)), kinds[:9]
