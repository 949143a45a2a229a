"""`nika:image_generate` on Gemini: the `models/{model}:generateContent` REST wire over httpx2.

Google ships no SDK among our dependencies (`google-genai` would bring its own HTTP stack and
auth layers for one call), so this speaks the documented JSON wire over the client the other
SDKs are built on, bounded like them (`_image_wire.client`). The image rides back inline
(`inlineData`), never as a URL. `n` is satisfied by sequential calls (the wire renders one
image per candidate and refuses `candidateCount` for images), each retried on its own, their
usage summed; a safety finish (`SAFETY`, `IMAGE_SAFETY`, `PROHIBITED_CONTENT`, …) or a prompt
block is `-005`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import httpx2

from nika import codes
from nika.tools.builtins._base import fail
from nika.tools.builtins._image_args import RATIOS, Plan, size_class
from nika.tools.builtins._image_providers import Rendered, Source, key_names
from nika.tools.builtins._image_wire import (
    IG_005,
    Endpoint,
    client,
    refuse_oversize,
    request_failed,
    retried,
    status_error,
)
from nika.tools.builtins._provider_wire import Oversize

IG_004 = codes.BUILTIN_IMAGE_GENERATE_004
_BLOCKED: Final = frozenset({"SAFETY", "IMAGE_SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST",
                             "SPII", "IMAGE_PROHIBITED_CONTENT", "RECITATION"})
_USAGE: Final = {"input_tokens": "promptTokenCount", "output_tokens": "candidatesTokenCount",
                 "total_tokens": "totalTokenCount", "thoughts_tokens": "thoughtsTokenCount"}


def _body(plan: Plan, sources: tuple[Source, ...]) -> dict[str, Any]:
    image: dict[str, Any] = {}
    if plan.size is not None:
        long_side = max(plan.size)
        image["imageSize"] = "1K" if long_side <= 1024 else "2K" if long_side <= 2048 else "4K"
        image["aspectRatio"] = size_class(plan, RATIOS)
        plan.warn("gemini_size_class", f"{plan.size[0]}x{plan.size[1]} renders as the "
                  f"{image['imageSize']} class at {image['aspectRatio']}")
    elif plan.aspect_ratio is not None:
        image["aspectRatio"] = plan.aspect_ratio
    if "image_size" in plan.options:
        image["imageSize"] = str(plan.options["image_size"])
    config: dict[str, Any] = {"responseModalities": ["TEXT", "IMAGE"]}
    if image:
        config["imageConfig"] = image
    if plan.seed is not None:
        config["seed"] = plan.seed
    if "thinking_level" in plan.options:
        config["thinkingConfig"] = {"thinkingLevel": str(plan.options["thinking_level"])}
    if plan.quality != "auto":
        plan.warn("quality_folded", "gemini has no quality knob (the model is the tier); dropped")
    if plan.format != "png":
        plan.warn("format_unsupported", f"gemini picks its own format; {plan.format} not sent")
    parts: list[dict[str, Any]] = [{"text": plan.prompt}]
    parts += [{"inline_data": {"mime_type": s.mime, "data": base64.b64encode(s.data).decode()}}
              for s in sources]
    return {"contents": [{"role": "user", "parts": parts}], "generationConfig": config}


async def gemini(plan: Plan, end: Endpoint, sources: tuple[Source, ...],
                 sleep: Callable[[float], Awaitable[None]]) -> Rendered:
    """`plan.n` renders, one call each, each under the deadline and its own retries."""
    body = json.dumps(_body(plan, sources)).encode()
    url = f"{end.base_url}/models/{plan.model}:generateContent"
    headers = {"x-goog-api-key": end.key or "", "content-type": "application/json"}
    payloads: list[bytes] = []
    declared: list[str | None] = []
    texts: list[str] = []
    usage: dict[str, int | None] = dict.fromkeys(_USAGE)
    raws = []
    async with client(plan.timeout_s) as http:
        for _ in range(plan.n):
            answer = await retried(lambda: _call(http, url, headers, body, end.key),
                                   timeout_s=plan.timeout_s, sleep=sleep, provider="gemini")
            image, mime, text, raw = _parts(answer)
            payloads.append(image)
            declared.append(mime)
            texts += text
            raws.append(raw)
            meta = _shaped(answer.get("usageMetadata"), dict, "`usageMetadata`")
            for axis, name in _USAGE.items():
                if isinstance(meta.get(name), int):
                    usage[axis] = (usage[axis] or 0) + meta[name]
    return Rendered(tuple(payloads), end.host, provider_text="\n".join(texts) or None,
                    usage=usage, raw={"responses": raws}, declared=tuple(declared))


async def _call(http: httpx2.AsyncClient, url: str, headers: Mapping[str, str],
                body: bytes, key: str | None) -> Mapping[str, Any]:
    try:
        response = await http.post(url, content=body, headers=dict(headers))
    except Oversize as found:
        raise refuse_oversize("gemini", found) from None
    except httpx2.TimeoutException:
        raise request_failed("gemini", "timed out", transient=True) from None
    except httpx2.TransportError as err:
        raise request_failed("gemini", f"could not connect ({type(err).__name__})",
                             transient=True) from None
    try:
        answer = json.loads(response.content)
    except ValueError:
        answer = None
    if not 200 <= response.status_code < 300:
        raise status_error("gemini", response.status_code, answer, key_names("gemini"), key)
    if not isinstance(answer, Mapping):
        raise fail(IG_004, "the gemini answer is not a JSON object", provider="gemini")
    return answer


def _shaped(value: Any, kind: type, what: str) -> Any:
    """`value` if it is absent (as an empty `kind`) or a `kind`; else the answer is malformed."""
    if value is None:
        return kind()
    if kind is list and isinstance(value, list) or kind is dict and isinstance(value, Mapping):
        return value
    raise fail(IG_004, f"the gemini answer's {what} is a {type(value).__name__}, not a JSON "
               f"{'array' if kind is list else 'object'}; the endpoint does not speak "
               "`generateContent` — check NIKA_GEMINI_BASE_URL", provider="gemini")


def _text(value: Any, what: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise fail(IG_004, f"the gemini answer's {what} is a {type(value).__name__}, not a string",
               provider="gemini")


def _parts(answer: Mapping[str, Any]) -> tuple[bytes, str | None, list[str], Any]:
    feedback = _shaped(answer.get("promptFeedback"), dict, "`promptFeedback`")
    block = _text(feedback.get("blockReason"), "`promptFeedback.blockReason`")
    candidates = _shaped(answer.get("candidates"), list, "`candidates`")
    first = _shaped(candidates[0] if candidates else None, dict, "`candidates[0]`")
    reason = _text(first.get("finishReason"), "`candidates[0].finishReason`")
    if block or reason in _BLOCKED:
        raise fail(IG_005, f"gemini refused the prompt on content policy ({block or reason}); "
                   "rephrase the prompt", provider="gemini", finish_reason=block or reason)
    content = _shaped(first.get("content"), dict, "`candidates[0].content`")
    parts = [_shaped(part, dict, "`candidates[0].content.parts[]`")
             for part in _shaped(content.get("parts"), list, "`candidates[0].content.parts`")]
    image: bytes | None = None
    mime: str | None = None
    texts: list[str] = []
    stripped = []
    for part in parts:
        inline = part.get("inlineData") or part.get("inline_data")
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        if isinstance(inline, Mapping) and image is None:
            declared = inline.get("mimeType", inline.get("mime_type"))
            mime = str(declared)[:100] if declared is not None else None
            try:
                image = base64.b64decode(str(inline.get("data", "")), validate=True)
            except (binascii.Error, ValueError):
                raise fail(IG_004, "gemini sent an image that is not valid base64",
                           provider="gemini") from None
        stripped.append({k: ("<stripped>" if k in ("inlineData", "inline_data") else v)
                         for k, v in part.items()})
    if not image:
        raise fail(IG_004, f"gemini answered without an image (finish reason {reason!r}); "
                   "retry, or rephrase the prompt", provider="gemini", finish_reason=reason)
    return image, mime, texts, {"finishReason": reason, "parts": stripped}
