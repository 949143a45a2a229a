"""`nika:tts_generate` — speech synthesis, served here for `provider: mock` (stdlib §Audio).

The mock provider speaks a real, deterministic WAV (a sine tone whose length follows the
text): zero network, zero keys, the same bytes for the same request. ONE audio file lands
under `output_dir:` — judged against `permits.fs.write` per final path before any I/O,
written atomically, named `{stem}-{provider}-{model}-{sha8}.wav` so an identical re-run is
idempotent — plus a provenance manifest beside it. The output describes the file; audio
bytes never ride outputs. Other providers are valid Nika this engine does not serve
(`NIKA-IMPL-002`, which the run's pre-flight raises first when the provider is literal).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import sys
from array import array
from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.check.capability import CODE as UNSERVED_CODE
from nika.check.capability import SERVED_PROVIDERS, call_provider, refusal_detail
from nika.stdlib.media import TTS_GENERATE, TTS_PROVIDERS
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import write_bytes
from nika.tools.builtins._paths import judged
from nika.tools.builtins.date import iso

TTS_001 = codes.BUILTIN_TTS_GENERATE_001
TTS_006 = codes.BUILTIN_TTS_GENERATE_006
_NAME: Final = "nika:tts_generate"
_MOCK_MODEL: Final = "mock-tts-1"
_SLUG: Final = re.compile(r"[^a-z0-9._-]+")
_RATE: Final = 16_000
_MS_PER_CHAR: Final = 60
_MAX_MS: Final = 30_000


def _provider(args: Mapping[str, Any]) -> str:
    provider = call_provider(_NAME, args)
    if provider is None:
        raise fail(TTS_001, "name a `provider:` (local, openai, elevenlabs or mock); it cannot "
                   f"be inferred from `model: {args.get('model')!r}`", arg="provider")
    if provider not in TTS_PROVIDERS:  # inferred from `model:`; a written one was judged
        raise fail(TTS_001, f"`provider: {provider!r}` is not one of {', '.join(TTS_PROVIDERS)}",
                   arg="provider")
    if provider not in SERVED_PROVIDERS[_NAME]:
        why = f"{_NAME} is served here for provider mock only, not {provider!r}"
        raise fail(UNSERVED_CODE, refusal_detail(why), tool=_NAME, provider=provider)
    return str(provider)


def _slug(text: str, fallback: str) -> str:
    slug = _SLUG.sub("-", text.lower()).strip("-.")
    return slug[:64] or fallback


def _tone(text: str, voice: str) -> tuple[bytes, int]:
    """A 16-bit mono WAV of a sine tone (its pitch from the voice, its length from the text)
    and its exact duration in milliseconds."""
    import wave  # only a speech task pays for it

    duration_ms = min(max(len(text) * _MS_PER_CHAR, 200), _MAX_MS)
    pitch = 440.0 if voice == "sine" else 220.0 + hashlib.sha256(voice.encode()).digest()[0]
    frames = _RATE * duration_ms // 1000
    step = 2 * math.pi * pitch / _RATE
    samples = array("h", (round(8000 * math.sin(step * n)) for n in range(frames)))
    if sys.byteorder == "big":
        samples.byteswap()  # WAV is little-endian
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(_RATE)
        out.writeframes(samples.tobytes())
    return buffer.getvalue(), duration_ms


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """Synthesize `text`, save it under `output_dir:`, and describe what landed."""
    provider = _provider(args)
    text, voice = args["text"], args.get("voice", "sine")  # as its declaration bounds them
    model = str(args.get("model", _MOCK_MODEL))
    metadata = args.get("metadata") or {}
    warnings: list[str] = []
    if args.get("format", "auto") == "mp3":
        warnings.append("format_mismatch: the mock provider speaks WAV; saved as .wav")
    if "speed" in args:
        warnings.append("speed_unsupported: the mock provider has no speed knob; dropped")
    audio, duration_ms = _tone(text, voice)
    digest = hashlib.sha256(audio).hexdigest()
    stem = _slug(str(args.get("filename_prefix") or metadata.get("page_slug") or ""), "speech")
    base = f"{stem}-{provider}-{_slug(model, 'model')}-{digest[:8]}"
    output_dir = str(args["output_dir"]).rstrip("/") or "."
    target = judged(ctx, f"{output_dir}/{base}.wav", "fs.write", "output_dir")
    manifest = (judged(ctx, f"{output_dir}/{base}.manifest.json", "fs.write", "output_dir")
                if args.get("manifest", True) else None)
    try:
        target.real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise fail(TTS_006, f"cannot create {output_dir!r}: {err.strerror}",
                   output_dir=output_dir) from None
    same = (target.real.is_file() and target.real.stat().st_size == len(audio)
            and target.real.read_bytes() == audio)
    if not same:  # an identical re-run writes nothing
        await write_bytes(target.real, audio, target.rel, ctx.max_file_bytes, code=TTS_006)
    record: dict[str, Any] = {
        "provider": provider,
        "model": model,
        "voice": voice,
        "created_at": iso(ctx.now()),
        "endpoint_host": None,
        "audio": {
            "path": f"{output_dir}/{base}.wav",
            "filename": f"{base}.wav",
            "format": "wav",
            "mime_type": "audio/wav",
            "size_bytes": len(audio),
            "sha256": digest,
            "duration_ms": duration_ms,
        },
        "cost_usd": 0,
        "warnings": warnings,
        "metadata": dict(metadata),
        "manifest_path": None,
        "output_dir": output_dir,
    }
    if manifest is not None:
        record["manifest_path"] = f"{output_dir}/{base}.manifest.json"
        echo = {k: args[k] for k in sorted(args) if k not in ("text",)} | {"text_chars": len(text)}
        body = {"manifest_version": 1, "request": echo, "audio": record["audio"]}
        await write_bytes(manifest.real, (json.dumps(body, indent=2, sort_keys=True) + "\n")
                          .encode(), manifest.rel, ctx.max_file_bytes, code=TTS_006)
    return record


BUILTIN = Builtin(
    TTS_GENERATE,
    description=(
        "Synthesize speech to one audio file under output_dir (provider: mock here — a real, "
        "deterministic WAV); returns the file's path, format, size, sha256 and duration, never "
        "the bytes."
    ),
    run=run,
)
