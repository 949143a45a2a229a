"""`nika.journal.assets`: which files a task's output names are its assets, and what the
terminal frame records of each — then a real run's journal carrying them."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np

from nika.journal.assets import (
    MAX_ASSET_BYTES,
    MAX_ASSETS,
    collect,
    may_name_files,
    since,
    task_assets,
    within,
)
from nika.journal.decoded import ReadTaskEnded
from nika.journal.records import TaskRecord
from nika.journal.verify import read_frames
from nika.media.png import encode

ROOT = Path(__file__).resolve().parents[2]
LATER = time.time_ns() + 10**12  # a task that "started" after every file here was written


def _wav(ms: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\0\0" * (8 * ms))
    return buffer.getvalue()


def _put(base: Path, rel: str, data: bytes) -> str:
    path = base / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def test_a_described_file_is_an_asset_even_when_an_idempotent_rerun_wrote_nothing(tmp_path):
    digest = _put(tmp_path, "out/a.wav", _wav(1250))
    output = {"audio": {"path": "out/a.wav", "sha256": digest}, "note": "done"}
    assert collect(output, tmp_path, since_ns=LATER) == (
        {"path": "out/a.wav", "sha256": digest, "bytes": 20044, "duration_s": 1.25},)


def test_a_file_described_as_other_bytes_is_not_this_tasks(tmp_path):
    _put(tmp_path, "out/a.wav", _wav(10))
    assert collect({"path": "out/a.wav", "sha256": "0" * 64}, tmp_path, since_ns=LATER) == ()
    # An input named beside the output it became, both fresh: only the output is an asset.
    _put(tmp_path, "in.png", b"source")
    digest = _put(tmp_path, "out.png", b"result")
    found = collect({"input": "in.png", "path": "out.png", "sha256": digest}, tmp_path,
                    since_ns=0)
    assert [a["path"] for a in found] == ["out.png"]


def test_a_file_written_since_the_task_started_is_an_asset(tmp_path):
    started = since(time.time_ns())
    pixels = np.zeros((3, 5, 3), np.uint8)
    digest = _put(tmp_path, "img/p.png", encode(pixels))
    _put(tmp_path, "old.txt", b"x")
    os.utime(tmp_path / "old.txt", ns=(0, 0))
    found = collect(["img/p.png", "old.txt", {"k": ["./img/p.png"]}], tmp_path, since_ns=started)
    assert found == ({"path": "img/p.png", "sha256": digest, "bytes": len(encode(pixels)),
                      "width": 5, "height": 3},)


def test_nothing_outside_the_run_directory_is_recorded(tmp_path):
    base = tmp_path / "run"
    base.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    (base / "link").symlink_to(secret)
    (base / "dir").mkdir()
    output = ["../secret.txt", str(secret), "link", "dir", "https://example.com/x", "a\nb",
              "x" * 5000, "", "missing.wav", 42, None]
    assert collect(output, base, since_ns=0) == ()
    assert within(base, "link") is None and within(base, "../secret.txt") is None


def test_the_walk_and_the_list_are_bounded_and_sorted(tmp_path):
    names = [f"out/{i:02d}.bin" for i in range(MAX_ASSETS + 4)]
    for name in names:
        _put(tmp_path, name, name.encode())
    found = collect(list(reversed(names)), tmp_path, since_ns=0)
    assert [a["path"] for a in found] == names[:MAX_ASSETS]
    deep: object = "out/00.bin"
    for _ in range(20_000):  # deeper than the walk goes: never reached, never a crash
        deep = [deep]
    assert collect(deep, tmp_path, since_ns=0) == ()


def test_a_file_past_the_size_cap_is_not_read(tmp_path):
    with open(tmp_path / "huge.bin", "wb") as sparse:
        sparse.truncate(MAX_ASSET_BYTES + 1)
    assert collect("huge.bin", tmp_path, since_ns=0) == ()


def test_the_bytes_read_for_one_task_are_bounded(tmp_path):
    for name in ("a.bin", "b.bin", "c.bin"):
        with open(tmp_path / name, "wb") as sparse:
            sparse.truncate(MAX_ASSET_BYTES // 2 - 1)
    found = collect(["a.bin", "b.bin", "c.bin"], tmp_path, since_ns=0)
    assert [a["path"] for a in found] == ["a.bin", "b.bin"]  # the third would pass the cap


def test_only_a_success_with_assets_records_any(tmp_path):
    digest = _put(tmp_path, "a.bin", b"a")
    output = {"path": "a.bin", "sha256": digest}
    assert task_assets(TaskRecord("t", "success", output=output), tmp_path) == (
        {"path": "a.bin", "sha256": digest, "bytes": 1},)
    assert task_assets(TaskRecord("t", "failure", output=output), tmp_path) is None
    assert task_assets(TaskRecord("t", "success", output={"n": 1}), tmp_path) is None


def test_a_real_run_records_the_speech_file_in_its_terminal_frame(tmp_path):
    flow = Path("/work/shared/nika-spec/examples/17-tts-self.nika.yaml")
    (tmp_path / "tts.nika.yaml").write_text(flow.read_text())
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-m", "nika.cli", "run", "tts.nika.yaml"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    ended = {f.task: f.read() for f in read_frames(journal.read_bytes())
             if f.kind == "task_completed"}
    speak, compiled = ended["speak"], ended["compiled"]
    assert isinstance(speak, ReadTaskEnded) and isinstance(compiled, ReadTaskEnded)
    assert speak.assets is not None and compiled.assets is None
    manifest, asset = speak.assets  # the speech (described) and its manifest (written)
    assert manifest["path"].endswith(".manifest.json") and "duration_s" not in manifest
    data = (tmp_path / asset["path"]).read_bytes()
    assert asset["path"].startswith("out/speech/hello-mock-mock-tts-1-")
    assert asset["sha256"] == hashlib.sha256(data).hexdigest() and asset["bytes"] == len(data)
    assert asset["duration_s"] == 0.3  # the mock speaks 60 ms a character, 200 ms at least
    verified = subprocess.run([sys.executable, "-m", "nika.cli", "trace", "verify",
                               str(journal)], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_only_an_output_that_could_name_a_file_goes_looking(tmp_path: Path) -> None:
    def record(status: str, output: object) -> TaskRecord:
        return TaskRecord.settle("t", status, output=output)  # type: ignore[arg-type]

    (tmp_path / "out.png").write_bytes(encode(np.zeros((2, 2, 3), dtype=np.uint8)))
    named = record("success", {"image": {"path": "out.png"}})
    assert may_name_files(named)
    # A multi-line reply, a URL, numbers, no output or a failure: nothing to look at, and
    # task_assets agrees (it would find nothing either).
    for quiet in (record("success", "line one\nline two"), record("success", "https://x.io/a"),
                  record("success", {"n": 3, "ok": True}), record("success", None),
                  record("failure", {"path": "out.png"})):
        assert not may_name_files(quiet)
        assert task_assets(quiet, tmp_path) is None
