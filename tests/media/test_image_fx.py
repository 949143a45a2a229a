from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from tests.media._fx_goldens import CASES, GOLDEN, SEED, rendered, source

from nika.media import _oklab, _prng, png
from nika.media._fx_dither import bayer, blue_noise
from nika.media._fx_geometry import target_size
from nika.media.image_fx import CONTRACT, FxError, render
from nika.stdlib._fx_ops import normalized

ROOT = Path(__file__).resolve().parents[2]


def _pixels(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as im:
        return np.array(im.convert("RGBA" if im.mode == "RGBA" else "RGB"))


def _run(ops, data: bytes | None = None, seed: int = SEED):
    return render(source() if data is None else data, normalized(ops), seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_op_renders_its_golden_bytes(name):
    data, file = rendered(name)
    assert data == (GOLDEN / file).read_bytes(), f"{file}: the image_fx/v1 bytes changed"


@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("ascii-t")
                                        and n != "ascii-ansi"))
def test_each_golden_png_decodes_with_pillow(name):
    data, _ = rendered(name)
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        assert im.format == "PNG" and im.mode == "RGB"
        recipe = json.loads(im.info["nika"])
    assert recipe == {"contract": CONTRACT, "input_sha256": hashlib.sha256(source()).hexdigest(),
                      "ops": normalized(CASES[name]), "seed": SEED}


def test_dimensions_and_pinned_pixels():
    src = _pixels(source())
    assert src.shape == (40, 64, 3)
    assert _pixels(_run(CASES["resize-auto-down"]).data).shape == (25, 40, 3)
    assert _pixels(_run(CASES["resize-auto-up"]).data).shape == (50, 96, 3)
    assert _pixels(_run(CASES["resize-nearest"]).data).shape == (60, 96, 3)
    assert _pixels(_run(CASES["resize-bilinear"]).data).shape == (31, 50, 3)
    crop = _pixels(_run(CASES["crop"]).data)
    assert crop.shape == (20, 32, 3) and np.array_equal(crop, src[4:24, 8:40])
    gray = _pixels(_run(CASES["grayscale"]).data)
    r, g, b = (int(v) for v in src[10, 20])
    assert gray[10, 20].tolist() == [(77 * r + 150 * g + 29 * b + 128) >> 8] * 3
    assert gray[0, 0].tolist() == [0, 0, 0]
    pix = _pixels(_run(CASES["pixelate"]).data)
    assert np.all(pix[0:6, 0:6] == pix[0, 0]) and pix[0, 0].tolist() == [10, 15, 80]
    ascii_png = _run(CASES["ascii-png"])
    assert (ascii_png.width, ascii_png.height) == (16 * 6, 5 * 12)


@pytest.mark.parametrize("name", ["palette_map", "dither-bayer4", "dither-floyd_steinberg",
                                  "dither-jjn", "dither-ign"])
def test_palette_ops_emit_only_palette_colours(name):
    pixels = _pixels(_run(CASES[name]).data).reshape(-1, 3)
    [op] = normalized(CASES[name])
    palette = _oklab.palette_colours(next(iter(op.values()))["palette"])
    assert {tuple(p) for p in pixels.tolist()} <= {tuple(p) for p in palette.tolist()}


def test_ascii_text_and_ansi_emits():
    text = _run(CASES["ascii-text"])
    assert (text.format, text.width, text.height) == ("txt", 0, 0)
    lines = text.data.decode().split("\n")
    assert lines[-1] == "" and len(lines) - 1 == 10 and {len(x) for x in lines[:-1]} == {32}
    assert set(text.data.decode()) <= set(" .:-=+*#%@\n")
    ansi = _run(CASES["ascii-ansi"]).data.decode()
    assert ansi.startswith("\x1b[38;2;") and ansi.count("\x1b[0m\n") == 5


def test_alpha_is_kept_and_gray_widens():
    y, x = np.mgrid[0:8, 0:8]
    rgba = np.stack([x * 30, y * 30, x * 0, (x + y) * 15], axis=2).astype(np.uint8)
    out = _pixels(_run([{"grayscale": {}}, {"crop": {"width": 4, "height": 4}}],
                       png.encode(rgba)).data)
    assert out.shape == (4, 4, 4) and np.array_equal(out[..., 3], rgba[:4, :4, 3])
    gray = png.encode(np.full((4, 4, 1), 77, np.uint8))
    assert _pixels(_run([{"levels": {}}], gray).data)[0, 0].tolist() == [77, 77, 77]


def test_the_seed_is_the_style():
    a, b = _run(CASES["grain"], seed=1), _run(CASES["grain"], seed=2)
    assert a.data != b.data and a.data == _run(CASES["grain"], seed=1).data
    same_image = _pixels(_run(CASES["levels"], seed=1).data)
    assert np.array_equal(same_image, _pixels(_run(CASES["levels"], seed=2).data))


_CHILD = """
import hashlib, sys
sys.path.insert(0, {root!r})
from tests.media._fx_goldens import CASES, rendered
print(hashlib.sha256(b"".join(rendered(n)[0] for n in sorted(CASES))).hexdigest())
"""


def test_two_processes_with_different_hash_seeds_render_the_same_bytes():
    digests = set()
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT))], env=env,
                             capture_output=True, text=True, timeout=300, check=True)
        digests.add(out.stdout.strip())
    here = hashlib.sha256(b"".join(rendered(n)[0] for n in sorted(CASES))).hexdigest()
    assert digests == {here}


