"""A real local voice end to end: Debian's `espeak-ng` behind the OpenAI-speech shim
(`_espeak_shim.py`), reached by `provider: local` through `NIKA_TTS_LOCAL_URL` — from the
builtin, and from `nika run` on the spec's `17-tts-self` flipped to `local`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import wave
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nika.tools.builtins import BuiltinExecutor

ROOT = Path(__file__).resolve().parents[3]
SHIM = Path(__file__).with_name("_espeak_shim.py")
EXAMPLE = ROOT.parents[1] / "shared" / "nika-spec" / "examples" / "17-tts-self.nika.yaml"
if not EXAMPLE.is_file():  # the worktree sits at /work/wt/<name>, the main repo at /work/main
    EXAMPLE = Path("/work/shared/nika-spec/examples/17-tts-self.nika.yaml")


@pytest.fixture(scope="module")
def shim() -> Iterator[str]:
    """The shim's base URL; the child is terminated and reaped after the module."""
    child = subprocess.Popen([sys.executable, str(SHIM)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()  # the shim prints its port first, flushed
        assert line.startswith("port "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        child.terminate()
        child.wait(timeout=10)
        if child.stdout is not None:
            child.stdout.close()


def _wav_ms(path: Path) -> tuple[int, int]:
    with wave.open(str(path)) as speech:
        return speech.getnframes(), speech.getframerate()


async def test_espeak_speaks_a_real_wav_with_its_exact_duration(
    make: Callable[..., BuiltinExecutor], base: Path, shim: str
):
    executor = make(engine_env={"NIKA_TTS_LOCAL_URL": shim})
    slow = await executor.call("nika:tts_generate", {
        "provider": "local", "text": "The launch is live. Thank you all.",
        "output_dir": "out/voice", "speed": 0.5,
    })
    fast = await executor.call("nika:tts_generate", {
        "provider": "local", "text": "The launch is live. Thank you all.",
        "output_dir": "out/voice", "speed": 2.0,
    })
    assert slow.error is None and fast.error is None, (slow.error, fast.error)
    for out in (slow.structured, fast.structured):
        audio = out["audio"]
        frames, rate = _wav_ms(base / audio["path"])
        assert audio["format"] == "wav" and frames > 0
        assert audio["duration_ms"] == (frames * 1000 + rate // 2) // rate
        assert out["endpoint_host"] == "127.0.0.1"
    # The wire's `speed` reached the voice: half speed speaks longer than double speed.
    assert slow.structured["audio"]["duration_ms"] > 2 * fast.structured["audio"]["duration_ms"]


def test_nika_run_speaks_the_example_through_the_local_voice(tmp_path: Path, shim: str):
    text = EXAMPLE.read_text()
    flipped = text.replace("\n        provider: mock\n", "\n        provider: local\n").replace(
        'with.shot.provider == "mock"', 'with.shot.provider == "local"')
    assert flipped.count('"local"') == 1 and flipped.count("\n        provider: local\n") == 1
    (tmp_path / "17-tts-local.nika.yaml").write_text(flipped)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NIKA_TTS_LOCAL_URL": shim}
    done = subprocess.run(
        [sys.executable, "-m", "nika.cli", "run", "17-tts-local.nika.yaml", "--report",
         "report.json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    audio = report["outputs"]["audio"]
    frames, rate = _wav_ms(tmp_path / audio["path"])
    assert audio["duration_ms"] == (frames * 1000 + rate // 2) // rate > 200
    assert audio["filename"].startswith("hello-local-tts-1-")
