"""The speech providers of `nika:tts_generate` beyond `mock`: where each one lives, which key
it takes, its defaults, and the one policy every request runs under (stdlib §Audio).

Endpoints and keys are ENGINE configuration, read from the engine environment the composition
root hands the builtins (`Context.engine_env`), never from workflow args or `secrets:`:

- `local`: `NIKA_TTS_LOCAL_URL` (default `http://localhost:8080`), key
  `NIKA_TTS_LOCAL_API_KEY` (optional: many self-hosted servers take none);
- `openai`: `NIKA_OPENAI_BASE_URL` (default `https://api.openai.com/v1`), key
  `NIKA_OPENAI_API_KEY`, else `OPENAI_API_KEY` (the order `infer:` reads them in);
- `elevenlabs`: `NIKA_ELEVENLABS_BASE_URL` (default `https://api.elevenlabs.io`), key
  `NIKA_ELEVENLABS_API_KEY`, else `ELEVENLABS_API_KEY`.

Every request is bounded by the call's `timeout_ms` as ONE deadline over all its attempts,
retried (with the one backoff formula) only when the failure is transient — HTTP 5xx, 408,
429, a timeout or a lost connection — and a key never reaches an error: the error body a
server sends back is quoted clamped, with every key and bearer token scrubbed out.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from nika import codes
from nika._term import printable
from nika.errors import NikaError
from nika.masking import MASK
from nika.tools.builtins import _provider_wire as wire
from nika.tools.builtins._base import Context, fail
from nika.tools.builtins._tts_wire import SpeechCall, WireError, elevenlabs_speech, openai_speech

TTS_002 = codes.BUILTIN_TTS_GENERATE_002
TTS_003 = codes.BUILTIN_TTS_GENERATE_003
TTS_005 = codes.BUILTIN_TTS_GENERATE_005
TTS_007 = codes.BUILTIN_TTS_GENERATE_007

_RETRY: Final = wire.RetryPolicy(attempts=3, base_s=0.5, cap_s=4.0, retry_after_cap_s=30.0)
"""A server's own `Retry-After` is honoured up to 30 s; the call's deadline still bounds all."""
_QUOTED: Final = 300
_BEARER: Final = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+")
_KEYISH: Final = re.compile(r"(?i)(\"?(?:xi-api-key|api[_-]?key|authorization)\"?\s*[:=]\s*\"?)"
                            r"[^\s\",}]+")
_POLICY: Final = re.compile(r"(?i)content[_ ]policy|moderation|safety|flagged|against_policy")
_ELEVEN_VOICE: Final = re.compile(r"[A-Za-z0-9]{1,64}")
_ELEVEN_FORMATS: Final = {"mp3": "mp3_44100_128", "wav": "wav_24000", "auto": "mp3_44100_128"}
"""`format:` → ElevenLabs' `output_format` (WAV at 24 kHz: 44.1 kHz WAV is a paid-tier knob)."""


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """One provider's engine-side facts: base URL variable and default, key variables (the
    first set wins) and whether one is required, model and voice defaults, and the default
    `timeout_ms`."""

    url_var: str
    default_url: str
    key_vars: tuple[str, ...]
    key_required: bool
    model: str
    voice: str
    timeout_ms: int


PROVIDERS: Final[dict[str, ProviderConfig]] = {
    "local": ProviderConfig("NIKA_TTS_LOCAL_URL", "http://localhost:8080",
                            ("NIKA_TTS_LOCAL_API_KEY",), False, "tts-1", "alloy", 300_000),
    "openai": ProviderConfig("NIKA_OPENAI_BASE_URL", "https://api.openai.com/v1",
                             ("NIKA_OPENAI_API_KEY", "OPENAI_API_KEY"), True,
                             "gpt-4o-mini-tts", "alloy", 120_000),
    "elevenlabs": ProviderConfig("NIKA_ELEVENLABS_BASE_URL", "https://api.elevenlabs.io",
                                 ("NIKA_ELEVENLABS_API_KEY", "ELEVENLABS_API_KEY"), True,
                                 "eleven_multilingual_v2", "21m00Tcm4TlvDq8ikWAM", 120_000),
}
"""The network providers (`mock` is the builtin's own)."""

ELEVEN_SPEED: Final = (0.7, 1.2)
"""The speed range ElevenLabs' `voice_settings.speed` accepts; outside it the knob is dropped."""


