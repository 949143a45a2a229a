"""`nika:image_fx` on a 1-megapixel image: each op's time next to Pillow doing the nearest
equivalent operation, measured in the same run (so the ratios hold on any machine).

The image is a deterministic 1000×1000 RGB "photo" (gradients, a disc, mild noise). Each row
times the op alone on the decoded pixels (best of a few runs), then Pillow's counterpart on
the same pixels; decode and encode have rows of their own. Pillow is the C reference, not the
same algorithm: image_fx does integer, byte-identical arithmetic (linear-light resampling,
Oklab nearest colour, our own deflate), so a ratio says what determinism costs, not a bug.
Run alone: `.venv/bin/python bench/_media_image_fx.py`.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image, ImageChops, ImageOps

from nika.media import png
from nika.media._fx_ascii import render_png, render_text
from nika.media._fx_common import OpContext
from nika.media.image_fx import OPS
from nika.stdlib._fx_ops import normalized

SIDE = 1000


def _photo() -> np.ndarray:
    y, x = np.mgrid[0:SIDE, 0:SIDE]
    disc = (x - 620) ** 2 + (y - 380) ** 2 < 180**2
    noise = np.random.RandomState(7).randint(-12, 13, (SIDE, SIDE, 3))
    base = np.stack([x * 255 // SIDE, y * 255 // SIDE, (x + y) * 255 // (2 * SIDE)], axis=2)
    base[disc] = (235, 190, 60)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def _best(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _pillow_rows(im: Image.Image) -> dict[str, tuple[str, Callable[[], Any]]]:
    gray = im.convert("L")
    bw = Image.new("P", (1, 1))
    bw.putpalette([0, 0, 0, 255, 255, 255] + [0] * 762)
    okabe = Image.new("P", (1, 1))
    okabe.putpalette([0, 0, 0, 230, 159, 0, 86, 180, 233, 0, 158, 115, 240, 228, 66, 0, 114,
                      178, 213, 94, 0, 204, 121, 167] + [0] * 744)
    lines = Image.new("L", im.size, 255)
    lines.paste(160, (0, 3, SIDE, 4))
    vignette = ImageOps.invert(Image.radial_gradient("L").resize(im.size))
    levels = [min(255, max(0, ((v - 128) * 168 + 64 >> 7) + 148)) for v in range(256)] * 3

    def aberration() -> Image.Image:
        r, g, b = im.split()
        return Image.merge("RGB", (ImageChops.offset(r, -4, 0), g, ImageChops.offset(b, 4, 0)))

    return {
        "resize": ("resize BOX to 500²", lambda: im.resize((500, 500), Image.Resampling.BOX)),
        "resize-up": ("resize BILINEAR to 1500²",
                      lambda: im.resize((1500, 1500), Image.Resampling.BILINEAR)),
        "crop": ("crop + copy", lambda: im.crop((100, 100, 900, 900)).load()),
        "levels": ("point (LUT)", lambda: im.point(levels)),
        "grayscale": ('convert("L")', lambda: im.convert("L")),
        "palette_map": ("quantize, no dither", lambda: im.quantize(
            palette=okabe, dither=Image.Dither.NONE)),
        "dither-bayer4": ("quantize, no dither (no ordered dither)", lambda: im.quantize(
            palette=bw, dither=Image.Dither.NONE)),
        "dither-floyd_steinberg": ("quantize, Floyd-Steinberg", lambda: im.quantize(
            palette=bw, dither=Image.Dither.FLOYDSTEINBERG)),
        "duotone": ("ImageOps.colorize", lambda: ImageOps.colorize(gray, "#1a1040",
                                                                     "#ffc878")),
        "pixelate": ("resize BOX down + NEAREST up", lambda: im.resize(
            (125, 125), Image.Resampling.BOX).resize(im.size, Image.Resampling.NEAREST)),
        "halftone": ('convert("1")', lambda: im.convert("1")),
        "grain": ("effect_noise + add", lambda: ImageChops.add(
            im, Image.merge("RGB", [Image.effect_noise(im.size, 24)] * 3), 1, -128)),
        "vignette": ("radial_gradient multiply", lambda: ImageChops.multiply(
            im, Image.merge("RGB", [vignette] * 3))),
        "chromatic_aberration": ("split + offset + merge", aberration),
        "scanlines": ("multiply by a line mask", lambda: ImageChops.multiply(
            im, Image.merge("RGB", [lines] * 3))),
        "glitch": ("ImageChops.offset", lambda: ImageChops.offset(im, 12, 0)),
        "ascii": ("resize BOX to the 96×48 grid", lambda: im.resize(
            (96, 48), Image.Resampling.BOX)),
    }


_OURS: dict[str, dict[str, Any]] = {
    "resize": {"resize": {"width": 500}},
    "resize-up": {"resize": {"width": 1500}},
    "crop": {"crop": {"x": 100, "y": 100, "width": 800, "height": 800}},
    "levels": {"levels": {"brightness": 20, "contrast": 40}},
    "grayscale": {"grayscale": {}},
    "palette_map": {"palette_map": {"palette": "okabe_ito"}},
    "dither-bayer4": {"dither": {"mode": "bayer4"}},
    "dither-floyd_steinberg": {"dither": {}},
    "duotone": {"duotone": {"dark": "#1a1040", "light": "#ffc878"}},
    "pixelate": {"pixelate": {"block": 8}},
    "halftone": {"halftone": {}},
    "grain": {"grain": {}},
    "vignette": {"vignette": {}},
    "chromatic_aberration": {"chromatic_aberration": {}},
    "scanlines": {"scanlines": {}},
    "glitch": {"glitch": {"line_shift": 16, "channel_shift": 4, "blocks": 16}},
    "ascii": {"ascii": {}},
}


def _ours(pixels: np.ndarray, op: dict[str, Any]) -> Callable[[], Any]:
    [entry] = normalized([op])
    ((name, params),) = entry.items()
    ctx = OpContext(0, 0, lambda: None)
    if name == "ascii":
        return lambda: (render_png(pixels, params, ctx), render_text(pixels, dict(params,
                                                                                  emit="text"),
                                                                     ctx))
    return lambda: OPS[name](pixels, params, ctx)


def image_fx_section() -> None:
    """Print image_fx's time per op on 1 MP next to Pillow's nearest equivalent."""
    pixels = _photo()
    data = png.encode(pixels)
    im = Image.fromarray(pixels)
    im.load()
    buf = io.BytesIO()
    im.save(buf, "PNG")
    pil_png = buf.getvalue()

    def pil_decode() -> None:
        with Image.open(io.BytesIO(pil_png)) as loaded:
            loaded.load()

    rows: list[tuple[str, float, str, float]] = [
        ("decode (Pillow-written PNG)", _best(lambda: png.decode(pil_png), 3),
         "Image.open + load", _best(pil_decode, 3)),
        ("encode (our deflate)", _best(lambda: png.encode(pixels), 3),
         "save PNG (zlib level 6)", _best(lambda: im.save(io.BytesIO(), "PNG"), 3)),
    ]
    pillow = _pillow_rows(im)
    for key, op in _OURS.items():
        slow = key.startswith("dither-floyd") or key == "halftone"
        ours = _best(_ours(pixels, op), 1 if slow else 3)
        label, fn = pillow[key]
        rows.append((key, ours, label, _best(fn, 3)))
    print(f"\n## image_fx on a {SIDE}×{SIDE} RGB image (our encode: {len(data):,} bytes; "
          f"Pillow's: {len(pil_png):,})")
    print(f"{'op':<24}{'image_fx ms':>12}  {'Pillow equivalent':<40}{'Pillow ms':>10}"
          f"{'ratio':>9}")
    for name, ours, label, theirs in rows:
        ratio = ours / theirs if theirs > 0 else float("inf")
        print(f"{name:<24}{ours * 1000:>12.1f}  {label:<40}{theirs * 1000:>10.2f}"
              f"{ratio:>8.1f}×")


if __name__ == "__main__":
    image_fx_section()
