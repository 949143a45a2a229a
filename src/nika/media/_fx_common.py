"""What image_fx's op modules share: the working image, the op context, the refusal."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from nika.media.png import budget_problem

Image = npt.NDArray[np.uint8]
"""The working image: (height, width, 3) RGB or (height, width, 4) RGBA, uint8."""
Params = Mapping[str, Any]


class FxError(Exception):
    """An op refusing: `args` (a param the image makes impossible, e.g. a crop outside it)
    or `budget` (an output over the pixel budget), with a prescriptive detail."""

    def __init__(self, kind: Literal["args", "budget"], detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True, slots=True)
class OpContext:
    """Where an op runs: the pipeline's seed, its position, and the cancellation checkpoint
    (raises to stop; called between rows of the long ops)."""

    seed: int
    index: int
    checkpoint: Callable[[], None]


def check_budget(op: str, width: int, height: int) -> None:
    """Refuse an op output over the input caps (the same 16384/side, 2^26 pixels)."""
    problem = budget_problem(width, height)
    if problem is not None:
        raise FxError("budget", f"`{op}` would render {problem}")


def luma(rgb: npt.NDArray[np.integer]) -> npt.NDArray[np.int32]:
    """BT.601 luma in 8-bit fixed point on the sRGB values: (77 R + 150 G + 29 B + 128) >> 8
    (weights sum to 256, so gray stays gray)."""
    r, g, b = (rgb[..., i].astype(np.int32) for i in range(3))
    return (77 * r + 150 * g + 29 * b + 128) >> 8
