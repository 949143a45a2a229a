"""`nika.view.assets`: the recorded assets as `nika trace show` lists them, and the HTML page's
Assets section — a PNG's thumbnail bounded, re-encoded by our own writer, inline as `data:`
under a CSP widened by exactly `img-src data:`, nothing else loaded."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from tests.journal._journals import chained_journal

from nika.journal.assets import MAX_ASSETS
from nika.media.png import decode, encode
from nika.view.assets import (
    MAX_THUMBNAILS,
    THUMB_MAX_BYTES,
    THUMB_SIDE,
    AssetRow,
    rows,
    section,
    shrink,
    text_line,
    thumbnail,
)

ROOT = Path(__file__).resolve().parents[2]


def _noise(height: int, width: int, channels: int = 4) -> np.ndarray:
    rng = np.random.default_rng(7)  # incompressible: the byte cap must do the work
    return rng.integers(0, 256, (height, width, channels), dtype=np.uint8)


def _row(base: Path, rel: str, data: bytes, **extra) -> AssetRow:
    (base / rel).parent.mkdir(parents=True, exist_ok=True)
    (base / rel).write_bytes(data)
    [row] = rows([{"path": rel, "sha256": hashlib.sha256(data).hexdigest(),
                   "bytes": len(data), **extra}])
    return row


def test_rows_read_a_hostile_journal_without_guessing():
    read = rows([{"path": "a.png", "sha256": 5, "bytes": True, "width": "9", "height": 2},
                 {"path": 3}, {"sha256": "x"},
                 {"path": "b.wav", "duration_s": 1, "bytes": 10}])
    assert read == (AssetRow("a.png", None, None, None, 2, None),
                    AssetRow("b.wav", None, 10, None, None, 1.0))
    assert not read[0].is_png and rows(None) == ()


def test_the_text_line_is_terminal_safe():
    [row] = rows([{"path": "out/\x1b[31mred.wav", "sha256": "ab" * 32, "bytes": 2048,
                   "duration_s": 1.5}])
    line = text_line(row)
    assert "\x1b" not in line and "\\x1b" in line
    assert line.endswith("· 2,048 B · 1.500 s · sha256 abababababab…")


def test_shrink_is_an_exact_integer_box_average():
    pixels = np.arange(16, dtype=np.uint8).reshape(4, 4, 1) * 10
    assert shrink(pixels, 2)[..., 0].tolist() == [[25, 45], [105, 125]]
    wide = shrink(_noise(30, 300, 3), 100)
    assert wide.shape == (10, 100, 3)
    assert shrink(pixels, 8) is pixels  # never an upscale


def test_a_thumbnail_is_bounded_and_our_own_png(tmp_path):
    row = _row(tmp_path, "out/big.png", encode(_noise(600, 1000)), width=1000, height=600)
    uri = thumbnail(tmp_path, row)
    assert uri is not None and uri.startswith("data:image/png;base64,")
    png = base64.b64decode(uri.split(",", 1)[1])
    assert len(png) <= THUMB_MAX_BYTES
    pixels = decode(png)
    assert max(pixels.shape[:2]) <= THUMB_SIDE and pixels.shape[2] == 4
    assert png == encode(pixels)  # the bytes our writer spells, deterministic


def test_a_thumbnail_past_the_byte_cap_at_full_side_is_made_smaller(tmp_path):
    row = _row(tmp_path, "sq.png", encode(_noise(1000, 1000)), width=1000, height=1000)
    uri = thumbnail(tmp_path, row)
    assert uri is not None
    png = base64.b64decode(uri.split(",", 1)[1])
    assert decode(png).shape == (80, 80, 4) and len(png) <= THUMB_MAX_BYTES  # 160² would not fit


def test_a_png_past_the_view_budget_is_never_decoded(tmp_path):
    ihdr = struct.pack(">IIBBBBB", 5000, 4000, 8, 2, 0, 0, 0)
    header = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
              + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)))
    row = _row(tmp_path, "vast.png", header, width=5000, height=4000)
    assert thumbnail(tmp_path, row) is None  # 20 M pixels: refused from the header alone


def test_no_thumbnail_for_a_changed_missing_escaping_or_unreadable_file(tmp_path):
    base = tmp_path / "run"
    small = encode(np.zeros((4, 4, 3), np.uint8))
    row = _row(base, "a.png", small, width=4, height=4)
    assert thumbnail(base, row) is not None
    (base / "a.png").write_bytes(small + b"!")  # changed since the run recorded it
    assert thumbnail(base, row) is None
    (base / "a.png").unlink()
    assert thumbnail(base, row) is None
    outside = tmp_path / "secret.png"
    outside.write_bytes(small)
    (base / "link.png").symlink_to(outside)
    [link] = rows([{"path": "link.png", "sha256": hashlib.sha256(small).hexdigest(),
                    "width": 4, "height": 4}])
    assert thumbnail(base, link) is None
    garbage = _row(base, "g.png", b"\x89PNG\r\n\x1a\nnot really", width=4, height=4)
    assert thumbnail(base, garbage) is None
    wav = _row(base, "s.wav", b"RIFF....WAVE", duration_s=0.1)
    assert thumbnail(base, wav) is None


def test_the_section_lists_every_asset_escaped(tmp_path):
    png = _row(tmp_path, "p.png", encode(np.zeros((2, 2, 3), np.uint8)), width=2, height=2)
    [wav] = rows([{"path": "<b>s.wav", "sha256": "c" * 64, "bytes": 44, "duration_s": 0.25}])
    html = section([("draw", png), ("<i>say", wav)], tmp_path)
    assert html.count("<li>") == 2 and html.count("src='data:image/png;base64,") == 1
    assert "&lt;b&gt;s.wav" in html and "&lt;i&gt;say" in html and "0.250 s" in html
    assert section([], tmp_path) == "" and "data:" not in section([("draw", png)], None)


FLOW = """\
nika: assets
model: mock/echo
permits:
  tools: ["nika:image_fx", "nika:tts_generate"]
  fs: { read: ["in.png"], write: ["out/**"] }
