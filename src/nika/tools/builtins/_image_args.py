"""`nika:image_generate`'s arguments folded into one `Plan` per call (stdlib §image_generate).

The declaration judged each arg's shape; this module judges what depends on the provider —
which provider (named, or inferred from `model:`, never `local`), which knobs it has, and what
each lossy mapping costs — and says so: every tolerated-but-lossy mapping lands one stable
`code: message` warning, every impossible request is `-001` naming the fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from nika import codes
from nika.stdlib.media import IMAGE_GENERATE, IMAGE_PROVIDERS, call_provider
from nika.tools.builtins._base import fail

IG_001 = codes.BUILTIN_IMAGE_GENERATE_001

DEFAULT_MODEL: Final = {
    "local": "stablediffusion", "openai": "gpt-image-2", "gemini": "gemini-3.1-flash-image",
    "xai": "grok-imagine-image", "mock": "mock-image-1",
}  # fmt: skip
MAX_SOURCES: Final = {"openai": 16, "gemini": 14, "xai": 3, "local": 16, "mock": 16}
_MASKABLE: Final = frozenset({"openai", "local", "mock"})
_OPTIONS: Final = {
    "openai": ("moderation", "user"), "gemini": ("thinking_level", "image_size"),
    "xai": ("user", "resolution"), "local": (), "mock": (),
}  # fmt: skip
_SIZE: Final = re.compile(r"^([1-9][0-9]{1,4})x([1-9][0-9]{1,4})$")
_GEMINI_MODEL: Final = re.compile(r"(?:models/)?([A-Za-z0-9][A-Za-z0-9._-]{0,127})")
_MAX_SIDE: Final = 16_384
RATIOS: Final = {
    "1:1": (1, 1), "16:9": (16, 9), "9:16": (9, 16), "4:3": (4, 3), "3:4": (3, 4),
    "3:2": (3, 2), "2:3": (2, 3), "21:9": (21, 9),
}  # fmt: skip
DEFAULT_TIMEOUT_MS: Final = 180_000
LOCAL_TIMEOUT_MS: Final = 300_000


@dataclass(frozen=True, slots=True)
class Plan:
    """One call as the adapters read it: the provider, the model, the resolved knobs, and the
    warnings the folding already owes."""

    provider: str
    model: str
    mode: str
    prompt: str
    n: int
    aspect_ratio: str | None
    size: tuple[int, int] | None
    quality: str
    format: str
    compression: int | None
    background: str
    seed: int | None
    options: Mapping[str, Any]
    sources: tuple[str, ...]
    mask: str | None
    timeout_s: float
    warnings: list[str] = field(default_factory=list)

    def warn(self, code: str, message: str) -> None:
        """Record one lossy mapping as its stable `code: message` string."""
        self.warnings.append(f"{code}: {message}")


def provider_of(args: Mapping[str, Any]) -> str:
    """The call's provider: as written, else inferred from `model:` by prefix."""
    provider = call_provider(IMAGE_GENERATE.name, args)
    if provider is not None:
        return provider
    model = str(args.get("model", ""))
    raise fail(IG_001, f"name a `provider:` (local, openai, gemini, xai or mock): it cannot be "
               f"inferred from `model: {model!r}` (local is never inferred — its model names "
               "are server-specific)", arg="provider")


def _size(raw: Any) -> tuple[int, int] | None:
    if raw is None or raw == "auto":
        return None
    found = _SIZE.match(str(raw))
    if found is None:
        raise fail(IG_001, f"`size: {raw!r}` is not `WIDTHxHEIGHT` or `auto`; write e.g. "
                   "`size: 1024x1024`", arg="size")
    width, height = int(found[1]), int(found[2])
    if width > _MAX_SIDE or height > _MAX_SIDE:
        raise fail(IG_001, f"`size: {raw!r}` exceeds {_MAX_SIDE} pixels a side; ask for a "
                   "smaller render", arg="size")
    return width, height


def _timeout_s(args: Mapping[str, Any], provider: str) -> float:
    default = LOCAL_TIMEOUT_MS if provider == "local" else DEFAULT_TIMEOUT_MS
    return int(args.get("timeout_ms", default)) / 1000  # 1000..=600000: its declaration


