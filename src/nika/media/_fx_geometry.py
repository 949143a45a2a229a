"""image_fx's geometric ops: resize, crop, pixelate. Integer arithmetic only.

resize (separable, one axis then the other, colour in linear light via `_oklab.LINEAR`,
alpha as is), per axis from n_in to n_out samples:
- nearest: sample ⌊(2i + 1) · n_in / (2 · n_out)⌋ (pixel centres);
- bilinear: position p = ⌊(2i + 1) · n_in · 128 / n_out⌋ − 128 in 1/256 pixel, clamped to
  [0, 256 · (n_in − 1)]; out = (a · (256 − f) + b · f + 128) >> 8 with a, b the samples at
  ⌊p/256⌋ and the next (clamped), f = p mod 256;
- box (area): the mean of samples ⌊i · n_in / n_out⌋ .. max(⌊(i+1) · n_in / n_out⌋, start + 1),
  rounded half up;
- auto: box on an axis that shrinks, bilinear on one that grows, nothing on one that stays.
A missing side keeps the aspect ratio: round(other_in · given / given_in), at least 1.

pixelate: blocks anchored at the top-left corner (the last ones in a row or column may be
smaller); each block is filled with its mean per channel, alpha included, rounded half up.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from nika.media._fx_common import FxError, Image, OpContext, Params, check_budget
from nika.media._oklab import to_linear, to_srgb

I32 = npt.NDArray[np.int32]


def _nearest(arr: I32, axis: int, n_out: int) -> I32:
    n_in = arr.shape[axis]
    idx = ((2 * np.arange(n_out, dtype=np.int64) + 1) * n_in) // (2 * n_out)
    out: I32 = np.take(arr, idx, axis=axis)
    return out


def _bilinear(arr: I32, axis: int, n_out: int) -> I32:
    n_in = arr.shape[axis]
    pos = ((2 * np.arange(n_out, dtype=np.int64) + 1) * n_in * 128) // n_out - 128
    pos = np.clip(pos, 0, 256 * (n_in - 1))
    lo = pos >> 8
    hi = np.minimum(lo + 1, n_in - 1)
    shape = [1] * arr.ndim
    shape[axis] = n_out
    frac = (pos & 255).astype(np.int32).reshape(shape)
    a, b = np.take(arr, lo, axis=axis), np.take(arr, hi, axis=axis)
    out: I32 = (a * (256 - frac) + b * frac + 128) >> 8
    return out


def box(arr: I32, axis: int, n_out: int) -> I32:
    n_in = arr.shape[axis]
    i = np.arange(n_out, dtype=np.int64)
    start = (i * n_in) // n_out
    end = np.maximum(((i + 1) * n_in) // n_out, start + 1)
    zero_shape = list(arr.shape)
    zero_shape[axis] = 1
    prefix = np.concatenate((np.zeros(zero_shape, np.int64),
                             np.cumsum(arr, axis=axis, dtype=np.int64)), axis=axis)
    shape = [1] * arr.ndim
    shape[axis] = n_out
    count = (end - start).reshape(shape)
    total = np.take(prefix, end, axis=axis) - np.take(prefix, start, axis=axis)
    out: I32 = ((total + count // 2) // count).astype(np.int32)
    return out


def _axis(arr: I32, axis: int, n_out: int, filt: str) -> I32:
    n_in = arr.shape[axis]
    if filt == "nearest":
        return _nearest(arr, axis, n_out)
    if filt == "bilinear" or (filt == "auto" and n_out > n_in):
        return _bilinear(arr, axis, n_out)
    if n_out == n_in:
        return arr
    return box(arr, axis, n_out)


def target_size(height: int, width: int, params: Params) -> tuple[int, int]:
    """The (width, height) a resize renders (a missing side keeps the aspect ratio)."""
    given_w, given_h = params.get("width"), params.get("height")
    if given_w is None:
        new_h = int(params["height"])
        return max(1, (width * new_h * 2 + height) // (2 * height)), new_h
    new_w = int(given_w)
    if given_h is None:
        return new_w, max(1, (height * new_w * 2 + width) // (2 * width))
    return new_w, int(given_h)


def resize(img: Image, params: Params, ctx: OpContext) -> Image:
    height, width = img.shape[:2]
    new_w, new_h = target_size(height, width, params)
    check_budget("resize", new_w, new_h)
    filt = str(params["filter"])
    if filt == "nearest":
        return np.ascontiguousarray(_nearest(_nearest(img, 1, new_w), 0, new_h))  # type: ignore[arg-type]
    lin = to_linear(img[..., :3]).astype(np.int32)
    lin = _axis(lin, 1, new_w, filt)
    ctx.checkpoint()
    lin = _axis(lin, 0, new_h, filt)
    out = [to_srgb(lin)]
    if img.shape[2] == 4:
        alpha = img[..., 3:].astype(np.int32)
        out.append(_axis(_axis(alpha, 1, new_w, filt), 0, new_h, filt).astype(np.uint8))
    return np.ascontiguousarray(np.concatenate(out, axis=2))


def crop(img: Image, params: Params, ctx: OpContext) -> Image:
    height, width = img.shape[:2]
    x, y, w, h = (int(params[k]) for k in ("x", "y", "width", "height"))
    if x + w > width or y + h > height:
        raise FxError("args", f"`crop` rect x={x} y={y} {w}×{h} does not fit inside the "
                      f"{width}×{height} image; keep x + width ≤ {width} and "
                      f"y + height ≤ {height}")
    return np.ascontiguousarray(img[y:y + h, x:x + w])


def pixelate(img: Image, params: Params, ctx: OpContext) -> Image:
    block = int(params["block"])
    height, width = img.shape[:2]
    rows = np.arange(0, height, block)
    cols = np.arange(0, width, block)
    sums = np.add.reduceat(np.add.reduceat(img.astype(np.int64), rows, axis=0), cols, axis=1)
    row_n = np.diff(np.append(rows, height))
    col_n = np.diff(np.append(cols, width))
    count = (row_n[:, None] * col_n[None, :])[:, :, None]
    means = ((sums + count // 2) // count).astype(np.uint8)
    return np.ascontiguousarray(np.repeat(np.repeat(means, row_n, axis=0), col_n, axis=1))
