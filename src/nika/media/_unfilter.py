"""PNG scanline unfiltering (PNG spec §9): filtered rows back to pixels.

None, Sub and Up are whole-row numpy operations (Sub is a per-channel running sum modulo
256); Average and Paeth depend on the byte just reconstructed, so they run byte by byte over
Python ints — the slow path, taken only for rows an encoder chose those filters for.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

_ROWS_PER_CHECK = 64


def _average(row: bytearray, prior: bytes, bpp: int) -> None:
    for i in range(len(row)):
        left = row[i - bpp] if i >= bpp else 0
        row[i] = (row[i] + ((left + prior[i]) >> 1)) & 0xFF


def _paeth(row: bytearray, prior: bytes, bpp: int) -> None:
    for i in range(len(row)):
        if i >= bpp:
            a, c = row[i - bpp], prior[i - bpp]
        else:
            a = c = 0
        b = prior[i]
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        row[i] = (row[i] + pred) & 0xFF


def unfilter(raw: bytes | bytearray, height: int, width: int, bpp: int,
             checkpoint: Callable[[], None]) -> npt.NDArray[np.uint8]:
    """The (height, width, bpp) pixels of `height` filtered rows; ValueError on a bad
    filter type. `checkpoint` runs every few rows (cancellation)."""
    stride = width * bpp
    rows = np.frombuffer(raw, np.uint8).reshape(height, stride + 1)
    out = np.empty((height, stride), np.uint8)
    prior = np.zeros(stride, np.uint8)
    for y in range(height):
        kind = int(rows[y, 0])
        line = rows[y, 1:]
        if kind == 0:
            out[y] = line
        elif kind == 1:
            out[y] = np.cumsum(line.reshape(width, bpp), axis=0, dtype=np.uint8).reshape(-1)
        elif kind == 2:
            out[y] = line + prior
        elif kind in (3, 4):
            row = bytearray(line.tobytes())
            (_average if kind == 3 else _paeth)(row, prior.tobytes(), bpp)
            out[y] = np.frombuffer(bytes(row), np.uint8)
        else:
            raise ValueError(f"row {y} has filter type {kind} (PNG defines 0..=4); the file "
                             "is corrupted — re-export it")
        prior = out[y]
        if y % _ROWS_PER_CHECK == 0:
            checkpoint()
    return out.reshape(height, width, bpp)
