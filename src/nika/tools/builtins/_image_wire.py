"""`nika:image_generate`'s side of the provider transport: its response cap, its retry
policy and its error table.

The bounds are `_provider_wire`'s, shared with `nika:tts_generate`: redirects are never
followed (a 3xx is a failed request, so a provider cannot point the engine at another host), a
response announcing more than the cap is refused before its body is read and one streaming past
it is cut off where it crosses. Here every attempt runs under the call's `timeout_ms:` deadline
(a never-ending trickle included), and only transient failures (5xx · 408 · 429 · timeout ·
connection) are retried, a bounded number of times.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import httpx2

from nika import codes
from nika.errors import NikaError
from nika.masking import Masker
from nika.tools.builtins import _provider_wire as wire
from nika.tools.builtins._base import fail
from nika.tools.builtins._provider_wire import Oversize

IG_003 = codes.BUILTIN_IMAGE_GENERATE_003
IG_005 = codes.BUILTIN_IMAGE_GENERATE_005
MAX_RESPONSE_BYTES: Final = 96 * 1024 * 1024
"""One response's cap: ten base64 images of the largest size a provider renders fit under it."""
ATTEMPTS: Final = 3
_POLICY: Final = frozenset({"moderation_blocked", "content_policy_violation", "content_filter",
                            "safety", "image_generation_user_error"})
T = TypeVar("T")


def client(timeout_s: float) -> httpx2.AsyncClient:
    """The one HTTP client of a call: `_provider_wire.client` at this builtin's cap (every
    body, error bodies included, refused past it)."""
    return wire.client(timeout_s, MAX_RESPONSE_BYTES)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a provider is reached, and with which key (None: keyless)."""

    base_url: str
    key: str | None
    host: str


def request_failed(provider: str, detail: str, *, transient: bool,
                   status: int | None = None) -> NikaError:
    """A `-003` with its transience engine-assessed and the HTTP status when there was one."""
    return NikaError(IG_003, f"the {provider} image request failed: {detail}",
                     transient=transient, details={"provider": provider, "status_code": status})


def status_error(provider: str, status: int, body: Any, key_vars: str,
                 key: str | None) -> NikaError:
    """The error a non-2xx answer is: a policy block (`-005`), else `-003` (5xx/408/429
    transient), the provider's own message quoted, clamped — and the key masked, should the
    provider echo it."""
    message, code = _error_fields(body)
    message = Masker([key]).text(message) if key else message
    if code in _POLICY or (status == 400 and "safety" in message.lower()):
        return NikaError(IG_005, f"{provider} refused the prompt on content policy: "
                         f"{message[:300]!r}; rephrase the prompt", details={
                             "provider": provider, "finish_reason": code or None,
                             "moderation_details": message[:300] or None})
    transient = wire.transient_status(status)
    hint = {401: f"; check {key_vars} in the engine environment",
            403: f"; check {key_vars} has access to this model",
            429: "; slow down or raise the provider quota",
            }.get(status, "; retry later" if transient else "; fix the request")
    if 300 <= status < 400:
        hint = "; a provider endpoint is never redirected — point the base URL at the server"
    said = f" ({message[:300]!r})" if message else ""
    return request_failed(provider, f"HTTP {status}{said}{hint}", transient=transient,
                          status=status)


def _error_fields(body: Any) -> tuple[str, str]:
    """The message and code of the providers' error bodies: OpenAI's and xAI's
    `{"error": {"message", "code"}}` (or a bare `"error": "…"`), Gemini's `{"error":
    {"message", "status"}}`."""
    if isinstance(body, Mapping) and "error" in body:
        body = body["error"]
    if isinstance(body, str):
        return body, ""
    if isinstance(body, Mapping):
        code = body.get("code") if isinstance(body.get("code"), str) else body.get("status")
        return str(body.get("message", "")), str(code or "")
    return "", ""


_RETRY: Final = wire.RetryPolicy(attempts=ATTEMPTS, base_s=1.0, cap_s=8.0)


async def retried(call: Callable[[], Awaitable[T]], *, timeout_s: float,
                  sleep: Callable[[float], Awaitable[None]], provider: str) -> T:
    """`call()` under the deadline, each attempt on its own, retried on a transient
    `NikaError` up to `ATTEMPTS` times (`_provider_wire.retried`)."""

    async def attempt() -> T:
        try:
            async with asyncio.timeout(timeout_s):
                return await call()
        except TimeoutError:
            raise request_failed(provider, f"no complete answer within {timeout_s:g} s "
                                 "(`timeout_ms:`); raise it for slow renders",
                                 transient=True) from None

    return await wire.retried(attempt, policy=_RETRY, judge=_judge, sleep=sleep)


def _judge(err: Exception) -> float | None:
    return 0.0 if isinstance(err, NikaError) and err.transient else None


def refuse_oversize(provider: str, found: Oversize) -> NikaError:
    """The `-007` a response over the cap is."""
    size = (f" announces {found.size} bytes" if found.size is not None
            else f" is `{found.encoding}`-coded, unbounded once decoded, past" if found.encoding
            else " streamed past")
    return fail(codes.BUILTIN_IMAGE_GENERATE_007,
                f"the {provider} response{size} the {MAX_RESPONSE_BYTES // (1 << 20)} MiB cap; "
                "request fewer or smaller images", provider=provider, reason="too_large")
