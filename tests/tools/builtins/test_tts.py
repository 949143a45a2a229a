"""`nika:tts_generate` with the mock provider: a real, deterministic WAV under output_dir."""

from __future__ import annotations

import hashlib
import io
import json
import wave
from collections.abc import Callable
from pathlib import Path

from nika.agent.seams import ToolFailure, ToolResult
from nika.tools.builtins import BuiltinExecutor

ARGS = {"provider": "mock", "text": "hello", "output_dir": "out/speech"}


def refusal(result: ToolResult) -> ToolFailure:
    assert result.error is not None, result
    return result.error


async def test_mock_speech_is_a_real_wav_described_never_carried(
    make: Callable[..., BuiltinExecutor], base: Path
):
    result = await make().call("nika:tts_generate", {**ARGS, "metadata": {"page_slug": "Hi!"}})
    assert result.error is None
    out = result.structured
    audio = out["audio"]
    assert audio["filename"].startswith("hi-mock-mock-tts-1-") and audio["format"] == "wav"
    data = (base / audio["path"]).read_bytes()
    assert audio["size_bytes"] == len(data) and audio["sha256"] == hashlib.sha256(data).hexdigest()
    with wave.open(io.BytesIO(data)) as speech:
        frames, rate = speech.getnframes(), speech.getframerate()
    assert audio["duration_ms"] == frames * 1000 // rate > 0
    manifest = json.loads((base / out["manifest_path"]).read_text())
    assert manifest["manifest_version"] == 1 and manifest["audio"]["sha256"] == audio["sha256"]
    assert out["cost_usd"] == 0 and manifest["resolved"]["endpoint_host"] is None
    assert "hello" not in json.dumps(out)  # neither the bytes nor the text ride the output


async def test_the_same_request_lands_the_same_file_once(
    make: Callable[..., BuiltinExecutor], base: Path
):
    first = (await make().call("nika:tts_generate", ARGS)).structured
    second = (await make().call("nika:tts_generate", ARGS)).structured
    assert first["audio"] == second["audio"]
    assert len(list((base / "out/speech").glob("*.wav"))) == 1


async def test_every_path_is_judged_before_any_io(make, judge, base: Path):
    judge.refuse_prefixes = ("out/",)
    result = await make().call("nika:tts_generate", ARGS)
    assert refusal(result).code == "NIKA-SEC-004"
    assert not (base / "out").exists()


async def test_every_provider_is_served_and_says_what_it_needs(make):
    # No key in the (empty) engine environment: the provider is served, and says what it needs.
    for args in ({**ARGS, "provider": "openai"}, {"text": "x", "output_dir": "o",
                                                  "model": "eleven_multilingual_v2"}):
        refused = refusal(await make().call("nika:tts_generate", args))
        assert refused.code == "NIKA-BUILTIN-TTS_GENERATE-002" and "API key" in refused.detail


async def test_a_model_no_provider_is_inferred_from_is_001(make):
    args = {"text": "x", "output_dir": "o", "model": "kokoro"}
    refused = refusal(await make().call("nika:tts_generate", args))
    assert refused.code == "NIKA-BUILTIN-TTS_GENERATE-001" and "kokoro" in refused.detail


async def test_mock_warns_what_it_drops(make):
    out = (await make().call("nika:tts_generate", {**ARGS, "format": "mp3", "speed": 2})).structured
    assert out["warnings"] == [
        "speed_unsupported: the mock provider has no speed knob; dropped",
        "format_mismatch: asked for mp3, mock sent wav; saved as .wav",
    ]


async def test_bad_arguments_are_tts_001(make):
    for args in ({**ARGS, "voice": "../etc"}, {**ARGS, "text": ""},
                 {"text": "x", "output_dir": "o"}):
        assert refusal(await make().call("nika:tts_generate", args)).code == (
            "NIKA-BUILTIN-TTS_GENERATE-001"
        )


async def test_an_identical_re_run_leaves_the_landed_file_untouched(
    make: Callable[..., BuiltinExecutor], base: Path
):
    first = (await make().call("nika:tts_generate", ARGS)).structured
    landed = base / first["audio"]["path"]
    before = landed.stat()
    again = await make().call("nika:tts_generate", ARGS)
    assert again.error is None and again.structured["audio"] == first["audio"]
    after = landed.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


async def test_a_directory_at_the_audio_name_is_006_and_left_alone(
    make: Callable[..., BuiltinExecutor], base: Path
):
    first = (await make().call("nika:tts_generate", ARGS)).structured
    landed = base / first["audio"]["path"]
    landed.unlink()
    landed.mkdir()
    failure = refusal(await make().call("nika:tts_generate", ARGS))
    assert failure.code == "NIKA-BUILTIN-TTS_GENERATE-006"
    assert first["audio"]["filename"] in failure.detail and "a directory" in failure.detail
    assert landed.is_dir() and list(landed.iterdir()) == []
