"""The one bounded transport and the one retry loop under the media builtins' providers
(`nika:image_generate`, `nika:tts_generate`).

Provider egress is ENGINE transport (like `infer:`): the endpoint is engine configuration and
the permits' `net.http` does not govern it, but every request is bounded all the same:

- a redirect is never followed (a `3xx` is a failed request, so a provider cannot point the
  engine at another host, and no second connection is opened);
- a body announcing more than the cap is refused before a byte of it is read, and one
  streaming past the cap is cut off where it crosses (`Oversize`); an error body may instead
  be truncated at a few KiB, so an SDK that reads it whole still reads a bounded one;
- the body is never content-decoded: every request asks `accept-encoding: identity` and a
  2xx answer coded otherwise is `Oversize` (the cap counts wire bytes, and a 10 KB gzip body
  can inflate to gigabytes past it); an error body so coded is kept as its raw bytes;
- no proxy or netrc comes from the environment (engine configuration is explicit);
- only transient failures are retried (`transient_status`, timeouts, lost connections), a
  bounded number of times, with the one backoff formula — stretched to a server's own
  `Retry-After` (delay-seconds only) up to a bound.

Each builtin keeps its own wire shapes and its own error table; this module names no code.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Final, TypeVar

import httpx2

from nika.backoff import backoff_delay

T = TypeVar("T")
_TRANSIENT: Final = frozenset({408, 429})


def transient_status(status: int) -> bool:
    """Whether a retry may help an HTTP answer: 5xx, 408 (timeout) and 429 (rate limit) —
    the one table, `nika:fetch`'s included."""
    return status >= 500 or status in _TRANSIENT


def retry_after(headers: httpx2.Headers) -> float | None:
    """The seconds a server's `Retry-After` asks for: only the delay-seconds form (an
    HTTP-date would read the clock for a hint)."""
    after = str(headers.get("retry-after", "") or "").strip()
    return float(after) if after.isdigit() else None


class Oversize(Exception):
    """A response body over the cap: `size` is the announced length (None: it streamed past,
    or its size is unknowable before decoding — then `encoding` names its content-coding)."""

    def __init__(self, size: int | None, cap: int, *, encoding: str | None = None) -> None:
        super().__init__(f"response over {cap} bytes")
        self.size = size
        self.cap = cap
        self.encoding = encoding


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


class _CappedBody(httpx2.AsyncByteStream):
    """A body read through a bound: past `cap` it is `Oversize`; with `truncate` set it is
    instead cut there, silently (an error body: its start is all a detail quotes)."""

    def __init__(self, inner: httpx2.AsyncByteStream, cap: int, *, truncate: bool) -> None:
        self._inner, self._cap, self._truncate = inner, cap, truncate

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._cap and not self._truncate:
                raise Oversize(None, self._cap)
            if seen >= self._cap and self._truncate:
                yield chunk[:len(chunk) - (seen - self._cap)]
                return
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """An HTTP transport whose response bodies are refused past `cap` bytes — every body, or
    with `error_cap` set only a 2xx one, any other being truncated at `error_cap` bytes."""

    def __init__(self, cap: int, *, error_cap: int | None = None) -> None:
        self._inner = httpx2.AsyncHTTPTransport(retries=0)
        self._cap = cap
        self._error_cap = error_cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers["accept-encoding"] = "identity"  # the cap counts what is kept
        response = await self._inner.handle_async_request(request)
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)  # an async transport's body
        coding = str(response.headers.get("content-encoding", "") or "").strip().lower()
        coded = coding not in ("", "identity")
        if self._error_cap is not None and not 200 <= response.status_code < 300:
            if coded:  # its raw bytes, truncated, are all a detail needs
                del response.headers["content-encoding"]
            response.stream = _CappedBody(stream, self._error_cap, truncate=True)
            return response
        if coded:
            await response.aclose()
            raise Oversize(None, self._cap, encoding=coding)
        announced = str(response.headers.get("content-length", "") or "")
        if announced.isdigit() and int(announced) > self._cap:
            await response.aclose()
            raise Oversize(int(announced), self._cap)
        response.stream = _CappedBody(stream, self._cap, truncate=False)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def client(timeout_s: float, cap: int, *, error_cap: int | None = None) -> httpx2.AsyncClient:
    """The one HTTP client of a provider call: capped (`CappedTransport`), no redirects, no
    proxy or netrc from the environment."""
    return httpx2.AsyncClient(transport=CappedTransport(cap, error_cap=error_cap),
                              follow_redirects=False, trust_env=False, timeout=timeout_s)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently a transient failure is retried: `attempts` in all, the
    backoff's base and cap (`nika.backoff`), and the longest `Retry-After` honoured."""

    attempts: int = 3
    base_s: float = 1.0
    cap_s: float = 8.0
    retry_after_cap_s: float = 30.0


Judge = Callable[[Exception], float | None]
"""A failure's verdict: None — final, raise it; else transient, with the seconds the server
asked to wait (0: it asked nothing)."""


async def retried(call: Callable[[], Awaitable[T]], *, policy: RetryPolicy, judge: Judge,
                  sleep: Callable[[float], Awaitable[None]]) -> T:
    """`call()`, retried while `judge` rules its failure transient, at most `policy.attempts`
    times in all (exponential, equal-jitter backoff, at least the server's capped
    `Retry-After`). The last failure is raised as it is; cancellation passes straight through.
    The caller bounds the time (per attempt inside `call`, or over the whole loop)."""
    rng = random.Random()
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call()
        except Exception as err:
            asked = judge(err)
            if asked is None or attempt >= policy.attempts:
                raise
        wait = backoff_delay(policy.base_s, attempt, cap=policy.cap_s, rng=rng)
        await sleep(max(wait, min(asked, policy.retry_after_cap_s)))