tasks:
  draw:
    invoke:
      tool: nika:image_fx
      args: { input: in.png, out: out/gray.png, ops: [grayscale: {}] }
  say:
    invoke:
      tool: nika:tts_generate
      args: { provider: mock, text: "hello there", output_dir: out/speech, manifest: false }
"""


def ran_with_assets(base: Path) -> Path:
    """`base` after a real run whose tasks land a PNG and a WAV; its journal."""
    (base / "in.png").write_bytes(encode(_noise(300, 500, 3)))
    (base / "flow.nika.yaml").write_text(FLOW)
    done = subprocess.run([sys.executable, "-m", "nika.cli", "run", "flow.nika.yaml"],
                          cwd=base, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [journal] = (base / ".nika" / "traces").glob("*.ndjson")
    return journal


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("assets")
    ran_with_assets(base)
    return base


def _cli(base: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "nika.cli", "trace", *argv], cwd=base,
                          env=env, capture_output=True, text=True, timeout=60)


def test_trace_show_lists_each_tasks_assets(run_dir):
    [journal] = (run_dir / ".nika" / "traces").glob("*.ndjson")
    shown = _cli(run_dir, "show", str(journal))
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"asset out/gray\.png · [\d,]+ B · 500×300 · sha256 [0-9a-f]{12}…",
                     shown.stdout)
    assert re.search(r"asset out/speech/speech-mock-mock-tts-1-[0-9a-f]{8}\.wav · [\d,]+ B · "
                     r"0\.660 s", shown.stdout)


def test_the_page_shows_a_png_thumbnail_and_loads_nothing(run_dir):
    [journal] = (run_dir / ".nika" / "traces").glob("*.ndjson")
    written = _cli(run_dir, "show", str(journal), "--html", "page.html")
    assert written.returncode == 0, written.stderr
    page = (run_dir / "page.html").read_text()
    [csp] = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    # Widened by exactly `img-src data:`: every other source stays `default-src 'none'`.
    assert csp.startswith("default-src 'none';") and csp.endswith("; img-src data:")
    assert csp.removesuffix("; img-src data:").count("img-src") == 0
    section_html = page.split("<section id=assets>", 1)[1].split("</section>", 1)[0]
    [uri] = re.findall(r"src='data:image/png;base64,([^']*)'", section_html)
    assert len(base64.b64decode(uri)) <= THUMB_MAX_BYTES
    assert "out/speech/speech-mock-mock-tts-1-" in section_html and "in.png" not in section_html
    assert "file:" not in page and "<audio" not in page and "http://" not in page


def test_a_crafted_journal_gets_bounded_rows_and_thumbnails(tmp_path):
    png = encode(_noise(200, 200, 3))
    (tmp_path / "big.png").write_bytes(png)
    entry = {"path": "big.png", "sha256": hashlib.sha256(png).hexdigest(), "bytes": len(png),
             "width": 200, "height": 200}
    assert len(rows([entry] * 1000)) == MAX_ASSETS  # no run records more than it
    (tmp_path / ".nika" / "traces").mkdir(parents=True)
    journal = chained_journal(tmp_path / ".nika" / "traces" / "j.ndjson", [
        ("workflow_started", {"workflow": "w", "tasks": 40}),
        *(("task_completed", {"task": f"t{n}", "duration_ms": 1, "assets": [entry] * 1000})
          for n in range(40)),
        ("workflow_completed", {"state": "success"}),
    ])
    written = _cli(tmp_path, "show", str(journal), "--html", "page.html")
    assert written.returncode == 0, written.stderr
    page = (tmp_path / "page.html").read_text()
    section_html = page.split("<section id=assets>", 1)[1].split("</section>", 1)[0]
    assert section_html.count("<li>") == 40 * MAX_ASSETS
    assert section_html.count("<img class=thumb") == MAX_THUMBNAILS
    assert len(page) < 8 << 20