@dataclass(frozen=True, slots=True)
class Spoken:
    """What a provider sent back: the raw audio and the host that rendered it."""

    payload: bytes
    endpoint_host: str


def base_url(provider: str, env: Mapping[str, str]) -> str:
    """The provider's base URL from the engine environment (its documented default else);
    `local` gets the `/v1` the OpenAI speech wire sits under."""
    config = PROVIDERS[provider]
    url = (env.get(config.url_var) or config.default_url).rstrip("/")
    return f"{url}/v1" if provider == "local" and not url.endswith("/v1") else url


def _key(provider: str, ctx: Context) -> str | None:
    config = PROVIDERS[provider]
    key = next((ctx.engine_env[v] for v in config.key_vars if ctx.engine_env.get(v)), None)
    if key is None and config.key_required:
        names = " or ".join(f"`{v}`" for v in config.key_vars)
        raise fail(TTS_002, f"provider {provider!r} needs an API key: set {names} in the "
                   "environment `nika run` starts in (a key is engine configuration, never a "
                   "workflow arg or `secrets:`)", provider=provider)
    return key


def elevenlabs_voice(voice: str) -> str:
    """An ElevenLabs voice id, which lands in the URL path: letters and digits only."""
    if _ELEVEN_VOICE.fullmatch(voice) is None:
        raise fail(codes.BUILTIN_TTS_GENERATE_001,
                   f"`voice: {voice!r}` is not an ElevenLabs voice id (letters and digits, "
                   "e.g. 21m00Tcm4TlvDq8ikWAM)", arg="voice")
    return voice


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every key literal, bearer token and key-shaped field value masked."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= 4:
            text = text.replace(secret, MASK)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)
    return _KEYISH.sub(lambda m: f"{m.group(1)}{MASK}", text)


def _translate(err: WireError, provider: str, host: str, secrets: tuple[str, ...]) -> NikaError:
    quoted = printable(" ".join(scrub(err.body, secrets).split()))[:_QUOTED]
    said = f"; it said: «{quoted}»" if quoted else ""
    details = {"provider": provider, "host": host, "status": err.status}
    if err.oversize:
        return fail(TTS_007, f"{provider} at {host}: {err.reason}; no file was written — "
                    "shorten the text or check the server", **details)
    if err.status is not None and err.status < 500 and _POLICY.search(err.body):
        return NikaError(TTS_005, f"{provider} refused the text on content policy (HTTP "
                         f"{err.status}){said}; rephrase the text", details=details)
    fix = ("retry later or raise `timeout_ms:`" if err.transient
           else "check the provider's base URL, key and the call's voice and model")
    return NikaError(TTS_003, f"{provider} at {host}: {err.reason}{said}; {fix}",
                     transient=err.transient, details=details)


def _judge(err: Exception) -> float | None:
    if isinstance(err, WireError) and err.transient:
        return err.retry_after or 0.0
    return None


async def speak(provider: str, *, model: str, voice: str, text: str, fmt: str,
                speed: float | None, timeout_ms: int, ctx: Context) -> Spoken:
    """Synthesize on `provider` under the one policy: one deadline, transient-only retries."""
    url = base_url(provider, ctx.engine_env)
    host = urlsplit(url).hostname or url
    key = _key(provider, ctx)
    secrets = tuple(ctx.engine_env[v] for c in PROVIDERS.values() for v in c.key_vars
                    if ctx.engine_env.get(v))
    call = SpeechCall(base_url=url, key=key, model=model, voice=voice, text=text,
                      response_format=None if fmt == "auto" else fmt, speed=speed,
                      timeout_s=timeout_ms / 1000, cap=ctx.max_file_bytes)

    async def attempt() -> bytes:
        if provider == "elevenlabs":
            return await elevenlabs_speech(call, _ELEVEN_FORMATS[fmt])
        return await openai_speech(call)

    try:
        async with asyncio.timeout(timeout_ms / 1000):
            return Spoken(await wire.retried(attempt, policy=_RETRY, judge=_judge,
                                             sleep=ctx.sleep), host)
    except WireError as err:
        raise _translate(err, provider, host, secrets) from None
    except TimeoutError:
        pass
    raise NikaError(TTS_003, f"{provider} at {host} did not finish within `timeout_ms: "
                    f"{timeout_ms}`; retry later or raise `timeout_ms:` (max 600000)",
                    transient=True, details={"provider": provider, "host": host})
