"""Colour in fixed point: sRGB ↔ linear light, Oklab, the palettes, nearest colour.

sRGB → linear: `LINEAR`, the IEC 61966-2-1 transfer function of each 8-bit value as a 16-bit
integer (round(65535 · linear)), fixed data here so no float transcendental ever runs.
Linear → sRGB: the byte whose `LINEAR` value is nearest (ties to the lower byte), by a binary
search over the midpoints — exact inverse on `LINEAR`'s own values.

Oklab (Björn Ottosson, 2020), fixed point, integers only (`oklab`):
1. lin = LINEAR[r], LINEAR[g], LINEAR[b]                                    (0..=65535)
2. lms = (M1 · lin + 2048) >> 12, M1 = Ottosson's M1 · 4096 rounded (each row sums to 4096,
   so white stays 65535)                                                     (0..=65535)
3. lms' = CBRT[lms], CBRT[x] = ⌊∛(x · 65535²)⌋ — the cube root in 16-bit fixed point, found
   by an integer bisection (exact floor)                                      (0..=65535)
4. Lab = (M2 · lms' + 2048) >> 12 (floor), M2 = Ottosson's M2 · 4096 rounded.
Nearest colour is the least squared Euclidean distance between these integer Lab triples
(int64); a tie goes to the palette's earlier colour.
"""

from __future__ import annotations

from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

LINEAR: Final = np.array([
    0, 20, 40, 60, 80, 99, 119, 139, 159, 179, 199, 219, 241,
    264, 288, 313, 340, 367, 396, 427, 458, 491, 526, 562, 599, 637,
    677, 718, 761, 805, 851, 898, 947, 997, 1048, 1101, 1156, 1212, 1270,
    1330, 1391, 1453, 1517, 1583, 1651, 1720, 1790, 1863, 1937, 2013, 2090, 2170,
    2250, 2333, 2418, 2504, 2592, 2681, 2773, 2866, 2961, 3058, 3157, 3258, 3360,
    3464, 3570, 3678, 3788, 3900, 4014, 4129, 4247, 4366, 4488, 4611, 4736, 4864,
    4993, 5124, 5257, 5392, 5530, 5669, 5810, 5953, 6099, 6246, 6395, 6547, 6700,
    6856, 7014, 7174, 7335, 7500, 7666, 7834, 8004, 8177, 8352, 8528, 8708, 8889,
    9072, 9258, 9445, 9635, 9828, 10022, 10219, 10417, 10619, 10822, 11028, 11235, 11446,
    11658, 11873, 12090, 12309, 12530, 12754, 12980, 13209, 13440, 13673, 13909, 14146, 14387,
    14629, 14874, 15122, 15371, 15623, 15878, 16135, 16394, 16656, 16920, 17187, 17456, 17727,
    18001, 18277, 18556, 18837, 19121, 19407, 19696, 19987, 20281, 20577, 20876, 21177, 21481,
    21787, 22096, 22407, 22721, 23038, 23357, 23678, 24002, 24329, 24658, 24990, 25325, 25662,
    26001, 26344, 26688, 27036, 27386, 27739, 28094, 28452, 28813, 29176, 29542, 29911, 30282,
    30656, 31033, 31412, 31794, 32179, 32567, 32957, 33350, 33745, 34143, 34544, 34948, 35355,
    35764, 36176, 36591, 37008, 37429, 37852, 38278, 38706, 39138, 39572, 40009, 40449, 40891,
    41337, 41785, 42236, 42690, 43147, 43606, 44069, 44534, 45002, 45473, 45947, 46423, 46903,
    47385, 47871, 48359, 48850, 49344, 49841, 50341, 50844, 51349, 51858, 52369, 52884, 53401,
    53921, 54445, 54971, 55500, 56032, 56567, 57105, 57646, 58190, 58737, 59287, 59840, 60396,
    60955, 61517, 62082, 62650, 63221, 63795, 64372, 64952, 65535,
], np.int64)
"""round(65535 · sRGB⁻¹(v / 255)) for v in 0..=255."""

_M1: Final = np.array([[1688, 2197, 211], [868, 2788, 440], [362, 1154, 2580]], np.int64)
_M2: Final = np.array([[862, 3251, -17], [8102, -9948, 1846], [106, 3206, -3312]], np.int64)