def _sources(args: Mapping[str, Any], provider: str) -> tuple[str, ...]:
    if "image" in args:
        return (str(args["image"]),)
    images = args["images"]  # a non-empty list of paths: its declaration
    if len(images) > MAX_SOURCES[provider]:
        raise fail(IG_001, f"`images:` holds {len(images)} sources; {provider} takes at most "
                   f"{MAX_SOURCES[provider]} — split the edit", arg="images")
    return tuple(images)


def _model(args: Mapping[str, Any], provider: str) -> str:
    model = str(args.get("model") or DEFAULT_MODEL[provider])
    if provider != "gemini":  # the others carry it in a JSON body, never in a URL
        return model
    found = _GEMINI_MODEL.fullmatch(model)
    if found is None:  # it becomes a URL path segment, next to the engine's key
        raise fail(IG_001, f"`model: {model!r}` is no Gemini model id (letters, digits, `.`, "
                   "`_`, `-`, at most 128, optionally after `models/`); write e.g. "
                   f"`model: {DEFAULT_MODEL['gemini']}`", arg="model")
    return found[1]


def plan(args: Mapping[str, Any]) -> Plan:
    """Fold `args` (their shapes already judged by the declaration) for their provider."""
    provider = provider_of(args)
    if provider not in IMAGE_PROVIDERS:  # inferred from `model:`; a written one was judged
        raise fail(IG_001, f"`provider: {provider!r}` is not one of {', '.join(IMAGE_PROVIDERS)}",
                   arg="provider")
    mode = str(args.get("mode", "generate"))
    fmt = str(args.get("format", "png"))
    background = str(args.get("background", "auto"))
    if background == "transparent" and fmt == "jpeg":
        raise fail(IG_001, "`background: transparent` needs an alpha-capable format; write "
                   "`format: png` or `format: webp`", arg="background")
    if background == "transparent" and provider in ("gemini", "xai"):
        raise fail(IG_001, f"{provider} renders no transparent background; use provider "
                   "openai (or local, mock), or drop `background: transparent`", arg="background")
    mask = args.get("mask")
    if mask is not None and provider not in _MASKABLE:
        raise fail(IG_001, f"`mask:` on provider {provider}, which edits by instruction only, "
                   "would change pixels outside the region; describe the region in `prompt:` "
                   "or use provider openai or local", arg="mask")
    seed = args.get("seed")
    options = args.get("provider_options") or {}
    result = Plan(
        provider=provider, model=_model(args, provider), mode=mode,
        prompt=str(args["prompt"]), n=int(args.get("n", 1)), aspect_ratio=args.get("aspect_ratio"),
        size=_size(args.get("size")), quality=str(args.get("quality", "auto")), format=fmt,
        compression=args.get("compression"), background=background, seed=seed,
        options={k: options[k] for k in sorted(options) if k in _OPTIONS[provider]},
        sources=_sources(args, provider) if mode == "edit" else (),
        mask=str(mask) if mask is not None else None, timeout_s=_timeout_s(args, provider),
    )
    for key in sorted(set(options) - set(_OPTIONS[provider])):
        result.warn("provider_option_unknown", f"{key!r} is no {provider} option; dropped")
    if result.size is not None and result.aspect_ratio is not None:
        result.warn("size_conflict", f"size {args['size']} wins over aspect_ratio "
                    f"{result.aspect_ratio}")
    if result.compression is not None and fmt == "png":
        result.warn("compression_ignored", "compression applies to jpeg/webp only")
    return result


def ratio_of(plan: Plan) -> tuple[int, int]:
    """The shape asked for: the exact size, else the aspect ratio, else square."""
    if plan.size is not None:
        return plan.size
    return RATIOS[plan.aspect_ratio or "1:1"]


def size_class(plan: Plan, classes: Mapping[str, tuple[int, int]]) -> str:
    """The class in `classes` (name → width, height) whose shape is nearest the one asked for,
    ties to the first listed."""
    width, height = ratio_of(plan)
    want = width / height
    return min(classes, key=lambda name: abs(classes[name][0] / classes[name][1] - want))
