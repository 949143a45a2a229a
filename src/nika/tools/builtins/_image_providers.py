"""`nika:image_generate`'s provider adapters: `mock` (offline, deterministic), and the
OpenAI-images wire — `openai`, `xai`, `local` — through the official `openai` SDK (its retries
off: `_image_wire.retried` is the one policy; its HTTP client ours: `_provider_wire`, capped,
no redirects).
`gemini` speaks its REST wire in `_image_gemini`.

Endpoints and keys are ENGINE config read from `Context.engine_env` (filled at the composition
root), never workflow data: `NIKA_<ID>_BASE_URL` / `NIKA_<ID>_API_KEY` then the vendor's own
key variable, as `infer:` reads them; `local` at `NIKA_IMAGE_LOCAL_URL` (LocalAI's
`http://localhost:8080` by default) with `NIKA_IMAGE_LOCAL_API_KEY` optional. Result URLs are
never fetched: `b64_json` is requested where the wire offers URLs, and a URL-only answer is
`-004`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

import numpy as np

from nika import codes
from nika.media import png
from nika.syntax.providers import PROVIDERS
from nika.tools.builtins._base import fail
from nika.tools.builtins._image_args import Plan, ratio_of, size_class
from nika.tools.builtins._image_wire import (
    Endpoint,
    client,
    refuse_oversize,
    request_failed,
    status_error,
)
from nika.tools.builtins._provider_wire import Oversize, oversize_in

IG_002 = codes.BUILTIN_IMAGE_GENERATE_002
IG_004 = codes.BUILTIN_IMAGE_GENERATE_004
LOCAL_URL_VAR: Final = "NIKA_IMAGE_LOCAL_URL"
LOCAL_KEY_VAR: Final = "NIKA_IMAGE_LOCAL_API_KEY"
_LOCAL_DEFAULT: Final = "http://localhost:8080"
_OPENAI_SIZES: Final = {"1024x1024": (1, 1), "1536x1024": (3, 2), "1024x1536": (2, 3)}
_OPENAI_QUALITY: Final = {"auto": "auto", "low": "low", "medium": "medium", "high": "high",
                          "ultra": "high"}
_MOCK_LONG_SIDE: Final = 256


@dataclass(frozen=True, slots=True)
class Source:
    """One edit input as read from disk: its name, bytes and mime type."""

    name: str
    data: bytes
    mime: str


@dataclass(frozen=True, slots=True)
class Rendered:
    """What one provider call returned, before validation: the payloads, the captions, the
    usage axes it reported (absent: None), the spend it reported itself, and the sanitized
    answer (base64 stripped) for `debug:`."""

    payloads: tuple[bytes, ...]
    endpoint_host: str | None
    revised_prompt: str | None = None
    provider_text: str | None = None
    usage: Mapping[str, int | None] = field(default_factory=dict)
    cost_usd: float | None = None
    raw: Any = None
    declared: tuple[str | None, ...] = ()
    """The mime type the provider declared for each payload, where its wire says one."""


def _host(base: str) -> str:
    """`host[:port]` of `base`, never its userinfo (a `u:pw@` would land in every output,
    journal frame and error that names the endpoint)."""
    parts = urlsplit(base)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:  # a malformed port: the host alone still names the endpoint
        port = None
    return f"{host}:{port}" if port is not None else host


def endpoint(provider: str, env: Mapping[str, str]) -> Endpoint:
    """Where `provider` is reached and with which key, from the engine environment; `-002`
    when a cloud provider has no key (never the workflow's `secrets:`)."""
    if provider == "local":
        url = (env.get(LOCAL_URL_VAR) or _LOCAL_DEFAULT).rstrip("/")
        base = url if url.endswith("/v1") else f"{url}/v1"
        return Endpoint(base, env.get(LOCAL_KEY_VAR) or None, _host(base))
    info = PROVIDERS[provider]
    key = next((env[v] for v in info.key_vars if env.get(v)), None)
    if key is None:
        raise fail(IG_002, f"{provider} needs an API key and none is set: set "
                   f"{' or '.join(info.key_vars)} in the engine environment (keys are engine "
                   "config, never workflow `secrets:`), or use provider mock or local",
                   provider=provider, key_vars=list(info.key_vars))
    base = (env.get(info.base_url_var) or info.base_url).rstrip("/")
    if provider == "gemini":
        base = base.removesuffix("/openai")  # the infer endpoint's OpenAI-compatible face
    return Endpoint(base, key, _host(base))


def key_names(provider: str) -> str:
    """The variables that hold `provider`'s key, for a hint."""
    return LOCAL_KEY_VAR if provider == "local" else " or ".join(PROVIDERS[provider].key_vars)


def mock(plan: Plan) -> Rendered:
    """`n` deterministic PNGs: a gradient keyed by the prompt, seed and index, in the shape
    asked for (long side 256), RGBA when the background is transparent."""
    width, height = ratio_of(plan)
    scale = _MOCK_LONG_SIDE / max(width, height)
    width, height = max(1, round(width * scale)), max(1, round(height * scale))
    channels = 4 if plan.background == "transparent" else 3
    payloads = []
    for index in range(plan.n):
        key = f"{plan.model}\x00{plan.prompt}\x00{plan.seed}\x00{index}".encode()
        tint = np.frombuffer(hashlib.sha256(key).digest()[:channels], np.uint8)
        ys = np.arange(height, dtype=np.uint16)[:, None, None]
        xs = np.arange(width, dtype=np.uint16)[None, :, None]
        pixels = ((xs + ys + tint.astype(np.uint16)) % 256).astype(np.uint8)
        if channels == 4:
            pixels[:, :, 3] = 0  # transparent, as asked
        payloads.append(png.encode(np.ascontiguousarray(np.broadcast_to(
            pixels, (height, width, channels)))))
    if plan.format != "png":
        plan.warn("format_mismatch", f"the mock provider renders PNG, not {plan.format}")
    total = len(plan.prompt.split())
    return Rendered(tuple(payloads), None, usage={
        "input_tokens": total, "output_tokens": 0, "total_tokens": total,
        "thoughts_tokens": None}, cost_usd=0.0, raw={"mock": True})


def _openai_params(plan: Plan) -> dict[str, Any]:
    """The request knobs of the openai wire, folded loudly."""
    params: dict[str, Any] = {}
    if plan.size is not None or plan.aspect_ratio is not None:
        chosen = size_class(plan, _OPENAI_SIZES)
        width, height = ratio_of(plan)
        if plan.size is not None and f"{width}x{height}" != chosen:
            plan.warn("size_folded", f"{width}x{height} renders as the {chosen} size class")
        elif plan.size is None and _OPENAI_SIZES[chosen] != (width, height):
            plan.warn("aspect_remapped", f"{plan.aspect_ratio} renders as {chosen}")
        params["size"] = chosen
    if plan.quality != "auto":
        params["quality"] = _OPENAI_QUALITY[plan.quality]
        if plan.quality == "ultra":
            plan.warn("quality_folded", "openai's top quality is high")
    params["output_format"] = plan.format
    if plan.compression is not None and plan.format != "png":
        params["output_compression"] = plan.compression
    if plan.background != "auto":
        params["background"] = plan.background
    if plan.model.startswith("dall-e"):
        params["response_format"] = "b64_json"
    return params | dict(plan.options)


def _compat_params(plan: Plan) -> dict[str, Any]:
    """The knobs of xai's images wire and of a local (LocalAI-style) server."""
    params: dict[str, Any] = {"response_format": "b64_json"}
    if plan.provider == "local":
        if plan.size is not None or plan.aspect_ratio is not None:
            width, height = plan.size or _fit(ratio_of(plan), 1024)
            params["size"] = f"{width}x{height}"
    else:
        if plan.size is not None:
            plan.warn("xai_size_class", "xai renders aspect ratios at 1k/2k; size "
                      f"{plan.size[0]}x{plan.size[1]} folds to its aspect ratio")
        if plan.aspect_ratio is not None:
            params["aspect_ratio"] = plan.aspect_ratio
        params |= dict(plan.options)
    if plan.quality not in ("auto",):
        plan.warn("quality_folded", f"{plan.provider} has no quality knob (the model is the "
                  "quality tier); dropped")
    if plan.background != "auto" and plan.provider == "local":
        plan.warn("background_unsupported", "the local wire has no background knob; dropped")
    return params


def _fit(ratio: tuple[int, int], long_side: int) -> tuple[int, int]:
    width, height = ratio
    scale = long_side / max(width, height)
    return (round(width * scale) // 8 * 8, round(height * scale) // 8 * 8)


async def openai_images(plan: Plan, end: Endpoint, sources: tuple[Source, ...],
                        mask: Source | None) -> Rendered:
    """One call on the OpenAI images wire (openai · xai · local) through the official SDK."""
    import openai  # only an image task on this wire pays for the SDK

    if plan.seed is not None:
        plan.warn("seed_unsupported", f"the {plan.provider} images wire takes no seed; dropped")
    params = _openai_params(plan) if plan.provider == "openai" else _compat_params(plan)
    extra_body = {k: params.pop(k) for k in ("aspect_ratio", "resolution") if k in params}
    async with client(plan.timeout_s) as http:
        sdk = openai.AsyncOpenAI(api_key=end.key or "nika-keyless", base_url=end.base_url,
                                 max_retries=0, timeout=plan.timeout_s, http_client=http)
        try:
            if plan.mode == "generate":
                answer = await sdk.images.generate(model=plan.model, prompt=plan.prompt,
                                                   n=plan.n, extra_body=extra_body or None,
                                                   **params)
            elif plan.provider == "xai":  # xai edits take JSON: images as data URIs
                body = _xai_edit_body(plan, params | extra_body, sources)
                answer = await sdk.post("/images/edits", body=body,
                                        cast_to=openai.types.ImagesResponse)
            else:
                files = [(s.name, s.data, s.mime) for s in sources]
                answer = await sdk.images.edit(
                    model=plan.model, prompt=plan.prompt, n=plan.n, image=files,
                    mask=(mask.name, mask.data, mask.mime) if mask else openai.omit,
                    extra_body=extra_body or None, **params)
        except Oversize as over:  # raised in our transport, before the SDK reads a byte
            raise refuse_oversize(plan.provider, over) from None
        except openai.APIStatusError as err:
            raise status_error(plan.provider, err.status_code, err.body,
                               key_names(plan.provider), end.key) from None
        except openai.APIConnectionError as err:
            found = oversize_in(err)
            if found is not None:
                raise refuse_oversize(plan.provider, found) from None
            what = "timed out" if isinstance(err, openai.APITimeoutError) else "could not connect"
            raise request_failed(plan.provider, f"{what} ({end.host})", transient=True) from None
        except openai.APIResponseValidationError:
            raise fail(IG_004, f"the {plan.provider} answer is not an images response",
                       provider=plan.provider) from None
    return _decoded(plan, end, answer.model_dump(mode="json", exclude_none=True))


def _xai_edit_body(plan: Plan, params: Mapping[str, Any],
                   sources: tuple[Source, ...]) -> dict[str, Any]:
    def uri(s: Source) -> dict[str, str]:
        return {"url": f"data:{s.mime};base64,{base64.b64encode(s.data).decode()}"}

    picked: dict[str, Any] = ({"image": uri(sources[0])} if len(sources) == 1
                              else {"images": [uri(s) for s in sources]})
    return {"model": plan.model, "prompt": plan.prompt, "n": plan.n, **params, **picked}


def _decoded(plan: Plan, end: Endpoint, answer: Mapping[str, Any]) -> Rendered:
    data = answer.get("data") or []
    payloads, revised = [], None
    for item in data:
        b64 = item.get("b64_json")
        if not b64:
            if item.get("url"):
                raise fail(IG_004, f"{plan.provider} answered with a result URL only; the "
                           "engine never fetches provider URLs — use a server that honours "
                           "`response_format: b64_json`", provider=plan.provider)
            continue
        try:
            payloads.append(base64.b64decode(b64, validate=True))
        except (binascii.Error, ValueError):
            raise fail(IG_004, f"{plan.provider} sent an image that is not valid base64",
                       provider=plan.provider) from None
        revised = revised or item.get("revised_prompt")
    if not payloads:
        raise fail(IG_004, f"{plan.provider} answered without an image; retry, or rephrase "
                   "the prompt", provider=plan.provider)
    usage = answer.get("usage") or {}
    raw = {k: v for k, v in answer.items() if k != "data"} | {
        "data": [{k: v for k, v in d.items() if k != "b64_json"} for d in data]}
    return Rendered(tuple(payloads), end.host, revised_prompt=revised, usage={
        "input_tokens": usage.get("input_tokens"), "output_tokens": usage.get("output_tokens"),
        "total_tokens": usage.get("total_tokens"), "thoughts_tokens": None,
    }, cost_usd=_ticks(answer, usage), raw=raw)


def _ticks(answer: Mapping[str, Any], usage: Mapping[str, Any]) -> float | None:
    """xai's own bill: `cost_in_usd_ticks` (1 USD = 10¹⁰ ticks; 1 cent = 10⁸)."""
    ticks = usage.get("cost_in_usd_ticks", answer.get("cost_in_usd_ticks"))
    if isinstance(ticks, int) and not isinstance(ticks, bool) and ticks >= 0:
        return ticks / 10**10
    return None
