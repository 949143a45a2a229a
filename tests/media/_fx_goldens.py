"""The golden renders of `nika:image_fx`: one pipeline per op (and per dither mode and ascii
emit) over one synthetic input. `test_image_fx.py` holds the renderer to these bytes; a
deliberate change to the `image_fx/v1` arithmetic is a contract bump, after which
`python -m tests.media._fx_goldens` rewrites them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np

from nika.media import png
from nika.media.image_fx import render
from nika.stdlib._fx_ops import normalized

GOLDEN: Final = Path(__file__).parent / "golden" / "image_fx"
SEED: Final = 7


def source() -> bytes:
    """A 64×40 RGB test card: two gradients, a diagonal pattern, a bright disc."""
    y, x = np.mgrid[0:40, 0:64]
    disc = (x - 40) ** 2 + (y - 18) ** 2 < 100
    r = np.where(disc, 250, x * 4)
    g = np.where(disc, 240, y * 6)
    b = np.where(disc, 90, ((x + y) % 16) * 16)
    return png.encode(np.stack([r, g, b], axis=2).astype(np.uint8))


CASES: Final[dict[str, list[dict[str, Any]]]] = {
    "resize-auto-down": [{"resize": {"width": 40}}],
    "resize-auto-up": [{"resize": {"width": 96, "height": 50}}],
    "resize-nearest": [{"resize": {"height": 60, "filter": "nearest"}}],
    "resize-bilinear": [{"resize": {"width": 50, "filter": "bilinear"}}],
    "crop": [{"crop": {"x": 8, "y": 4, "width": 32, "height": 20}}],
    "levels": [{"levels": {"brightness": 30, "contrast": 60}}],
    "grayscale": [{"grayscale": {}}],
    "palette_map": [{"palette_map": {"palette": "okabe_ito"}}],
    "dither-bayer2": [{"dither": {"mode": "bayer2"}}],
    "dither-bayer4": [{"dither": {"mode": "bayer4", "palette": "gameboy"}}],
    "dither-bayer8": [{"dither": {"mode": "bayer8", "palette": "gray4"}}],
    "dither-blue_noise": [{"dither": {"mode": "blue_noise", "palette": "cga"}}],
    "dither-ign": [{"dither": {"mode": "ign", "palette": ["#102030", [200, 180, 40]]}}],
    "dither-floyd_steinberg": [{"dither": {}}],
    "dither-atkinson": [{"dither": {"mode": "atkinson", "palette": "gameboy"}}],
    "dither-jjn": [{"dither": {"mode": "jjn", "palette": "okabe_ito"}}],
    "duotone": [{"duotone": {"dark": "#1a1040", "light": [255, 200, 120]}}],
    "pixelate": [{"pixelate": {"block": 6}}],
    "halftone": [{"halftone": {"cell": 6, "angle": 15}}],
    "grain": [{"grain": {}}],
    "vignette": [{"vignette": {}}],
    "chromatic_aberration": [{"chromatic_aberration": {}}],
    "scanlines": [{"scanlines": {"period": 3}}],
    "glitch": [{"glitch": {"line_shift": 12, "channel_shift": 3, "blocks": 6}}],
    "ascii-png": [{"ascii": {"cols": 16}}],
    "ascii-text": [{"ascii": {"cols": 32, "emit": "text"}}],
    "ascii-ansi": [{"ascii": {"cols": 16, "emit": "ansi"}}],
    "pipeline": [{"resize": {"width": 32}}, {"grayscale": {}}, {"dither": {"mode": "bayer4"}},
                 {"pixelate": {"block": 2}}, {"vignette": {"strength": 200}}],
}
"""Every op of the closed set appears (all eight dither modes, all three ascii emits)."""

SUFFIX: Final = {"png": ".png", "txt": ".txt", "ans": ".ans"}


def rendered(name: str) -> tuple[bytes, str]:
    """The render of one case and the golden file name it must equal."""
    result = render(source(), normalized(CASES[name]), SEED)
    return result.data, name + SUFFIX[result.format]


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        data, file = rendered(name)
        (GOLDEN / file).write_bytes(data)


if __name__ == "__main__":
    main()
