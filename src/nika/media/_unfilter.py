"""PNG scanline unfiltering (PNG spec §9): filtered rows back to pixels.

Rows filtered None, Sub or Up are one numpy operation each (Sub is a per-channel running sum
modulo 256). Average and Paeth read the pixel just reconstructed to the left: a short run of
such rows is reconstructed byte by byte over Python ints; a long run (at least `_WAVE` bytes
per column across the run) as a wavefront — pixel (x, y) needs only (x − 1, y), (x, y − 1)
and (x − 1, y − 1), so all pixels with the same x + y are reconstructed together, each by its
own row's filter: one numpy step per diagonal instead of a Python step per byte.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

_CHECK_EVERY = 64


_WAVE = 64


def _fast_row(line: npt.NDArray[np.uint8], kind: int, prior: npt.NDArray[np.uint8]
              ) -> npt.NDArray[np.uint8]:
    if kind == 0:
        return line
    if kind == 1:
        return np.cumsum(line, axis=0, dtype=np.uint8)
    out: npt.NDArray[np.uint8] = line + prior
    return out


def _slow_row(line: npt.NDArray[np.uint8], kind: int, prior: npt.NDArray[np.uint8]
              ) -> npt.NDArray[np.uint8]:
    bpp = line.shape[1]
    row, above = bytearray(line.tobytes()), prior.tobytes()
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        b = above[i]
        if kind == 3:
            row[i] = (row[i] + ((a + b) >> 1)) & 0xFF
            continue
        c = above[i - bpp] if i >= bpp else 0
        pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
        row[i] = (row[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 0xFF
    return np.frombuffer(bytes(row), np.uint8).reshape(line.shape)


_BAND = 256
"""Rows per band of the wavefront (its skewed buffers hold (width + band) × band pixels)."""


def _wavefront(filt: npt.NDArray[np.uint8], kinds: npt.NDArray[np.int16],
               prior: npt.NDArray[np.uint8], checkpoint: Callable[[], None]
               ) -> npt.NDArray[np.uint8]:
    """Band by band, rows laid out skewed — skew[t, r] holds pixel x = t − r of band row r,
    row 0 being the row above the band — so each diagonal and its three neighbours are
    contiguous slices."""
    height, width, bpp = filt.shape
    out = np.empty((height, width, bpp), np.uint8)
    for top in range(0, height, _BAND):
        rows = min(_BAND, height - top)
        span = width + rows
        done = np.zeros((span + 2, rows + 1, bpp), np.int16)  # t shifted by 2: t − 2 ≥ 0
        given = np.zeros((span, rows + 1, bpp), np.int16)
        done[2:width + 2, 0] = prior
        for r in range(1, rows + 1):
            given[r:r + width, r] = filt[top + r - 1]
        kind = np.concatenate(([0], kinds[top:top + rows]))[:, None]
        for t in range(1, span):
            lo, hi = max(1, t - width + 1), min(rows, t) + 1
            a = done[t + 1, lo:hi]
            b = done[t + 1, lo - 1:hi - 1]
            c = done[t, lo - 1:hi - 1]
            pa, pb, pc = np.abs(b - c), np.abs(a - c), np.abs(a + b - 2 * c)
            paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
            k = kind[lo:hi]
            pred = np.where(k == 1, a, np.where(k == 2, b, np.where(k == 3, (a + b) >> 1,
                                                                       np.where(k == 4, paeth, 0))))
            done[t + 2, lo:hi] = (given[t, lo:hi] + pred) & 0xFF
            if t % 256 == 0:
                checkpoint()
        for r in range(1, rows + 1):
            out[top + r - 1] = done[r + 2:r + 2 + width, r]
        prior = out[top + rows - 1]
    return out


def unfilter(raw: bytes | bytearray, height: int, width: int, bpp: int,
             checkpoint: Callable[[], None]) -> npt.NDArray[np.uint8]:
    """The (height, width, bpp) pixels of `height` filtered rows; ValueError on a bad
    filter type. `checkpoint` runs every few rows or diagonals (cancellation)."""
    rows = np.frombuffer(raw, np.uint8).reshape(height, width * bpp + 1)
    kinds = rows[:, 0]
    bad = np.flatnonzero(kinds > 4)
    if len(bad):
        raise ValueError(f"row {int(bad[0])} has filter type {int(kinds[bad[0]])} (PNG defines "
                         "0..=4); the file is corrupted — re-export it")
    filt = rows[:, 1:].reshape(height, width, bpp)
    out = np.empty((height, width, bpp), np.uint8)
    prior = np.zeros((width, bpp), np.uint8)
    slow = kinds >= 3
    y = 0
    while y < height:
        end = y + 1
        while end < height and slow[end] == slow[y]:
            end += 1
        if not slow[y]:
            for row in range(y, end):
                out[row] = prior = _fast_row(filt[row], int(kinds[row]), prior)
                if row % _CHECK_EVERY == 0:
                    checkpoint()
        elif (end - y) * bpp < _WAVE:
            for row in range(y, end):
                out[row] = prior = _slow_row(filt[row], int(kinds[row]), prior)
                checkpoint()
        else:
            out[y:end] = _wavefront(filt[y:end], kinds[y:end].astype(np.int16), prior,
                                    checkpoint)
            prior = out[end - 1]
        checkpoint()
        y = end
    return out
