"""image_fx's per-pixel tone and signal ops, integer arithmetic on the sRGB values (alpha is
kept as it is, except where glitch moves whole pixels). `>>` floors; results clamp to 0..=255.

- levels: v' = ((v − 128) · (128 + contrast) + 64 >> 7) + 128 + brightness.
- grayscale: every channel becomes the luma (`_fx_common.luma`).
- duotone: out = dark + ⌊((light − dark) · Y + 127) / 255⌋ per channel, Y the luma.
- grain (seeded, stream 0): draw i = y · width + x; its low two bytes u, v give
  t = u + v − 255 (a triangle on −255..=255) and the offset (t · intensity) >> 8, added to
  all three channels (monochrome grain).
- vignette: with doubled pixel-centre coordinates dx = 2x + 1 − w, dy = 2y + 1 − h,
  r² = dx² + dy², R² = (w − 1)² + (h − 1)² (at least 1):
  v' = v · (256 R² − strength · r²) // (256 R²) — the corners darken by strength/256.
- chromatic_aberration: red is read `shift` pixels to the right, blue `shift` to the left
  (clamped at the edges), green stays.
- scanlines: every row y with y mod period = period − 1 becomes (v · (256 − strength)) >> 8.
- glitch (seeded): line_shift — stream 0, per row y draws 2y and 2y + 1: the row is shifted
  (wrapping) when the first is 0 of 4, by (second of 2·line_shift + 1) − line_shift pixels;
  channel_shift — stream 1, draws 0 and 1: red and blue rolled (wrapping) by
  (draw of 2·channel_shift + 1) − channel_shift pixels; blocks — stream 2, draws 6k … 6k + 4
  for block k: width 1 + (of ⌈w/4⌉), height 1 + (of ⌈h/8⌉), x, y inside the image, and
  a horizontal move of (of 2m + 1) − m, m = ⌈w/8⌉, clamped inside; the block's pixels
  (alpha too) are copied there. Applied in that order.
"""

from __future__ import annotations

import numpy as np

from nika.media._fx_common import Image, OpContext, Params, luma
from nika.media._prng import Stream


def _store(img: Image, rgb: np.ndarray) -> Image:
    out = img.copy()
    out[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)
    return out


def levels(img: Image, params: Params, ctx: OpContext) -> Image:
    v = img[..., :3].astype(np.int32)
    contrast, brightness = int(params["contrast"]), int(params["brightness"])
    return _store(img, (((v - 128) * (128 + contrast) + 64) >> 7) + 128 + brightness)


def grayscale(img: Image, params: Params, ctx: OpContext) -> Image:
    return _store(img, np.repeat(luma(img)[..., None], 3, axis=2))


def duotone(img: Image, params: Params, ctx: OpContext) -> Image:
    dark = np.array(params["dark"], np.int32)
    light = np.array(params["light"], np.int32)
    y = luma(img)[..., None]
    return _store(img, dark + ((light - dark) * y + 127) // 255)


def grain(img: Image, params: Params, ctx: OpContext) -> Image:
    height, width = img.shape[:2]
    intensity = int(params["intensity"])
    stream = Stream(ctx.seed, ctx.index, 0)
    out = img.copy()
    step = max(1, (1 << 20) // width)
    for y0 in range(0, height, step):
        y1 = min(height, y0 + step)
        words = stream.words(y0 * width, (y1 - y0) * width)
        t = ((words & np.uint64(255)) + ((words >> np.uint64(8)) & np.uint64(255))).astype(
            np.int32) - 255
        offset = ((t * intensity) >> 8).reshape(y1 - y0, width, 1)
        out[y0:y1, :, :3] = np.clip(img[y0:y1, :, :3].astype(np.int32) + offset, 0, 255)
        ctx.checkpoint()
    return out


def vignette(img: Image, params: Params, ctx: OpContext) -> Image:
    height, width = img.shape[:2]
    strength = int(params["strength"])
    dx = 2 * np.arange(width, dtype=np.int64) + 1 - width
    dy = 2 * np.arange(height, dtype=np.int64) + 1 - height
    full = max(1, (width - 1) ** 2 + (height - 1) ** 2) * 256
    out = img.copy()
    for y in range(height):
        factor = full - strength * (dx * dx + dy[y] * dy[y])
        out[y, :, :3] = (img[y, :, :3].astype(np.int64) * factor[:, None]) // full
        if y % 256 == 0:
            ctx.checkpoint()
    return out


def chromatic_aberration(img: Image, params: Params, ctx: OpContext) -> Image:
    width = img.shape[1]
    shift = int(params["shift"])
    x = np.arange(width)
    out = img.copy()
    out[:, :, 0] = img[:, np.minimum(x + shift, width - 1), 0]
    out[:, :, 2] = img[:, np.maximum(x - shift, 0), 2]
    return out


def scanlines(img: Image, params: Params, ctx: OpContext) -> Image:
    period, strength = int(params["period"]), int(params["strength"])
    out = img.copy()
    rows = out[period - 1::period, :, :3].astype(np.int32)
    out[period - 1::period, :, :3] = (rows * (256 - strength)) >> 8
    return out


def glitch(img: Image, params: Params, ctx: OpContext) -> Image:
    height, width = img.shape[:2]
    out = img.copy()
    line, channel, blocks = (int(params[k]) for k in ("line_shift", "channel_shift", "blocks"))
    if line:
        stream = Stream(ctx.seed, ctx.index, 0)
        pick = stream.below(0, 2 * height, 4)[0::2]
        amount = stream.below(0, 2 * height, 2 * line + 1)[1::2] - line
        for y in np.flatnonzero(pick == 0).tolist():
            out[y] = np.roll(out[y], int(amount[y]), axis=0)
    if channel:
        stream = Stream(ctx.seed, ctx.index, 1)
        red, blue = (int(v) - channel for v in stream.below(0, 2, 2 * channel + 1))
        out[:, :, 0] = np.roll(out[:, :, 0], red, axis=1)
        out[:, :, 2] = np.roll(out[:, :, 2], blue, axis=1)
    if blocks:
        stream = Stream(ctx.seed, ctx.index, 2)
        move = -(-width // 8)
        for k in range(blocks):
            def draw(n: int, bound: int, k: int = k) -> int:
                return int(stream.below(6 * k + n, 1, bound)[0])

            bw = 1 + draw(0, -(-width // 4))
            bh = 1 + draw(1, -(-height // 8))
            bw, bh = min(bw, width), min(bh, height)
            x0, y0 = draw(2, width - bw + 1), draw(3, height - bh + 1)
            tx = min(max(x0 + draw(4, 2 * move + 1) - move, 0), width - bw)
            out[y0:y0 + bh, tx:tx + bw] = out[y0:y0 + bh, x0:x0 + bw].copy()
        ctx.checkpoint()
    return out
