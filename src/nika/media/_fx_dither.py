"""image_fx's palette ops: palette_map, dither, halftone. Integer arithmetic only; nearest
colour in fixed-point Oklab (`_oklab`).

palette_map: every pixel becomes its nearest palette colour.

dither, ordered modes: a threshold t in 0..N−1 per pixel, offset
o = ⌊(2t + 1) · s / (2N)⌋ − ⌊s/2⌋ with spread s = ⌊255 / (k − 1)⌋ for a k-colour palette,
added to each channel (clamped), then the nearest colour.
- bayerN (N = n², n = 2, 4, 8): the recursive Bayer matrix B₁ = [0], B₂ₙ = [[4B, 4B + 2],
  [4B + 3, 4B + 1]], tiled from the top-left corner.
- blue_noise (N = 256): a 16×16 rank matrix, tiled, built at first use by Ulichney's
  void-and-cluster on the torus with the integer kernel 2²⁴ · 81 // (9 + 2d²)² (d² the
  toroidal squared distance; a cell's energy is the kernel summed over the points): the 26
  cells with the least `_prng` words of Stream(0, 0, 0xB1) start as points; relax by moving
  the tightest cluster (most energy among points) to the largest void (least energy among
  the rest) until a move would return to where it came from; rank the start points from
  tightest (highest rank) down, then fill the voids one by one (ranks 26..255). Ties go to
  the first cell in row order.
- ign (N = 256): Jimenez's interleaved gradient noise in 32-bit fixed point:
  f = (288237660 x + 25070368 y) mod 2³², t = (((f · 3472289) >> 16) mod 2³²) >> 24.

dither, error-diffusion modes (left to right, top to bottom, no serpentine): the pixel plus
its carried error is clamped to 0..=255, quantized to the nearest palette colour of its
6-bit-per-channel cell (a 2¹⁸-entry table of nearest colours at the cells' values
(c << 2) | (c >> 4), so the per-pixel lookup is one index), and its error e (clamped value
minus colour) is carried to each neighbour as ⌊(2 · e · w + d) / (2d)⌋:
- floyd_steinberg (d = 16): right 7; below-left 3, below 5, below-right 1;
- atkinson (d = 8, 6/8 of the error carried): right 1, right+2 1; below-left 1, below 1,
  below-right 1; two below 1;
- jjn (Jarvis–Judice–Ninke, d = 48): right 7, right+2 5; next row 3 5 7 5 3; the row
  after 1 3 5 3 1.

halftone: a clustered-dot screen rotated by `angle` (cos, sin · 4096: 0° (4096, 0),
15° (3956, 1060), 45° (2896, 2896), 75° (1060, 3956)). With u = c·(2x+1) + s·(2y+1) and
v = c·(2y+1) − s·(2x+1) (units of 1/8192 pixel), the offsets from the cell centre are
(u mod 8192·cell) − 4096·cell and the same for v; the pixel is black when
255 · (du² + dv²) < (255 − Y) · 2 · (4096 · cell)², else white (Y the luma).
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np
import numpy.typing as npt

from nika.media._fx_common import Image, OpContext, Params, luma
from nika.media._oklab import nearest, palette_colours
from nika.media._prng import Stream

I64 = npt.NDArray[np.int64]

_KERNELS: dict[str, tuple[int, tuple[tuple[int, int, int], ...]]] = {
    "floyd_steinberg": (16, ((1, 0, 7), (-1, 1, 3), (0, 1, 5), (1, 1, 1))),
    "atkinson": (8, ((1, 0, 1), (2, 0, 1), (-1, 1, 1), (0, 1, 1), (1, 1, 1), (0, 2, 1))),
    "jjn": (48, ((1, 0, 7), (2, 0, 5), (-2, 1, 3), (-1, 1, 5), (0, 1, 7), (1, 1, 5), (2, 1, 3),
                 (-2, 2, 1), (-1, 2, 3), (0, 2, 5), (1, 2, 3), (2, 2, 1))),
}
_ANGLES = {0: (4096, 0), 15: (3956, 1060), 45: (2896, 2896), 75: (1060, 3956)}


def bayer(n: int) -> I64:
    """The n×n Bayer matrix (n a power of two)."""
    m = np.zeros((1, 1), np.int64)
    while m.shape[0] < n:
        m = np.block([[4 * m, 4 * m + 2], [4 * m + 3, 4 * m + 1]])
    return m


def _energy_of(kernel: I64, cell: int) -> I64:
    cy, cx = divmod(cell, 16)
    rolled: I64 = np.roll(kernel, (cy, cx), axis=(0, 1)).reshape(-1)
    return rolled


@cache
def blue_noise() -> I64:
    """The 16×16 blue-noise rank matrix (void-and-cluster; see the module doc)."""
    d = np.minimum(np.arange(16), 16 - np.arange(16))
    d2 = d[:, None] ** 2 + d[None, :] ** 2
    kernel = ((1 << 24) * 81) // (9 + 2 * d2) ** 2
    top = np.iinfo(np.int64).max
    ones = np.zeros(256, np.bool_)
    ones[np.argsort(Stream(0, 0, 0xB1).words(0, 256), kind="stable")[:26]] = True
    energy = sum((_energy_of(kernel, int(c)) for c in np.flatnonzero(ones)),
                 np.zeros(256, np.int64))
    for _ in range(256):  # relax: move the tightest cluster into the largest void
        tight = int(np.argmax(np.where(ones, energy, -1)))
        ones[tight] = False
        energy -= _energy_of(kernel, tight)
        void = int(np.argmin(np.where(ones, top, energy)))
        ones[void] = True
        energy += _energy_of(kernel, void)
        if void == tight:
            break
    rank = np.zeros(256, np.int64)
    start, start_energy = ones.copy(), energy.copy()
    for r in range(int(ones.sum()) - 1, -1, -1):  # the initial points, tightest last
        tight = int(np.argmax(np.where(ones, energy, -1)))
        ones[tight] = False
        energy -= _energy_of(kernel, tight)
        rank[tight] = r
    ones, energy = start, start_energy
    for r in range(int(ones.sum()), 256):  # the rest, each into the largest void
        void = int(np.argmin(np.where(ones, top, energy)))
        ones[void] = True
        energy += _energy_of(kernel, void)
        rank[void] = r
    return rank.reshape(16, 16)


def _thresholds(mode: str, height: int, width: int) -> tuple[I64, int]:
    if mode.startswith("bayer"):
        m = bayer(int(mode[5:]))
    elif mode == "blue_noise":
        m = blue_noise()
    else:
        x = np.arange(width, dtype=np.uint64)[None, :]
        y = np.arange(height, dtype=np.uint64)[:, None]
        f = (x * np.uint64(288237660) + y * np.uint64(25070368)) & np.uint64(0xFFFFFFFF)
        t = ((f * np.uint64(3472289)) >> np.uint64(16)) & np.uint64(0xFFFFFFFF)
        return (t >> np.uint64(24)).astype(np.int64), 256
    n = m.shape[0]
    reps = (-(-height // n), -(-width // n))
    return np.tile(m, reps)[:height, :width], n * n


def _mapped(img: Image, rgb: npt.NDArray[np.integer], pal: npt.NDArray[np.uint8]) -> Image:
    out = img.copy()
    out[..., :3] = pal[nearest(rgb, pal)]
    return out


def palette_map(img: Image, params: Params, ctx: OpContext) -> Image:
    pal = palette_colours(params["palette"])
    return _mapped(img, img[..., :3], pal)


def dither(img: Image, params: Params, ctx: OpContext) -> Image:
    pal = palette_colours(params["palette"])
    mode = str(params["mode"])
    if mode in _KERNELS:
        return _diffused(img, pal, mode, ctx)
    height, width = img.shape[:2]
    t, levels = _thresholds(mode, height, width)
    spread = 255 // (len(pal) - 1)
    offset = ((2 * t + 1) * spread) // (2 * levels) - spread // 2
    rgb = np.clip(img[..., :3].astype(np.int64) + offset[..., None], 0, 255)
    return _mapped(img, rgb, pal)


@lru_cache(maxsize=8)  # a few palettes per run; each table is 2 MiB
def _six_bit_table(pal_bytes: bytes) -> npt.NDArray[np.intp]:
    pal = np.frombuffer(pal_bytes, np.uint8).reshape(-1, 3)
    c = np.arange(64, dtype=np.int64)
    c = (c << 2) | (c >> 4)
    grid = np.stack(np.meshgrid(c, c, c, indexing="ij"), axis=-1)
    table = nearest(grid, pal).reshape(-1)
    table.flags.writeable = False
    return table


_BAND = 256
"""Rows per band of the error-diffusion wavefront."""


def _diffused(img: Image, pal: npt.NDArray[np.uint8], mode: str, ctx: OpContext) -> Image:
    """Error diffusion, pixel for pixel the sequential scan's arithmetic, computed as a
    wavefront: pixel (x, y) runs at step x + 3y, when every pixel that feeds it (left on its
    row, or up to two columns right on the rows above) has run — so each step is one numpy
    operation over a diagonal of pixels. Integer sums do not depend on their order, so the
    bytes are the scan's. Bands of `_BAND` rows bound the working memory."""
    div, taps = _KERNELS[mode]
    height, width = img.shape[:2]
    table = _six_bit_table(pal.tobytes())
    colours = pal.astype(np.int64)
    pad, depth = 2, 1 + max(dy for _, dy, _ in taps)
    twice = 2 * div
    index = np.empty((height, width), np.intp)
    carried = np.zeros((depth - 1, width + 2 * pad, 3), np.int64)  # into the next band
    stride = width + 2 * pad
    offsets = [(dy * stride + dx, w) for dx, dy, w in taps]
    weights = sorted({w for _, _, w in taps})
    for top in range(0, height, _BAND):
        rows = min(_BAND, height - top)
        err = np.zeros(((rows + depth - 1) * stride, 3), np.int64)  # flat: row · stride + x
        err[:(depth - 1) * stride] += carried.reshape(-1, 3)
        src = img[top:top + rows, :, :3].astype(np.int64).reshape(-1, 3)
        for step in range(width + 3 * (rows - 1)):
            y_lo = max(0, -(-(step - width + 1) // 3))
            y_hi = min(rows - 1, step // 3)
            ys = np.arange(y_lo, y_hi + 1)
            xs = step - 3 * ys
            at = ys * stride + xs + pad
            value = np.clip(src[ys * width + xs] + err[at], 0, 255)
            key = ((value[:, 0] >> 2) << 12) | ((value[:, 1] >> 2) << 6) | (value[:, 2] >> 2)
            picked = table[key]
            index[top + ys, xs] = picked
            e = 2 * (value - colours[picked])
            share = {w: (e * w + div) // twice for w in weights}
            for offset, w in offsets:
                err[at + offset] += share[w]
            if step % 256 == 0:
                ctx.checkpoint()
        carried = err[rows * stride:(rows + depth - 1) * stride].reshape(depth - 1, stride, 3)
    out = img.copy()
    out[..., :3] = pal[index]
    return out


def halftone(img: Image, params: Params, ctx: OpContext) -> Image:
    height, width = img.shape[:2]
    cell = int(params["cell"])
    cos, sin = _ANGLES[int(params["angle"])]
    period = 8192 * cell
    x2 = 2 * np.arange(width, dtype=np.int64)[None, :] + 1
    y2 = 2 * np.arange(height, dtype=np.int64)[:, None] + 1
    du = (cos * x2 + sin * y2) % period - period // 2
    dv = (cos * y2 - sin * x2) % period - period // 2
    ink = 255 - luma(img).astype(np.int64)
    radius = 2 * (4096 * cell) ** 2
    black = 255 * (du * du + dv * dv) < ink * radius
    out = img.copy()
    out[..., :3] = np.where(black, 0, 255).astype(np.uint8)[..., None]
    return out
