"""The transport under `nika:image_generate`'s providers: one bounded HTTP client, one retry
policy, one error table.

Provider egress is ENGINE transport (like `infer:`), so the endpoint is engine config and the
permits' `net.http` does not govern it — but it is bounded all the same: redirects are never
followed (a 3xx is a failed request, so a provider cannot point the engine at another host), a
response announcing more than the cap is refused before its body is read and one streaming past
it is cut off where it crosses, and every attempt runs under the call's `timeout_ms:` deadline
(a never-ending trickle included). Only transient failures (5xx · 408 · 429 · timeout ·
connection) are retried, a bounded number of times.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import httpx2

from nika import codes
from nika.backoff import backoff_delay
from nika.errors import NikaError
from nika.masking import Masker
from nika.tools.builtins._base import fail

IG_003 = codes.BUILTIN_IMAGE_GENERATE_003
IG_005 = codes.BUILTIN_IMAGE_GENERATE_005
MAX_RESPONSE_BYTES: Final = 96 * 1024 * 1024
"""One response's cap: ten base64 images of the largest size a provider renders fit under it."""
ATTEMPTS: Final = 3
_TRANSIENT: Final = frozenset({408, 429})
_POLICY: Final = frozenset({"moderation_blocked", "content_policy_violation", "content_filter",
                            "safety", "image_generation_user_error"})
T = TypeVar("T")


class Oversize(Exception):
    """A response over the cap (announced or streamed)."""

    def __init__(self, size: int | None) -> None:
        super().__init__(f"response over {MAX_RESPONSE_BYTES} bytes")
        self.size = size


class _Capped(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, cap: int) -> None:
        self._inner, self._cap = inner, cap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._cap:
                raise Oversize(None)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """An HTTP transport whose responses are refused past `cap` bytes."""

    def __init__(self, cap: int = MAX_RESPONSE_BYTES) -> None:
        self._inner = httpx2.AsyncHTTPTransport(retries=0)
        self._cap = cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        announced = response.headers.get("content-length", "")
        if announced.isdigit() and int(announced) > self._cap:
            await response.aclose()
            raise Oversize(int(announced))
        return httpx2.Response(response.status_code, headers=response.headers,
                               stream=_Capped(response.stream, self._cap),
                               extensions=response.extensions)

    async def aclose(self) -> None:
        await self._inner.aclose()


def client(timeout_s: float) -> httpx2.AsyncClient:
    """The one HTTP client of a call: capped, no redirects, no proxy or netrc from the
    environment (engine config is explicit)."""
    return httpx2.AsyncClient(transport=CappedTransport(), follow_redirects=False,
                              trust_env=False, timeout=timeout_s)


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


def oversize_in(err: BaseException) -> Oversize | None:
    """The `Oversize` an SDK wrapped (as a cause or context), if any."""
    seen: BaseException | None = err
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, Oversize):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


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
    transient = status >= 500 or status in _TRANSIENT
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


async def retried(call: Callable[[], Awaitable[T]], *, timeout_s: float,
                  sleep: Callable[[float], Awaitable[None]], provider: str) -> T:
    """`call()` under the deadline, retried on a transient `NikaError` up to `ATTEMPTS` times
    (exponential, equal-jitter backoff: `nika.backoff`). Cancellation passes straight through."""
    rng = random.Random()
    attempt = 0
    while True:
        attempt += 1
        try:
            async with asyncio.timeout(timeout_s):
                return await call()
        except TimeoutError:
            err = request_failed(provider, f"no complete answer within {timeout_s:g} s "
                                 "(`timeout_ms:`); raise it for slow renders", transient=True)
        except NikaError as caught:
            err = caught
        if not err.transient or attempt == ATTEMPTS:
            raise err
        await sleep(backoff_delay(1.0, attempt, cap=8.0, rng=rng))


def refuse_oversize(provider: str, found: Oversize) -> NikaError:
    """The `-007` a response over the cap is."""
    size = f" announces {found.size} bytes" if found.size is not None else " streamed past"
    return fail(codes.BUILTIN_IMAGE_GENERATE_007,
                f"the {provider} response{size} the {MAX_RESPONSE_BYTES // (1 << 20)} MiB cap; "
                "request fewer or smaller images", provider=provider, reason="too_large")
