"""`nika:tts_generate` against loopback servers speaking the real wires: OpenAI speech through
the official SDK (`local`, `openai`) and ElevenLabs text-to-speech through httpx2 — success,
error bodies, timeouts, oversize and hostile answers, transient retries, absent keys."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from nika.agent.seams import ToolFailure, ToolResult
from nika.tools.builtins import BuiltinExecutor

from ._speech_server import MP3, SpeechServer, Step, speech_server, wav

LOCAL_KEY = "sk-local-7f3a9c1e5b"
OPENAI_KEY = "sk-openai-2b8d4e6f0a"
ELEVEN_KEY = "xi-eleven-9c7e5a3b1d"
NIKA_KEY = "sk-nika-5e1f3a7c9b"
TTS = "nika:tts_generate"


@pytest.fixture
async def srv() -> AsyncIterator[SpeechServer]:
    async with speech_server() as server:
        yield server


@pytest.fixture
def slept() -> list[float]:
    return []


@pytest.fixture
def call(make: Callable[..., BuiltinExecutor], srv: SpeechServer, slept: list[float]):
    env = {
        "NIKA_TTS_LOCAL_URL": srv.base,
        "NIKA_TTS_LOCAL_API_KEY": LOCAL_KEY,
        "NIKA_OPENAI_BASE_URL": f"{srv.base}/v1",
        "OPENAI_API_KEY": OPENAI_KEY,
        "NIKA_ELEVENLABS_BASE_URL": srv.base,
        "ELEVENLABS_API_KEY": ELEVEN_KEY,
    }

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def run(provider: str, env_drop: tuple[str, ...] = (), max_file_bytes: int = 1 << 20,
                  env_add: dict[str, str] | None = None, **args: Any) -> ToolResult:
        engine = {k: v for k, v in env.items() if k not in env_drop} | (env_add or {})
        executor = make(engine_env=engine,
                        sleep=sleep, max_file_bytes=max_file_bytes)
        result = await executor.call(TTS, {"provider": provider, "text": "Hello there.",
                                           "output_dir": "out/audio", **args})
        for key in (LOCAL_KEY, OPENAI_KEY, ELEVEN_KEY, NIKA_KEY):  # no key in any output
            assert key not in repr(result)
        return result

    return run


def refused(result: ToolResult, code: str) -> ToolFailure:
    assert result.error is not None, result.structured
    assert result.error.code == f"NIKA-BUILTIN-TTS_GENERATE-{code}", result.error
    return result.error


def no_files(base: Path) -> None:
    out = base / "out"
    assert not out.exists() or not any(p.is_file() for p in out.rglob("*"))


async def test_local_speaks_the_openai_wire_with_its_key(call, srv: SpeechServer, base: Path):
    result = await call("local", speed=1.5)
    assert result.error is None, result.error
    out = result.structured
    assert out["endpoint_host"] == "127.0.0.1" and out["model"] == "tts-1"
    audio = out["audio"]
    data = (base / audio["path"]).read_bytes()
    assert data == wav(500) and audio["format"] == "wav" and audio["mime_type"] == "audio/wav"
    assert audio["duration_ms"] == 500 and audio["sha256"] == hashlib.sha256(data).hexdigest()
    assert audio["filename"].startswith("speech-local-tts-1-")
    [heard] = srv.heard
    assert (heard.method, heard.path) == ("POST", "/v1/audio/speech")
    assert heard.headers["authorization"] == f"Bearer {LOCAL_KEY}"
    assert heard.json == {"model": "tts-1", "voice": "alloy", "input": "Hello there.",
                          "speed": 1.5}
    assert out["warnings"] == [] and out["cost_usd"] is None  # no wire reports its price
    manifest = json.loads((base / out["manifest_path"]).read_text())
    assert manifest["resolved"] == {"provider": "local", "model": "tts-1", "voice": "alloy",
                                    "endpoint_host": "127.0.0.1"}
    assert manifest["request"]["speed"] == 1.5 and LOCAL_KEY not in json.dumps(manifest)


async def test_openai_mp3_has_an_honest_null_duration(call, srv: SpeechServer, base: Path):
    srv.script(Step(body=MP3, headers={"content-type": "audio/mpeg"}))
    out = (await call("openai", format="mp3", voice="nova")).structured
    assert out["audio"]["format"] == "mp3" and out["audio"]["duration_ms"] is None
    assert out["audio"]["path"].endswith(".mp3") and out["model"] == "gpt-4o-mini-tts"
    assert srv.heard[0].json["response_format"] == "mp3"
    assert srv.heard[0].headers["authorization"] == f"Bearer {OPENAI_KEY}"


async def test_the_bytes_decide_the_extension_not_the_ask(call, srv: SpeechServer):
    srv.script(Step(body=MP3, headers={"content-type": "audio/wav"}))
    out = (await call("openai", format="wav")).structured
    assert out["audio"]["format"] == "mp3"
    assert out["warnings"] == ["format_mismatch: asked for wav, openai sent mp3; saved as .mp3"]


async def test_elevenlabs_speaks_its_own_wire(call, srv: SpeechServer, base: Path):
    srv.script(Step(body=MP3, headers={"content-type": "audio/mpeg"}))
    out = (await call("elevenlabs", speed=1.1)).structured
    [heard] = srv.heard
    assert heard.path == "/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=mp3_44100_128"
    assert heard.headers["xi-api-key"] == ELEVEN_KEY and "authorization" not in heard.headers
    assert heard.json == {"text": "Hello there.", "model_id": "eleven_multilingual_v2",
                          "voice_settings": {"speed": 1.1}}
    assert (base / out["audio"]["path"]).read_bytes() == MP3


async def test_elevenlabs_wav_is_asked_for_by_its_output_format(call, srv, base):
    out = (await call("elevenlabs", format="wav")).structured
    assert srv.heard[0].path.endswith("?output_format=wav_24000")
    assert out["audio"]["format"] == "wav" and out["audio"]["duration_ms"] == 500


async def test_elevenlabs_speed_outside_its_range_is_warned_and_dropped(call, srv):
    srv.script(Step(body=MP3))
    out = (await call("elevenlabs", speed=3.0)).structured
    assert "voice_settings" not in srv.heard[0].json
    assert out["warnings"][0].startswith("speed_unsupported: elevenlabs speaks at 0.7–1.2")


async def test_an_elevenlabs_voice_is_held_to_its_alphabet(call, srv):
    for voice in ("a-b", "x_y"):
        assert "ElevenLabs voice id" in refused(await call("elevenlabs", voice=voice), "001").detail
    assert srv.heard == []


async def test_a_reflected_bearer_is_scrubbed_from_the_error(call, srv, base):
    body = json.dumps({"error": {"message": f"bad token: Authorization: Bearer {LOCAL_KEY}"}})
    srv.script(Step(status=401, body=body.encode()))
    failure = refused(await call("local"), "003")
    assert not failure.transient and "HTTP 401" in failure.detail and "bad token" in failure.detail
    assert len(srv.heard) == 1  # a 401 is not retried
    no_files(base)


async def test_an_elevenlabs_error_body_is_quoted_scrubbed(call, srv):
    detail = {"detail": {"status": "invalid_api_key",
                         "message": f"Invalid API key xi-api-key={ELEVEN_KEY}"}}
    srv.script(Step(status=401, body=json.dumps(detail).encode()))
    failure = refused(await call("elevenlabs"), "003")
    assert "invalid_api_key" in failure.detail and "••••••" in failure.detail


async def test_a_content_policy_refusal_is_005_never_transient(call, srv):
    body = {"error": {"code": "content_policy_violation", "message": "flagged"}}
    srv.script(Step(status=400, body=json.dumps(body).encode()))
    failure = refused(await call("openai"), "005")
    assert failure.category == "security_error" and not failure.transient


async def test_429_then_success_is_retried_once(call, srv, slept):
    srv.script(Step(status=429, body=b'{"error": {"message": "slow down"}}'))
    result = await call("openai")
    assert result.error is None and len(srv.heard) == 2 and len(slept) == 1


@pytest.mark.parametrize("provider", ["openai", "elevenlabs"])
async def test_a_retry_after_is_honoured_up_to_its_cap(call, srv, slept, provider):
    srv.script(Step(status=429, headers={"retry-after": "7"}),
               Step(status=503, headers={"retry-after": "900"}))
    result = await call(provider)
    assert result.error is None and len(srv.heard) == 3 and slept == [7.0, 30.0]


async def test_5xx_every_time_is_a_transient_003_after_three_tries(call, srv, slept):
    srv.script(*[Step(status=503, body=b"busy")] * 3)
    failure = refused(await call("elevenlabs"), "003")
    assert failure.transient and len(srv.heard) == 3 and len(slept) == 2


@pytest.mark.parametrize("provider", ["openai", "elevenlabs"])
async def test_a_body_cut_short_is_a_transient_003_retried(call, srv, base, slept, provider):
    srv.script(Step(kind="cut"))
    result = await call(provider)
    assert result.error is None and len(srv.heard) == 2 and len(slept) == 1


@pytest.mark.parametrize("provider", ["local", "elevenlabs"])
async def test_nobody_listening_is_a_transient_003(call, make, base, slept, provider):
    closed = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = closed.sockets[0].getsockname()[1]
    closed.close()
    await closed.wait_closed()
    url = f"http://127.0.0.1:{port}"
    failure = refused(await call(provider, env_add={"NIKA_TTS_LOCAL_URL": url,
                                                   "NIKA_ELEVENLABS_BASE_URL": url}), "003")
    reached = "could not be reached" if provider == "local" else "connection failed"
    assert failure.transient and reached in failure.detail
    assert len(slept) == 2  # three tries
    no_files(base)


async def test_a_silent_server_is_a_transient_timeout(call, srv, base):
    srv.script(Step(kind="hang"))
    started = time.monotonic()
    failure = refused(await call("local", timeout_ms=400), "003")
    assert failure.transient and "timeout_ms" in failure.detail
    assert time.monotonic() - started < 30  # bounded by the deadline, not by the server
    no_files(base)


async def test_a_payload_past_the_cap_is_007_and_writes_nothing(call, srv, base):
    failure = refused(await call("local", max_file_bytes=1000), "007")
    assert "1000-byte cap" in failure.detail
    no_files(base)


@pytest.mark.parametrize("provider", ["local", "elevenlabs"])
async def test_a_2gb_announcement_is_refused_before_reading(call, srv, base, provider):
    srv.script(Step(kind="announce"))
    failure = refused(await call(provider, timeout_ms=20_000), "007")
    assert "announced 2147483648 bytes" in failure.detail
    no_files(base)


@pytest.mark.parametrize("provider", ["openai", "elevenlabs"])
async def test_a_never_ending_body_stops_at_the_cap(call, srv, base, provider):
    srv.script(Step(kind="endless"))
    failure = refused(await call(provider, timeout_ms=20_000), "007")
    assert "more than the 1048576-byte cap" in failure.detail
    no_files(base)


@pytest.mark.parametrize("provider", ["openai", "elevenlabs"])
async def test_a_never_ending_error_body_is_cut_and_quoted_bounded(call, srv, base, provider):
    srv.script(Step(kind="endless", status=400))
    failure = refused(await call(provider, timeout_ms=20_000), "003")
    assert "HTTP 400" in failure.detail and len(failure.detail) < 600 and not failure.transient
    assert len(srv.heard) == 1
    no_files(base)


@pytest.mark.parametrize("provider", ["local", "elevenlabs"])
async def test_a_redirect_is_never_followed(call, srv, base, provider):
    srv.script(Step(status=302, headers={"location": f"{srv.base}/elsewhere"}))
    failure = refused(await call(provider), "003")
    assert "redirect" in failure.detail and not failure.transient
    assert srv.connections == 1 and len(srv.heard) == 1
    no_files(base)


@pytest.mark.parametrize(("body", "code"), [(b"<html>no</html>", "007"), (b"", "004")])
async def test_a_payload_that_is_not_audio_is_refused(call, srv, base, body, code):
    srv.script(Step(body=body))
    refused(await call("local"), code)
    no_files(base)


@pytest.mark.parametrize(("provider", "drop"), [
    ("openai", ("OPENAI_API_KEY",)), ("elevenlabs", ("ELEVENLABS_API_KEY",)),
])
async def test_an_absent_key_is_002_before_any_request(call, srv, provider, drop):
    failure = refused(await call(provider, env_drop=drop), "002")
    assert drop[0] in failure.detail and "never a workflow arg" in failure.detail
    assert srv.heard == []


@pytest.mark.parametrize(("provider", "var", "header"), [
    ("openai", "NIKA_OPENAI_API_KEY", "authorization"),
    ("elevenlabs", "NIKA_ELEVENLABS_API_KEY", "xi-api-key"),
])
async def test_the_nika_key_is_read_before_the_vendors(call, srv, provider, var, header):
    srv.script(Step(body=MP3))
    assert (await call(provider, env_add={var: NIKA_KEY})).error is None
    assert srv.heard[0].headers[header].endswith(NIKA_KEY)


async def test_a_keyless_local_server_is_fine(call, srv):
    result = await call("local", env_drop=("NIKA_TTS_LOCAL_API_KEY",))
    assert result.error is None and LOCAL_KEY not in repr(srv.heard)


async def test_a_call_is_cancellable(call, srv, base):
    srv.script(Step(kind="hang"))
    task = asyncio.create_task(call("local"))
    while not srv.heard:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    no_files(base)


@pytest.mark.parametrize(("args", "refused_path"), [
    ({}, ".manifest.json"),  # the manifest is judged before the provider is paid
    ({"manifest": False, "format": "mp3"}, ".mp3"),  # so is an asked-for format
])
async def test_a_path_the_permits_refuse_is_refused_before_the_speech_is_paid(
    make, srv: SpeechServer, base: Path, args: dict[str, Any], refused_path: str
):
    from nika.check.judge import PermitJudge

    executor = make(judge=PermitJudge.from_permits({"fs": {"write": ["out/audio/*.wav"]}}),
                    engine_env={"NIKA_TTS_LOCAL_URL": srv.base})
    result = await executor.call(TTS, {"provider": "local", "text": "Hello there.",
                                       "output_dir": "out/audio", **args})
    assert result.error is not None and result.error.code == "NIKA-SEC-004", result.error
    assert refused_path in result.error.detail
    assert srv.heard == []
    no_files(base)
    allowed = await executor.call(TTS, {"provider": "local", "text": "Hello there.",
                                        "output_dir": "out/audio", "manifest": False,
                                        "format": "wav"})
    assert allowed.error is None and len(srv.heard) == 1
