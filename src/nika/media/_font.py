"""The 5×7 bitmap font of the ascii op's `png` emit: our own glyphs for its ten-character
ramp, drawn here as data ('#' is ink). Each glyph sits in a 6×12 cell (one column of gap on
the right, two rows above, three below), so a cell is twice as tall as it is wide — the
aspect the ascii grid assumes.
"""

from __future__ import annotations

from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

RAMP: Final = " .:-=+*#%@"
"""The characters from least to most ink (a cell's brightness picks one)."""
CELL_W: Final = 6
CELL_H: Final = 12
_TOP: Final = 2

_GLYPHS: Final[dict[str, tuple[str, ...]]] = {
    " ": (".....", ".....", ".....", ".....", ".....", ".....", "....."),
    ".": (".....", ".....", ".....", ".....", ".....", ".##..", ".##.."),
    ":": (".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."),
    "-": (".....", ".....", ".....", "#####", ".....", ".....", "....."),
    "=": (".....", ".....", "#####", ".....", "#####", ".....", "....."),
    "+": (".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."),
    "*": (".....", "#.#.#", ".###.", "#####", ".###.", "#.#.#", "....."),
    "#": (".#.#.", "#####", ".#.#.", ".#.#.", ".#.#.", "#####", ".#.#."),
    "%": ("##..#", "##.#.", "..#..", "..#..", ".#...", "#..##", "...##"),
    "@": (".###.", "#...#", "#.###", "#.#.#", "#.###", "#....", ".###."),
}


@cache
def cells() -> npt.NDArray[np.bool_]:
    """(len(RAMP), CELL_H, CELL_W) ink masks, in ramp order."""
    out = np.zeros((len(RAMP), CELL_H, CELL_W), np.bool_)
    for i, ch in enumerate(RAMP):
        for y, row in enumerate(_GLYPHS[ch]):
            out[i, _TOP + y, :5] = [c == "#" for c in row]
    return out
