"""The ONE boundary where SDK and HTTP exceptions become `NikaError` (spec 05 · NIKA-INFER-001).

A table maps exception classes to builders; the first row whose classes match wins, so
subclasses come first. Every message leaving here passes through `scrub`, so an API key the
provider echoed back never reaches an error, a log or a trace.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import anthropic
import httpx2
import openai

from nika import codes
from nika.errors import NikaError

INFER_FAILED: Final = codes.INFER_001
_REDACTED: Final = "[REDACTED]"
_MESSAGE_CAP: Final = 500
# Statuses a retry may cure: request timeout, conflict/lock, too early, rate limit, server side.
_TRANSIENT_STATUSES: Final = frozenset({408, 409, 425, 429})


@dataclass(frozen=True, slots=True)
class ErrorContext:
    """What a translated error may name: never the key itself, only the variable that holds it."""

    provider: str
    model: str
    base_url: str
    key_var: str | None
    local: bool
    secrets: tuple[str, ...] = ()


def scrub(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret replaced by a marker (longest first, so overlaps vanish whole)."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, _REDACTED)
    return text


def _scrub_value(value: Any, secrets: tuple[str, ...]) -> Any:
    return scrub(value, secrets) if isinstance(value, str) else value


def _error(
    ctx: ErrorContext,
    detail: str,
    *,
    category: str = "provider_error",
    transient: bool,
    **extra: Any,
) -> NikaError:
    details = {"provider": ctx.provider, "model": ctx.model, **extra}
    return NikaError(
        INFER_FAILED,
        scrub(detail, ctx.secrets),
        category=category,
        transient=transient,
        details={k: _scrub_value(v, ctx.secrets) for k, v in details.items()},
    )


def retry_after_secs(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, else `Retry-After` as seconds or
    as an HTTP date (relative to `now`, a POSIX timestamp). None when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - now, 0.0)


def provider_message(body: object) -> str:
    """The human part of an error body (OpenAI-compatible and Anthropic shapes)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])[:_MESSAGE_CAP]
        if isinstance(inner, str):
            return inner[:_MESSAGE_CAP]
        return json.dumps(body, default=str)[:_MESSAGE_CAP]
    if body is None:
        return "no error body"
    return str(body)[:_MESSAGE_CAP]


def malformed(ctx: ErrorContext, what: str) -> NikaError:
    """A reply that is not the wire format we asked for (wrong endpoint, proxy page, bad server)."""
    return _error(
        ctx,
        f"{ctx.provider} returned a malformed response for model {ctx.model!r}: {what}; check that "
        f"{ctx.base_url} is an endpoint speaking the {ctx.provider} API",
        transient=False,
    )


def _key_fix(ctx: ErrorContext) -> str:
    if ctx.key_var is None:
        return "check the provider's credentials"
    if ctx.local:
        return f"set {ctx.key_var} if this server requires a key"
    return f"set {ctx.key_var} to a valid {ctx.provider} API key (engine environment or secrets:)"


def _status(exc: Any, ctx: ErrorContext, now: float) -> NikaError:
    status: int = exc.status_code
    said = provider_message(exc.body)
    if status in (401, 403):
        refused = "rejected the API key" if status == 401 else "denied access"
        return _error(
            ctx,
            f"{ctx.provider} {refused} (HTTP {status}: {said}); {_key_fix(ctx)}"
            + (f" with access to model {ctx.model!r}" if status == 403 else ""),
            transient=False,
            status_code=status,
        )
    if status == 404:
        return _error(
            ctx,
            f"{ctx.provider} does not know model {ctx.model!r} (HTTP 404 from {ctx.base_url}: "
            f"{said}); check the name after '{ctx.provider}/' against the models this server "
            "serves, or the endpoint's base URL",
            transient=False,
            status_code=status,
        )
    if status in _TRANSIENT_STATUSES or status >= 500:
        wait = retry_after_secs(exc.response.headers, now)
        extra: dict[str, Any] = {"status_code": status}
        if wait is not None:
            extra["retry_after_secs"] = wait
        reason = "rate-limited the request" if status == 429 else "failed"
        return _error(
            ctx,
            f"{ctx.provider} {reason} (HTTP {status}: {said}); transient, retried with backoff",
            transient=True,
            **extra,
        )
    return _error(
        ctx,
        f"{ctx.provider} refused the request for model {ctx.model!r} (HTTP {status}: {said}); "
        "fix the task's request (prompt, tools, max_tokens, temperature, schema:)",
        transient=False,
        status_code=status,
    )


def _network(ctx: ErrorContext, detail: str) -> NikaError:
    """A failure on the way to the server: a network error, always worth another attempt."""
    return _error(ctx, detail, category="network_error", transient=True)


def _timeout(exc: Any, ctx: ErrorContext, now: float) -> NikaError:
    return _network(ctx, f"{ctx.provider} did not answer within the deadline ({ctx.base_url}); "
                         "raise the task's timeout: if the model needs longer")


def _connection(exc: Any, ctx: ErrorContext, now: float) -> NikaError:
    cause = exc.__cause__ or exc
    return _network(ctx, f"could not reach {ctx.provider} at {ctx.base_url} "
                         f"({type(cause).__name__}: {cause}); check that the server is running "
                         "and the base URL is right")


def _malformed_exc(exc: Any, ctx: ErrorContext, now: float) -> NikaError:
    return malformed(ctx, str(exc))


def _other(exc: Any, ctx: ErrorContext, now: float) -> NikaError:
    return _error(ctx, f"{ctx.provider} call failed: {type(exc).__name__}: {exc}", transient=False)


_Builder = Callable[[Any, ErrorContext, float], NikaError]

_TABLE: Final[tuple[tuple[tuple[type[BaseException], ...], _Builder], ...]] = (
    ((openai.APITimeoutError, anthropic.APITimeoutError, httpx2.TimeoutException), _timeout),
    ((openai.APIConnectionError, anthropic.APIConnectionError, httpx2.TransportError), _connection),
    (
        (
            openai.APIResponseValidationError,
            anthropic.APIResponseValidationError,
            httpx2.DecodingError,
        ),
        _malformed_exc,
    ),
    ((openai.APIStatusError, anthropic.APIStatusError), _status),
    ((openai.OpenAIError, anthropic.AnthropicError, httpx2.HTTPError), _other),
)

TRANSLATED: Final = tuple(cls for classes, _ in _TABLE for cls in classes)
"""Every exception class `translate` knows; adapters catch exactly these."""


def translate(
    exc: BaseException, ctx: ErrorContext, *, now: Callable[[], float] = time.time
) -> NikaError:
    """The `NikaError` for an SDK or HTTP exception (one of `TRANSLATED`)."""
    for classes, build in _TABLE:
        if isinstance(exc, classes):
            return build(exc, ctx, now())
    raise TypeError(f"no translation for {type(exc).__name__}")