PRESETS: Final[dict[str, tuple[tuple[int, int, int], ...]]] = {
    "bw": ((0, 0, 0), (255, 255, 255)),
    "gray4": ((0, 0, 0), (85, 85, 85), (170, 170, 170), (255, 255, 255)),
    # the original Game Boy's four greens, darkest first
    "gameboy": ((15, 56, 15), (48, 98, 48), (139, 172, 15), (155, 188, 15)),
    # CGA palette 1, high intensity: black, cyan, magenta, white
    "cga": ((0, 0, 0), (85, 255, 255), (255, 85, 255), (255, 255, 255)),
    # Okabe & Ito's colour-blind-safe eight
    "okabe_ito": ((0, 0, 0), (230, 159, 0), (86, 180, 233), (0, 158, 115), (240, 228, 66),
                  (0, 114, 178), (213, 94, 0), (204, 121, 167)),
}

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


def palette_colours(palette: str | list[list[int]]) -> U8:
    """A palette (preset name or `[r, g, b]` list) as a (k, 3) uint8 array."""
    colours = PRESETS[palette] if isinstance(palette, str) else palette
    return np.array(colours, np.uint8).reshape(-1, 3)


@cache
def _cbrt() -> I64:
    target = np.arange(65536, dtype=np.int64) * (65535 * 65535)
    root = np.zeros(65536, np.int64)
    for bit in range(16, -1, -1):  # ⌊∛target⌋ < 2^17, one bit at a time
        trial = root | (1 << bit)
        root = np.where(trial * trial * trial <= target, trial, root)
    return np.minimum(root, 65535)


def to_linear(values: npt.NDArray[np.integer]) -> I64:
    """Linear light (0..=65535) of 8-bit sRGB values."""
    out: I64 = LINEAR[values.astype(np.intp)]
    return out


@cache
def _srgb_table() -> U8:
    midpoints = (LINEAR[:-1] + LINEAR[1:] + 1) // 2
    table: U8 = np.searchsorted(midpoints, np.arange(65536), side="right").astype(np.uint8)
    return table


def to_srgb(linear: npt.NDArray[np.integer]) -> U8:
    """The 8-bit sRGB value nearest each linear (0..=65535) value (a 65536-entry table of the
    binary search over `LINEAR`'s midpoints)."""
    out: U8 = _srgb_table()[linear]
    return out


I32 = npt.NDArray[np.int32]


def _mix(matrix: I64, x: I32, y: I32, z: I32) -> list[I32]:
    """Each row of an integer 3×3 matrix applied to the columns x, y, z (0..=65535), then
    >> 12 with rounding — elementwise in int32 (numpy has no fast integer matrix product;
    the largest sum, (8102 + 9948 + 1846) · 65535 + 2048, stays under 2^31)."""
    return [(int(r[0]) * x + int(r[1]) * y + int(r[2]) * z + 2048) >> 12 for r in matrix]


@cache
def _tables32() -> tuple[I32, I32]:
    return LINEAR.astype(np.int32), _cbrt().astype(np.int32)


def oklab(rgb: npt.NDArray[np.integer]) -> I64:
    """Fixed-point Oklab (…, 3) of 8-bit sRGB (…, 3) (see the module doc)."""
    linear, cbrt = _tables32()
    lin = linear[rgb.astype(np.intp)]
    lms = [np.clip(c, 0, 65535) for c in _mix(_M1, lin[..., 0], lin[..., 1], lin[..., 2])]
    lab: I64 = np.stack(_mix(_M2, cbrt[lms[0]], cbrt[lms[1]], cbrt[lms[2]]),
                        axis=-1).astype(np.int64)
    return lab


def nearest(rgb: npt.NDArray[np.integer], palette: U8) -> npt.NDArray[np.intp]:
    """The index of the palette colour nearest each (…, 3) colour in Oklab. Distinct colours
    are judged once each (an image holds far fewer than it has pixels): the argmin of
    |t|² − 2·lab·t over the palette colours t, the same order as the squared distance."""
    shape = rgb.shape[:-1]
    flat = rgb.reshape(-1, 3).astype(np.int64)
    keys = (flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]
    seen = np.zeros(1 << 24, np.bool_)
    seen[keys] = True
    unique = np.flatnonzero(seen)
    colours = np.stack([(unique >> 16) & 255, (unique >> 8) & 255, unique & 255], axis=1)
    lab = oklab(colours)
    target = oklab(palette)
    best = np.zeros(len(unique), np.intp)
    least = np.full(len(unique), np.iinfo(np.int64).max, np.int64)
    for k, (tl, ta, tb) in enumerate(target.tolist()):
        score = (tl * tl + ta * ta + tb * tb) - 2 * (lab[:, 0] * tl + lab[:, 1] * ta
                                                      + lab[:, 2] * tb)
        better = score < least  # strictly: a tie keeps the earlier colour
        least = np.where(better, score, least)
        best = np.where(better, k, best)
    table = np.zeros(1 << 24, np.uint8 if len(palette) <= 256 else np.intp)
    table[unique] = best
    found: npt.NDArray[np.intp] = table[keys].astype(np.intp).reshape(shape)
    return found
