"""The ascii op: the image as a grid of characters, `cols` wide.

The grid is cols × rows, rows = max(1, round(height · cols / (2 · width))) (a character cell
is twice as tall as wide). Each cell's colour is the box mean of its pixels (`_fx_geometry`'s
box rule on the sRGB values) and its brightness the luma of that colour; the character is
RAMP[Y · 10 // 256] (`_font.RAMP`, space for the darkest — light text on a dark ground).
Emits:
- text: the rows, each ended by "\\n";
- ansi: the same, each character preceded by a 24-bit colour escape ESC[38;2;r;g;bm when its
  colour differs from the previous one on the row, each row ended by ESC[0m "\\n";
- png: each character drawn with the `_font` glyphs in its cell's colour on black, 6×12
  pixels per cell (RGB).
The grid is held to the pixel budget as a PNG (16384 a side, 2^26 pixels) for every emit.
"""

from __future__ import annotations

import numpy as np

from nika.media import _font
from nika.media._fx_common import FxError, Image, OpContext, Params, check_budget, luma
from nika.media._fx_geometry import box


def grid(height: int, width: int, cols: int) -> tuple[int, int]:
    """(cols, rows) of the character grid, held to the budget."""
    rows = max(1, (height * cols + width) // (2 * width))
    try:
        check_budget("ascii", cols * _font.CELL_W, rows * _font.CELL_H)
    except FxError as err:
        raise FxError("budget", f"{err.detail} ({cols}×{rows} characters); lower `cols:`"
                      ) from None
    return cols, rows


def _cells(img: Image, cols: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
    rgb = img[..., :3].astype(np.int32)
    colour = box(box(rgb, 1, cols), 0, rows).astype(np.uint8)
    index = (luma(colour) * len(_font.RAMP)) // 256
    return colour, index


def render_text(img: Image, params: Params, ctx: OpContext) -> bytes:
    """The text or ansi artifact."""
    cols, rows = grid(img.shape[0], img.shape[1], int(params["cols"]))
    colour, index = _cells(img, cols, rows)
    ansi = params["emit"] == "ansi"
    lines = []
    for y in range(rows):
        chars = [_font.RAMP[i] for i in index[y].tolist()]
        if ansi:
            parts, last = [], None
            for ch, rgb in zip(chars, colour[y].tolist(), strict=True):
                if rgb != last:
                    parts.append(f"\x1b[38;2;{rgb[0]};{rgb[1]};{rgb[2]}m")
                    last = rgb
                parts.append(ch)
            lines.append("".join(parts) + "\x1b[0m\n")
        else:
            lines.append("".join(chars) + "\n")
        if y % 64 == 0:
            ctx.checkpoint()
    return "".join(lines).encode("ascii")


def render_png(img: Image, params: Params, ctx: OpContext) -> Image:
    """The png emit's pixels (RGB)."""
    cols, rows = grid(img.shape[0], img.shape[1], int(params["cols"]))
    colour, index = _cells(img, cols, rows)
    ink = _font.cells()[index]  # rows, cols, CELL_H, CELL_W
    ink = ink.transpose(0, 2, 1, 3).reshape(rows * _font.CELL_H, cols * _font.CELL_W)
    big = np.repeat(np.repeat(colour, _font.CELL_H, axis=0), _font.CELL_W, axis=1)
    return np.where(ink[..., None], big, 0).astype(np.uint8)