def test_op_refusals():
    with pytest.raises(FxError) as err:
        _run([{"crop": {"x": 60, "width": 10, "height": 10}}])
    assert err.value.kind == "args" and "64×40" in err.value.detail
    with pytest.raises(FxError) as err:
        _run([{"resize": {"width": 16384, "height": 16384}}])
    assert err.value.kind == "budget"
    with pytest.raises(FxError) as err:
        _run([{"crop": {"width": 1, "height": 40}}, {"ascii": {"cols": 1024}}])
    assert err.value.kind == "budget" and "cols" in err.value.detail


def test_resize_keeps_the_aspect_ratio():
    assert target_size(40, 64, {"width": 32}) == (32, 20)
    assert target_size(40, 64, {"height": 1}) == (2, 1)
    assert target_size(1, 1000, {"width": 10}) == (10, 1)


def test_prng_is_splitmix64():
    # SplitMix64's published first outputs for state 0
    words = _prng.Stream(0, 0, 0).words(0, 2).tolist()
    assert words == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]
    assert _prng.Stream(0, 0, 0).words(1, 1).tolist() == words[1:]
    assert _prng.Stream(0, 1, 0).words(0, 1).tolist() != words[:1]
    assert _prng.Stream(-1, 0, 0).words(0, 1).tolist() == _prng.Stream(2**64 - 1, 0, 0).words(
        0, 1).tolist()


def test_oklab_fixed_point_is_pinned():
    lab = _oklab.oklab(np.array([[255, 255, 255], [0, 0, 0], [255, 0, 0], [0, 0, 255]]))
    assert lab.tolist() == [[65535, 0, 0], [0, 0, 0], [41153, 14730, 8240],
                            [29625, -2111, -20409]]
    assert _oklab.to_srgb(_oklab.LINEAR).tolist() == list(range(256))


def test_linear_table_follows_the_srgb_transfer_function():
    for v in range(256):
        c = v / 255
        lin = c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        assert abs(int(_oklab.LINEAR[v]) - lin * 65535) <= 0.5 + 1e-6


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 255)] * 3), min_size=1, max_size=20),
       st.lists(st.tuples(*[st.integers(0, 255)] * 3), min_size=2, max_size=12))
def test_nearest_is_the_least_oklab_distance(colours, palette):
    pal = np.array(palette, np.uint8)
    got = _oklab.nearest(np.array(colours), pal)
    lab, target = _oklab.oklab(np.array(colours)), _oklab.oklab(pal)
    dist = ((lab[:, None, :] - target[None, :, :]) ** 2).sum(axis=2)
    assert got.tolist() == np.argmin(dist, axis=1).tolist()  # least, earliest on a tie


def test_threshold_matrices():
    assert bayer(2).tolist() == [[0, 2], [3, 1]]
    assert sorted(bayer(8).reshape(-1).tolist()) == list(range(64))
    noise = blue_noise()
    assert sorted(noise.reshape(-1).tolist()) == list(range(256))
    assert hashlib.sha256(noise.tobytes()).hexdigest()[:16] == "078b5a9a0d4e93a0"


def _param_value(name: str, key: str, param) -> st.SearchStrategy:
    if param.kind == "int":
        high = min(param.high, 70) if name in ("resize", "crop") else param.high
        return st.integers(max(param.low, 0 if name == "crop" else param.low), high)
    if param.kind == "enum":
        return st.sampled_from(param.choices)
    colour = st.lists(st.integers(0, 255), min_size=3, max_size=3)
    if param.kind == "colour":
        return colour
    return st.one_of(st.sampled_from(["bw", "gray4", "gameboy", "cga", "okabe_ito"]),
                     st.lists(colour, min_size=2, max_size=6))


@st.composite
def _ops(draw):
    from nika.stdlib._fx_ops import OPS, problem

    ops = []
    for _ in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from([n for n in OPS if n != "ascii"]))
        params = {k: draw(_param_value(name, k, p)) for k, p in OPS[name].items()
                  if draw(st.booleans()) or (p.default is None and not p.optional)}
        if name == "resize" and not params.keys() & {"width", "height"}:
            params["width"] = draw(st.integers(1, 70))
        if name == "glitch" and not any(params.values()):
            params["blocks"] = 1
        ops.append({name: params})
    if draw(st.booleans()):
        ops.append({"ascii": {"cols": draw(st.integers(2, 40)),
                              "emit": draw(st.sampled_from(["png", "text", "ansi"]))}})
    emit = ops[-1].get("ascii", {}).get("emit", "png")
    assert problem(ops, {"png": "o.png", "text": "o.txt", "ansi": "o.ans"}[emit]) is None
    return ops


@settings(max_examples=60, deadline=None)
@given(_ops(), st.integers(1, 24), st.integers(1, 24), st.sampled_from([1, 3, 4]),
       st.integers(-(2**70), 2**70))
def test_any_valid_pipeline_renders_or_refuses_with_a_reason(ops, w, h, channels, seed):
    pixels = np.random.RandomState(w * 31 + h).randint(0, 256, (h, w, channels)).astype(
        np.uint8)
    source_png = png.encode(pixels)
    try:
        first = render(source_png, normalized(ops), seed)
    except FxError as err:
        assert err.kind in ("args", "budget") and err.detail
        return
    assert first == render(source_png, normalized(ops), seed)
    if first.format == "png":
        with Image.open(io.BytesIO(first.data)) as im:
            assert im.size == (first.width, first.height)
