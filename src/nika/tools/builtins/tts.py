"""`nika:tts_generate` — speech synthesis (stdlib §Audio): `local`, `openai`, `elevenlabs`
(`_tts_providers.py`: engine-configured endpoints and keys, one deadline, transient-only
retries) and `mock`, a real, deterministic WAV (a sine tone whose length follows the text):
zero network, zero keys, the same bytes for the same request.

Whatever a provider sends is judged by its bytes (`nika.media.audio`): empty is `-004`, not
WAV or MP3 is `-007`, and the saved extension follows the sniffed format, never the ask (a
mismatch is a `format_mismatch:` warning). ONE audio file lands under `output_dir:` — judged
against `permits.fs.write` per final path before any file I/O, written atomically, named
`{stem}-{provider}-{model}-{sha8}.{ext}` so an identical re-run is idempotent — plus a
provenance manifest beside it. The output describes the file (a WAV's duration exact from its
header, an MP3's `null`); audio bytes never ride outputs.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import sys
import threading
from array import array
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.guarded_read import special_kind
from nika.media.assets import write_asset
from nika.media.audio import MIME, duration_ms, sniff
from nika.stdlib.media import TTS_GENERATE, TTS_PROVIDERS, call_provider
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import offload, write_bytes
from nika.tools.builtins._paths import judged
from nika.tools.builtins._tts_providers import ELEVEN_SPEED, PROVIDERS, elevenlabs_voice, speak
from nika.tools.builtins.date import iso

TTS_001 = codes.BUILTIN_TTS_GENERATE_001
TTS_004 = codes.BUILTIN_TTS_GENERATE_004
TTS_006 = codes.BUILTIN_TTS_GENERATE_006
TTS_007 = codes.BUILTIN_TTS_GENERATE_007
_MOCK_MODEL: Final = "mock-tts-1"
_SLUG: Final = re.compile(r"[^a-z0-9._-]+")
_RATE: Final = 16_000
_MS_PER_CHAR: Final = 60
_MAX_MS: Final = 30_000


def _provider(args: Mapping[str, Any]) -> str:
    provider = call_provider(TTS_GENERATE.name, args)
    if provider is None:
        raise fail(TTS_001, "name a `provider:` (local, openai, elevenlabs or mock); it cannot "
                   f"be inferred from `model: {args.get('model')!r}`", arg="provider")
    if provider not in TTS_PROVIDERS:  # inferred from `model:`; a written one was judged
        raise fail(TTS_001, f"`provider: {provider!r}` is not one of {', '.join(TTS_PROVIDERS)}",
                   arg="provider")
    return str(provider)


def _slug(text: str, fallback: str) -> str:
    slug = _SLUG.sub("-", text.lower()).strip("-.")
    return slug[:64] or fallback


def _tone(text: str, voice: str) -> bytes:
    """A 16-bit mono WAV of a sine tone (its pitch from the voice, its length from the text)."""
    import wave  # only a speech task pays for it

    length_ms = min(max(len(text) * _MS_PER_CHAR, 200), _MAX_MS)
    pitch = 440.0 if voice == "sine" else 220.0 + hashlib.sha256(voice.encode()).digest()[0]
    frames = _RATE * length_ms // 1000
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
    return buffer.getvalue()


async def _synthesize(provider: str, args: Mapping[str, Any], ctx: Context,
                      warnings: list[str]) -> tuple[bytes, str, str, str | None]:
    """The payload, model, voice and endpoint host of one request to `provider`."""
    fmt, speed = str(args.get("format", "auto")), args.get("speed")
    if provider == "mock":
        voice, model = str(args.get("voice", "sine")), str(args.get("model", _MOCK_MODEL))
        if speed is not None:
            warnings.append("speed_unsupported: the mock provider has no speed knob; dropped")
        return _tone(args["text"], voice), model, voice, None
    config = PROVIDERS[provider]
    voice, model = str(args.get("voice", config.voice)), str(args.get("model", config.model))
    if provider == "elevenlabs":
        voice = elevenlabs_voice(voice)
        low, high = ELEVEN_SPEED
        if speed is not None and not low <= speed <= high:
            warnings.append(f"speed_unsupported: elevenlabs speaks at {low}–{high}; "
                            f"`speed: {speed}` dropped")
            speed = None
    spoken = await speak(provider, model=model, voice=voice, text=args["text"], fmt=fmt,
                         speed=None if speed is None else float(speed),
                         timeout_ms=int(args.get("timeout_ms", config.timeout_ms)), ctx=ctx)
    return spoken.payload, model, voice, spoken.endpoint_host


def _judge_payload(provider: str, payload: bytes, asked: str, warnings: list[str]) -> str:
    """The payload's sniffed format (the saved extension), or the refusal of a non-audio one."""
    if not payload:
        raise fail(TTS_004, f"{provider} returned no audio bytes; check the text, voice and "
                   "model the server accepts", provider=provider)
    fmt = sniff(payload)
    if fmt is None:
        raise fail(TTS_007, f"{provider} returned {len(payload)} bytes that are neither WAV nor "
                   f"MP3 (they begin {payload[:8].hex()!r}); check the server speaks audio",
                   provider=provider)
    if asked not in ("auto", fmt):
        warnings.append(f"format_mismatch: asked for {asked}, {provider} sent {fmt}; saved as "
                        f".{fmt}")
    return fmt


