from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from nika.media import png
from nika.tools.builtins import BuiltinExecutor

SPEC = next(p / "shared" / "nika-spec" for p in Path(__file__).resolve().parents
            if (p / "shared" / "nika-spec").is_dir()) / "examples"  # the checkout's sibling
OPS = [{"grayscale": {}}, {"dither": {"mode": "bayer4"}}, {"pixelate": {"block": 4}}]


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _header_only(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (png.SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + _chunk(b"IEND", b""))


def _photo(base: Path, name: str = "in.png", size: tuple[int, int] = (48, 32)) -> bytes:
    y, x = np.mgrid[0:size[1], 0:size[0]]
    pixels = np.stack([x * 5 % 256, y * 7 % 256, (x ^ y) % 256], axis=2).astype(np.uint8)
    data = png.encode(pixels)
    (base / name).write_bytes(data)
    return data


def _gray_blocks(pixels: np.ndarray) -> bool:
    """Gray, in uniform 4×4 blocks: what grayscale → dither → pixelate 4 renders."""
    gray = bool((pixels == pixels[..., :1]).all())
    blocks = pixels[:, :, 0].reshape(8, 4, 12, 4)
    return gray and bool((blocks == blocks[:, :1, :, :1]).all())


async def _call(make: Callable[..., BuiltinExecutor], **args):
    args.setdefault("input", "in.png")
    args.setdefault("out", "out/a.png")
    args.setdefault("ops", OPS)
    return await make().call("nika:image_fx", args)


async def test_renders_the_record_and_skips_identical_bytes(make, judge, base: Path):
    source = _photo(base)
    first = await _call(make, seed=3)
    assert first.error is None, first.error
    record = first.structured
    target = base / "out" / "a.png"
    data = target.read_bytes()
    import hashlib

    assert record == {
        "input": "in.png", "input_sha256": hashlib.sha256(source).hexdigest(),
        "path": "out/a.png", "sha256": hashlib.sha256(data).hexdigest(),
        "size_bytes": len(data), "width": 48, "height": 32, "format": "png",
        "ops_applied": [{"grayscale": {}}, {"dither": {"mode": "bayer4", "palette": "bw"}},
                        {"pixelate": {"block": 4}}],
        "seed": 3, "skipped_existing": False,
    }
    assert [(e.kind, e.target) for e in judge.seen] == [("fs.read", "in.png"),
                                                        ("fs.write", "out/a.png")]
    os.utime(target, (1, 1))
    again = await _call(make, seed=3)
    assert again.structured["skipped_existing"] is True and target.stat().st_mtime == 1
    assert again.structured["sha256"] == record["sha256"]
    with Image.open(target) as im:
        pixels = np.array(im)
    assert pixels.shape == (32, 48, 3) and _gray_blocks(pixels)


async def test_text_emit(make, base: Path):
    _photo(base)
    result = await _call(make, out="out/a.txt", ops=[{"ascii": {"cols": 12, "emit": "text"}}])
    assert result.error is None
    assert (result.structured["format"], result.structured["width"]) == ("txt", 0)
    assert (base / "out" / "a.txt").read_text().count("\n") == 4


async def test_paths_are_judged_before_any_io(make, judge, base: Path):
    judge.refuse.add("secret.png")
    result = await _call(make, input="secret.png")
    assert result.error is not None and result.error.code == "NIKA-SEC-004"
    judge.refuse.add("out/a.png")
    _photo(base)
    result = await _call(make)
    assert result.error is not None and result.error.code == "NIKA-SEC-004"
    assert not (base / "out").exists()


@pytest.mark.parametrize(
    ("make_input", "ops", "code"),
    [
        (lambda: _header_only(100_000, 100_000), OPS, "NIKA-BUILTIN-IMAGE_FX-005"),
        (lambda: b"GIF89a" + bytes(40), OPS, "NIKA-BUILTIN-IMAGE_FX-003"),
        (lambda: png.encode(np.zeros((8, 8, 3), np.uint8))[:-20], OPS,
         "NIKA-BUILTIN-IMAGE_FX-004"),
        (None, [{"grayscale": {}}] * 33, "NIKA-BUILTIN-IMAGE_FX-001"),
        (None, [{"blur": {"radius": 2}}], "NIKA-BUILTIN-IMAGE_FX-001"),
        (None, [{"resize": {"width": 0}}], "NIKA-BUILTIN-IMAGE_FX-001"),
        (None, [{"crop": {"x": 40, "width": 20, "height": 4}}], "NIKA-BUILTIN-IMAGE_FX-001"),
        (None, [{"resize": {"width": 16384, "height": 16384}}], "NIKA-BUILTIN-IMAGE_FX-005"),
    ],
)
async def test_hostile_inputs_are_refused_with_the_builtins_code(make, base: Path, make_input,
                                                                 ops, code):
    if make_input is None:
        _photo(base)
    else:
        (base / "in.png").write_bytes(make_input())
    result = await _call(make, ops=ops)
    assert result.error is not None and result.error.code == code, result.error
    assert not (base / "out").exists()


async def test_crc_corruption_and_missing_input(make, base: Path):
    data = bytearray(_photo(base))
    data[data.index(b"IDAT") + 10] ^= 0x55
    (base / "in.png").write_bytes(bytes(data))
    result = await _call(make)
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-IMAGE_FX-004"
    assert "CRC" in result.error.detail
    missing = await _call(make, input="nope.png")
    assert missing.error is not None and missing.error.code == "NIKA-BUILTIN-IMAGE_FX-002"


async def test_an_unwritable_out_is_a_save_failure(make, base: Path):
    _photo(base)
    (base / "out" / "a.png").mkdir(parents=True)
    result = await _call(make)
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-IMAGE_FX-006"


async def test_a_timeout_stops_the_worker(make, base: Path):
    _photo(base, size=(800, 600))
    before = threading.active_count()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await _call(make, ops=[{"dither": {"mode": "floyd_steinberg"}}] * 4)
    assert time.monotonic() - started < 5  # the checkpoint saw the stop within rows
    for _ in range(100):
        if threading.active_count() <= before:
            break
        await asyncio.sleep(0.05)
    assert threading.active_count() <= before
    assert not (base / "out").exists()


_RSS = r"""
import asyncio, resource, struct, sys, zlib
from pathlib import Path
from nika.media import png
from nika.tools.builtins import BuiltinExecutor, Context
def chunk(k, b):
    return struct.pack(">I", len(b)) + k + b + struct.pack(">I", zlib.crc32(k + b))
z = zlib.compressobj(1)
zeros = bytes(1 << 20)
bomb = b"".join(z.compress(zeros) for _ in range(1024)) + z.flush()  # 1 GiB inflated
base = Path(sys.argv[1])
async def main():
    ex = BuiltinExecutor(Context(base_dir=base))
    codes = []
    for w, h in ((100_000, 100_000), (16_384, 16_384), (4_000, 4_000)):
        data = (png.SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", bomb) + chunk(b"IEND", b""))
        (base / "bomb.png").write_bytes(data)
        r = await ex.call("nika:image_fx", {"input": "bomb.png", "out": "o.png",
                                            "ops": [{"grayscale": {}}]})
        codes.append(r.error.code)
    print(" ".join(codes))
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
asyncio.run(main())
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) // 1024)
"""


def test_decompression_bombs_are_refused_in_bounded_memory(tmp_path: Path):
    out = subprocess.run([sys.executable, "-c", _RSS, str(tmp_path)], capture_output=True,
                         text=True, timeout=120, check=True).stdout.split("\n")
    assert out[0].split() == ["NIKA-BUILTIN-IMAGE_FX-005", "NIKA-BUILTIN-IMAGE_FX-005",
                              "NIKA-BUILTIN-IMAGE_FX-004"]
    # 4000×4000 RGB is 48 MB decoded at most; the 1 GiB of zeros never inflates
    assert int(out[1]) < 80


def test_the_spec_example_runs_through_the_cli(tmp_path: Path):
    shutil.copytree(SPEC / "fixtures" / "photos", tmp_path / "examples" / "fixtures" / "photos")
    flow = tmp_path / "image-fx-batch.nika.yaml"
    flow.write_bytes((SPEC / "image-fx-batch.nika.yaml").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}

    def run() -> dict[str, bytes]:
        done = subprocess.run([sys.executable, "-m", "nika.cli", "run", flow.name],
                              cwd=tmp_path, env=env, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        return {p.name: p.read_bytes() for p in (tmp_path / "out" / "darkroom").iterdir()}

    first = run()
    assert sorted(first) == ["harbour-02.png", "sunset-01.png"]
    for data in first.values():
        with Image.open(io.BytesIO(data)) as im:
            assert im.size == (48, 32) and "image_fx/v1" in im.info["nika"]
            assert _gray_blocks(np.array(im))
    assert run() == first


def test_a_task_timeout_cancels_the_render_through_the_cli(tmp_path: Path):
    _photo(tmp_path, "big.png", size=(1000, 1000))
    (tmp_path / "slow.nika.yaml").write_text(
        'nika: slow\npermits: { tools: ["nika:image_fx"], fs: { read: ["*.png"], '
        'write: ["out/*"] } }\ntasks:\n  fx:\n    timeout: 1s\n    invoke:\n'
        "      tool: nika:image_fx\n      args:\n        input: big.png\n"
        "        out: out/big.png\n        ops: [" + ", ".join(["{ dither: { mode: jjn } }"] * 8)
        + "]\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "nika.cli", "run", "slow.nika.yaml",
                           "--report", "r.json"], cwd=tmp_path, env=env, capture_output=True,
                          timeout=120)
    assert done.returncode == 1 and time.monotonic() - started < 30
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["tasks"]["fx"]["error"]["code"] == "NIKA-TIMEOUT-001"
    assert not (tmp_path / "out" / "big.png").exists()
