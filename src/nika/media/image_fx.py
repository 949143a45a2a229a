"""`nika:image_fx`'s renderer: a PNG and an ordered op pipeline in, artifact bytes out —
byte-identical for identical (input bytes, ops, seed) on every machine (stdlib §image_fx).

The ops arrive in their normal form (`nika.stdlib._fx_ops.normalized`: every default filled,
every colour `[r, g, b]`). The input is decoded by `png` (its header judged before any
inflate) into 8-bit RGB, or RGBA when it has alpha (gray widens to RGB). Each op is a pure
function of the image, its params, the seed and its position (the op modules document their
arithmetic: integers only, no float transcendental, no clock, no randomness beyond the
seeded `_prng` stream). A PNG artifact is written by our own encoder with the recipe — the
contract tag `image_fx/v1`, the input's sha256, the seed and the normalized ops, as
canonical JSON — in a `nika` tEXt chunk. The ascii op ends a pipeline and may emit text.

Output format versioning: these bytes are the `image_fx/v1` contract; a change to any op's
arithmetic, the PNG writer or the recipe is a new contract tag, never a silent drift.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from nika.canonical import canonical_json
from nika.media import _fx_ascii, _fx_dither, _fx_geometry, _fx_tone, png
from nika.media._fx_common import FxError, Image, OpContext, Params

CONTRACT: Final = "image_fx/v1"
RECIPE_KEY: Final = "nika"

OpFn = Callable[[Image, Params, OpContext], Image]
OPS: Final[Mapping[str, OpFn]] = {
    "resize": _fx_geometry.resize,
    "crop": _fx_geometry.crop,
    "levels": _fx_tone.levels,
    "grayscale": _fx_tone.grayscale,
    "palette_map": _fx_dither.palette_map,
    "dither": _fx_dither.dither,
    "duotone": _fx_tone.duotone,
    "pixelate": _fx_geometry.pixelate,
    "halftone": _fx_dither.halftone,
    "grain": _fx_tone.grain,
    "vignette": _fx_tone.vignette,
    "chromatic_aberration": _fx_tone.chromatic_aberration,
    "scanlines": _fx_tone.scanlines,
    "glitch": _fx_tone.glitch,
}
"""The pixel ops (ascii, the 15th, ends a pipeline and is rendered apart)."""

__all__ = ["CONTRACT", "OPS", "FxError", "Render", "recipe", "render"]


@dataclass(frozen=True, slots=True)
class Render:
    """An artifact: its bytes, pixel size (0 × 0 for text) and format (png · txt · ans)."""

    data: bytes
    width: int
    height: int
    format: str


def recipe(input_sha256: str, seed: int, ops: Sequence[Mapping[str, Any]]) -> str:
    """The recipe a PNG artifact carries (canonical JSON; ASCII: the ops are numbers and
    names)."""
    return canonical_json({"contract": CONTRACT, "input_sha256": input_sha256,
                           "ops": list(ops), "seed": seed})


def working(pixels: png.Pixels) -> Image:
    """Decoded pixels as the working image: RGB, or RGBA when there is alpha."""
    channels = pixels.shape[2]
    if channels >= 3:
        return pixels
    gray = np.repeat(pixels[..., :1], 3, axis=2)
    return gray if channels == 1 else np.concatenate((gray, pixels[..., 1:]), axis=2)


def render(source: bytes, ops: Sequence[Mapping[str, Mapping[str, Any]]], seed: int,
           checkpoint: Callable[[], None] = lambda: None) -> Render:
    """Run the pipeline on the PNG `source`. Raises `png.PngError` (input refused) or
    `FxError` (an op refused); `checkpoint` is called between ops and inside long ones."""
    img = working(png.decode(source, checkpoint))
    for index, entry in enumerate(ops):
        ((name, params),) = entry.items()
        ctx = OpContext(seed, index, checkpoint)
        checkpoint()
        if name == "ascii":
            if params["emit"] != "png":
                text = _fx_ascii.render_text(img, params, ctx)
                return Render(text, 0, 0, "txt" if params["emit"] == "text" else "ans")
            img = _fx_ascii.render_png(img, params, ctx)
            break
        img = OPS[name](img, params, ctx)
    checkpoint()
    texts = [png.text_chunk(RECIPE_KEY, recipe(hashlib.sha256(source).hexdigest(), seed, ops))]
    data = png.encode(img, texts, checkpoint)
    return Render(data, int(img.shape[1]), int(img.shape[0]), "png")