def _save(target: Path, audio: bytes, raw: str, cap: int, stop: threading.Event) -> None:
    """Land `audio` at `target` (in a worker thread: every stat, read and write is blocking
    I/O); an identical re-run writes nothing (`write_asset`)."""
    if len(audio) > cap:
        raise fail(TTS_006, f"the audio for {raw!r} is {len(audio)} bytes, over the {cap}-byte "
                   "cap of the file builtins; synthesize shorter text", path=raw,
                   reason="too_large")
    kind = special_kind(target)
    if kind is not None or target.is_dir():
        raise fail(TTS_006, f"{raw!r} is {kind or 'a directory'}, not a regular file; clear "
                   "the name or pick another `output_dir:`", path=raw, reason="not_regular")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_asset(target, audio)
    except OSError as err:
        raise fail(TTS_006, f"cannot write {raw!r}: {err.strerror}", path=raw) from None


def _judge_before_paying(ctx: Context, args: Mapping[str, Any], output_dir: str,
                         head: str) -> None:
    """Judge the files the call will write against `permits.fs.write` before any provider is
    paid: the manifest, and the audio when its format is asked for (an `auto` one is known only
    from the bytes). The final names differ only in the model and digest, judged again after."""
    model = _slug(str(args.get("model", "")), "model")
    if args.get("manifest", True):
        judged(ctx, f"{output_dir}/{head}-{model}-00000000.manifest.json", "fs.write",
               "output_dir")
    if (fmt := str(args.get("format", "auto"))) != "auto":
        judged(ctx, f"{output_dir}/{head}-{model}-00000000.{fmt}", "fs.write", "output_dir")


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """Synthesize `text`, save it under `output_dir:`, and describe what landed."""
    provider = _provider(args)
    text = args["text"]  # as its declaration bounds it
    metadata = args.get("metadata") or {}
    warnings: list[str] = []
    stem = _slug(str(args.get("filename_prefix") or metadata.get("page_slug") or ""), "speech")
    output_dir = str(args["output_dir"]).rstrip("/") or "."
    _judge_before_paying(ctx, args, output_dir, f"{stem}-{provider}")
    audio, model, voice, host = await _synthesize(provider, args, ctx, warnings)
    ext = _judge_payload(provider, audio, str(args.get("format", "auto")), warnings)
    digest = hashlib.sha256(audio).hexdigest()
    base = f"{stem}-{provider}-{_slug(model, 'model')}-{digest[:8]}"
    target = judged(ctx, f"{output_dir}/{base}.{ext}", "fs.write", "output_dir")
    manifest = (judged(ctx, f"{output_dir}/{base}.manifest.json", "fs.write", "output_dir")
                if args.get("manifest", True) else None)
    await offload(partial(_save, target.real, audio, target.rel, ctx.max_file_bytes))
    record: dict[str, Any] = {
        "provider": provider,
        "model": model,
        "voice": voice,
        "created_at": iso(ctx.now()),
        "endpoint_host": host,
        "audio": {
            "path": f"{output_dir}/{base}.{ext}",
            "filename": f"{base}.{ext}",
            "format": ext,
            "mime_type": MIME[ext],
            "size_bytes": len(audio),
            "sha256": digest,
            "duration_ms": duration_ms(audio),
        },
        # The mock's spend is exactly zero; no speech wire reports its price: unknown, never
        # an estimate (stdlib §image_generate's honest-spend rule, which §Audio applies).
        "cost_usd": 0 if provider == "mock" else None,
        "warnings": warnings,
        "metadata": dict(metadata),
        "manifest_path": None,
        "output_dir": output_dir,
    }
    if manifest is not None:
        record["manifest_path"] = f"{output_dir}/{base}.manifest.json"
        echo = {k: args[k] for k in sorted(args) if k not in ("text",)} | {"text_chars": len(text)}
        resolved = {k: record[k] for k in ("provider", "model", "voice", "endpoint_host")}
        body = {"manifest_version": 1, "request": echo, "resolved": resolved,
                "audio": record["audio"], "warnings": warnings}
        await write_bytes(manifest.real, (json.dumps(body, indent=2, sort_keys=True) + "\n")
                          .encode(), manifest.rel, ctx.max_file_bytes, code=TTS_006)
    return record


BUILTIN = Builtin(
    TTS_GENERATE,
    description=(
        "Synthesize speech to one audio file under output_dir (provider: local, openai, "
        "elevenlabs, or mock — a real, deterministic WAV offline); returns the file's path, "
        "format, size, sha256 and duration, never the bytes."
    ),
    run=run,
)
