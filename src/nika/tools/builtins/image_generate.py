"""`nika:image_generate` — provider-backed image assets (stdlib §image_generate, -001…-007).

An asset pipeline, not a blob pipe: the images land under `output_dir:` and the output
describes them (path, dimensions, sha256, a provenance manifest) — image bytes never ride
outputs, logs or traces. The call goes: args folded for the provider (`_image_args`), the
output directory and the edit sources judged by the permits BEFORE any I/O, the provider asked
(`_image_providers`, `_image_gemini`: bounded, retried on transient failures only), EVERY
payload validated by its header alone (`media.sniff`: magic bytes decide the format; the
declared size is judged against the pixel budget; nothing is decoded) before ANY file is
written, content credentials detected before any in-file write (a C2PA-signed payload is
written untouched; an unsigned PNG carries the `nika` tEXt provenance core), then the files
and the manifest land atomically (`_image_write`).

`cost_usd` is the provider's own bill where it reports one (xai's ticks), 0 for `mock`, and
null otherwise: an estimate is never dressed as spend.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from nika import __version__, codes
from nika.media import png
from nika.media.assets import sha256_hex
from nika.media.sniff import SniffError, content_credentials, sniff
from nika.stdlib.media import IMAGE_GENERATE
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import read_bytes
from nika.tools.builtins._image_args import Plan, plan
from nika.tools.builtins._image_gemini import gemini
from nika.tools.builtins._image_providers import (
    Rendered,
    Source,
    endpoint,
    mock,
    openai_images,
)
from nika.tools.builtins._image_wire import retried
from nika.tools.builtins._image_write import (
    land,
    land_manifest,
    model_slug,
    stem_slug,
)
from nika.tools.builtins._paths import judged
from nika.tools.builtins.date import iso

IG_001 = codes.BUILTIN_IMAGE_GENERATE_001
IG_007 = codes.BUILTIN_IMAGE_GENERATE_007
CLAMP: Final = 2000
"""The most characters of a provider's caption (`provider_text`, `revised_prompt`) kept."""
_PROVENANCE_PROMPT: Final = 1000


def _clamped(plan: Plan, name: str, text: str | None) -> str | None:
    if text is None or len(text) <= CLAMP:
        return text
    plan.warn(f"{name}_clamped", f"the provider's {name} was {len(text)} characters; kept "
              f"the first {CLAMP}")
    return text[:CLAMP]


def _debug_echo(value: Any) -> Any:
    """The sanitized provider answer: every string clamped (base64 was stripped already)."""
    if isinstance(value, str):
        return value[:CLAMP]
    if isinstance(value, Mapping):
        return {str(k): _debug_echo(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_debug_echo(v) for v in value[:64]]
    return value


async def _sources(ctx: Context, p: Plan) -> tuple[tuple[Source, ...], Source | None]:
    """The edit inputs, each judged as a read and read capped; an input that is no image is
    `-001`."""
    async def one(raw: str, arg: str) -> Source:
        path = judged(ctx, raw, "fs.read", arg)
        data = await read_bytes(path, raw, ctx.max_file_bytes,
                                missing=(IG_001, "check the path, or produce it upstream"),
                                io=IG_001)
        try:
            found = sniff(data)
        except SniffError as err:
            raise fail(IG_001, f"`{arg}: {raw!r}` is not an image this reads: {err}; give a "
                       "PNG, JPEG or WebP", path=raw) from None
        if found.width is None:
            raise fail(IG_001, f"`{arg}: {raw!r}` is {found.format} audio, not an image",
                       path=raw)
        return Source(path.real.name, data, found.mime_type)

    sources = tuple([await one(raw, "image" if len(p.sources) == 1 else "images")
                     for raw in p.sources])
    mask = await one(p.mask, "mask") if p.mask is not None else None
    return sources, mask


async def _render(ctx: Context, p: Plan, sources: tuple[Source, ...],
                  mask: Source | None) -> Rendered:
    if p.provider == "mock":
        return mock(p)
    end = endpoint(p.provider, ctx.engine_env)
    if p.provider == "gemini":
        return await gemini(p, end, sources, ctx.sleep)
    return await retried(lambda: openai_images(p, end, sources, mask), timeout_s=p.timeout_s,
                         sleep=ctx.sleep, provider=p.provider)


def _validated(p: Plan, payload: bytes, index: int, cap: int,
               declared: str | None) -> dict[str, Any]:
    """One payload judged by its header: its size, magic and declared dimensions; the mime
    type the provider declared, when it differs from the magic, is a warning."""
    if len(payload) > cap:
        raise fail(IG_007, f"image {index} is {len(payload)} bytes, over the "
                   f"{cap >> 20} MiB cap; request a smaller size", index=index)
    try:
        found = sniff(payload)
    except SniffError as err:
        raise fail(IG_007, f"image {index} from {p.provider} is not an image: {err}",
                   index=index, provider=p.provider) from None
    if found.width is None or found.height is None:
        raise fail(IG_007, f"image {index} from {p.provider} is {found.format} audio, not an "
                   "image", index=index, provider=p.provider)
    problem = png.budget_problem(found.width, found.height)
    if problem is not None:
        raise fail(IG_007, f"image {index} declares {problem}", index=index,
                   width=found.width, height=found.height)
    warnings = []
    if found.format != p.format and p.provider != "mock":  # mock warned once already
        warnings.append(f"format_mismatch: asked for {p.format}, {p.provider} sent "
                        f"{found.format}; saved as .{found.extension}")
    if declared is not None and declared != found.mime_type:
        warnings.append(f"mime_mismatch: {p.provider} declared {declared!r}, the bytes are "
                        f"{found.mime_type}")
    return {"format": found.format, "mime_type": found.mime_type, "ext": found.extension,
            "width": found.width, "height": found.height, "warnings": warnings}


def _provenance(p: Plan, payload: bytes, index: int) -> tuple[bytes, str | None]:
    """The payload as it lands, and its credentials label: a signed payload untouched; an
    unsigned PNG with the deterministic provenance core as a `nika` tEXt chunk."""
    credentials = content_credentials(payload)
    if credentials is not None or not payload.startswith(png.SIGNATURE):
        return payload, credentials
    core = {"tool": "nika:image_generate", "engine": f"nika-py/{__version__}",
            "provider": p.provider, "model": p.model, "seed": p.seed,
            "prompt": p.prompt[:_PROVENANCE_PROMPT]}
    text = json.dumps(core, sort_keys=True, separators=(",", ":"))  # ASCII: tEXt is Latin-1
    try:
        return png.insert_text(payload, "nika", text), None
    except png.PngError as err:
        raise fail(IG_007, f"image {index} from {p.provider} is a broken PNG: {err.detail}",
                   index=index, provider=p.provider) from None


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """Render, validate, save; describe what landed."""
    p = plan(args)
    metadata = dict(args.get("metadata") or {})
    output_dir = str(args["output_dir"]).rstrip("/") or "."
    stem = stem_slug(str(args.get("filename_prefix") or metadata.get("page_slug") or ""),
                     "image")
    base = f"{stem}-{stem_slug(p.provider, 'provider')}-{model_slug(p.model)}"
    # Judged before any spend: a permit refusing the images or the manifest refuses the call
    # before a render is paid for (the names' digests are not known yet: same shape).
    judged(ctx, f"{output_dir}/{base}-0-00000000.png", "fs.write", "output_dir")
    if args.get("manifest", True):
        judged(ctx, f"{output_dir}/{base}-00000000.manifest.json", "fs.write", "output_dir")
    sources, mask = await _sources(ctx, p)
    rendered = await _render(ctx, p, sources, mask)
    payloads = rendered.payloads[:p.n]
    if len(payloads) < p.n:
        p.warn("count_shortfall", f"asked for {p.n}, {p.provider} returned {len(payloads)}")
    declared = (*rendered.declared, *(None,) * len(payloads))[:len(payloads)]
    checked = [_validated(p, data, i, ctx.max_file_bytes, mime)
               for i, (data, mime) in enumerate(zip(payloads, declared, strict=True))]
    stamped = [_provenance(p, data, i) for i, data in enumerate(payloads)]  # all before a write
    images = []
    for index, ((final, credentials), seen) in enumerate(zip(stamped, checked, strict=True)):
        digest = sha256_hex(final)
        landed = await land(ctx, output_dir, f"{base}-{index}-{digest[:8]}", seen["ext"], final)
        images.append({
            "index": index, "path": landed.path, "filename": landed.filename,
            "mime_type": seen["mime_type"], "format": seen["format"], "width": seen["width"],
            "height": seen["height"], "size_bytes": landed.written.bytes,
            "sha256": digest, "provider": p.provider, "model": p.model, "seed": p.seed,
            "variant_id": None, "warnings": seen["warnings"], "metadata": metadata,
            "content_credentials": credentials, "wrote": landed.written.wrote,
        })
        p.warnings.extend(seen["warnings"])
    record: dict[str, Any] = {
        "provider": p.provider, "model": p.model, "mode": p.mode, "prompt": p.prompt,
        "revised_prompt": _clamped(p, "revised_prompt", rendered.revised_prompt),
        "provider_text": _clamped(p, "provider_text", rendered.provider_text),
        "created_at": iso(ctx.now()), "count": len(images), "images": images,
        "usage": {axis: rendered.usage.get(axis) for axis in
                  ("input_tokens", "output_tokens", "total_tokens", "thoughts_tokens")},
        "cost_usd": rendered.cost_usd, "warnings": list(p.warnings), "manifest_path": None,
        "output_dir": output_dir, "endpoint_host": rendered.endpoint_host,
        "content_credentials": next((i["content_credentials"] for i in images
                                     if i["content_credentials"]), None),
        "metadata": metadata,
    }
    if args.get("manifest", True):
        record["manifest_path"] = await _manifest(ctx, args, p, base, record)
    if args.get("debug"):
        record["debug"] = _debug_echo(rendered.raw)
    return record


async def _manifest(ctx: Context, args: Mapping[str, Any], p: Plan, base: str,
                    record: Mapping[str, Any]) -> str:
    batch = sha256_hex("".join(i["sha256"] for i in record["images"]).encode())[:8]
    echo = {k: args[k] for k in sorted(args) if k not in ("metadata", "debug")}
    body = {"manifest_version": 1, "tool": "nika:image_generate",
            "engine": f"nika-py/{__version__}", "request": echo} | {
        k: record[k] for k in ("provider", "model", "mode", "created_at", "endpoint_host",
                               "images", "usage", "cost_usd", "warnings", "metadata",
                               "revised_prompt", "provider_text", "content_credentials")}
    return await land_manifest(ctx, record["output_dir"], f"{base}-{batch}.manifest.json", body)


BUILTIN = Builtin(
    IMAGE_GENERATE,
    description=(
        "Generate (or, with mode: edit, edit) images with a provider (mock, local, openai, "
        "gemini, xai) and save them under output_dir with a provenance manifest; returns each "
        "file's path, format, dimensions and sha256 — never the image bytes."
    ),
    run=run,
)
