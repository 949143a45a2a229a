"""The two speech wires `nika:tts_generate` speaks, each one bounded request.

- OpenAI speech (`POST {base}/audio/speech` → raw audio), for `openai` and `local`, through
  the official `openai` SDK (its own retries off: the builtin owns the retry policy).
- ElevenLabs text-to-speech (`POST {base}/v1/text-to-speech/{voice_id}` → raw audio) over
  httpx2, the one HTTP client under every SDK nika uses: ElevenLabs ships no SDK nika depends
  on, and the wire is one POST.

Both read the body through one bounded transport (`_CappedTransport`): a success body
announced or sent past `cap` is refused without reading the rest, an error body is cut at a
few KiB even where the SDK reads it whole. Neither follows a redirect (a provider endpoint is
engine configuration: a `3xx` is a failure, and no second connection is opened). A failure is
a `WireError` carrying what the builtin needs to name it; SDK and transport exceptions are
translated here, in one table.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Final

import httpx2

_ERROR_BODY: Final = 4096
"""At most this many bytes of an error body are read (the detail quotes fewer)."""


@dataclass(frozen=True, slots=True)
class SpeechCall:
    """One request on the wire: where, with which key, and what to say."""

    base_url: str
    key: str | None
    model: str
    voice: str
    text: str
    response_format: str | None
    speed: float | None
    timeout_s: float
    cap: int


class WireError(Exception):
    """A failed request: its HTTP status (None: no response), the start of the error body,
    whether a retry may help (and the wait the server asked for, in seconds), and what went
    wrong in a few words."""

    def __init__(self, reason: str, *, status: int | None = None, body: str = "",
                 transient: bool = False, oversize: bool = False,
                 retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.body = body
        self.transient = transient
        self.oversize = oversize
        self.retry_after = retry_after


def _status_error(response: httpx2.Response, body: str) -> WireError:
    status = response.status_code
    if 300 <= status < 400:
        return WireError(f"the provider answered a redirect (HTTP {status}); redirects are "
                         "never followed", status=status, body=body)
    transient = status in (408, 429) or status >= 500
    # Only the delay-seconds form: an HTTP-date would read the clock for a hint.
    after = str(response.headers.get("retry-after", "") or "").strip()
    return WireError(f"the provider answered HTTP {status}", status=status, body=body,
                     transient=transient,
                     retry_after=float(after) if transient and after.isdigit() else None)


class _CappedBody(httpx2.AsyncByteStream):
    """A response body read through a bound: a success body past `cap` (announced or sent)
    is a `WireError`, the rest never read; any other body is cut at `_ERROR_BODY` bytes, so
    an SDK reading an error body whole still reads a bounded one."""

    def __init__(self, inner: httpx2.AsyncByteStream, response: httpx2.Response,
                 cap: int) -> None:
        self._inner = inner
        self._success = 200 <= response.status_code < 300
        self._cap = cap
        self._length = str(response.headers.get("content-length", "") or "")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._success and self._length.isdigit() and int(self._length) > self._cap:
            raise WireError(f"the provider announced {int(self._length)} bytes, past the "
                            f"{self._cap}-byte cap", oversize=True)
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if self._success and seen > self._cap:
                raise WireError(f"the provider sent more than the {self._cap}-byte cap",
                                oversize=True)
            if not self._success and seen >= _ERROR_BODY:
                yield chunk[:len(chunk) - (seen - _ERROR_BODY)]
                return
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CappedTransport(httpx2.AsyncBaseTransport):
    """The HTTP transport with every response body bounded (`_CappedBody`)."""

    def __init__(self, cap: int) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._cap = cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)  # an async transport's body
        response.stream = _CappedBody(stream, response, self._cap)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


async def openai_speech(call: SpeechCall) -> bytes:
    """The audio bytes of one OpenAI-speech request (`openai` and `local`)."""
    import openai  # a speech task pays for the SDK, nothing else does

    extra: dict[str, Any] = {}
    if call.response_format is not None:
        extra["response_format"] = call.response_format
    if call.speed is not None:
        extra["speed"] = call.speed
    timeout = httpx2.Timeout(call.timeout_s)
    http = openai.DefaultAsyncHttpxClient(follow_redirects=False, timeout=timeout,
                                          transport=_CappedTransport(call.cap))
    # A keyless local server still gets a placeholder: the SDK refuses an empty key.
    client = openai.AsyncOpenAI(api_key=call.key or "no-key", base_url=call.base_url,
                                timeout=timeout, max_retries=0, http_client=http)
    try:
        async with client, client.audio.speech.with_streaming_response.create(
            model=call.model, voice=call.voice, input=call.text, **extra
        ) as response:
            return await response.read()
    except openai.APIStatusError as err:
        raise _status_error(err.response, _text(err.response)) from None
    except openai.APITimeoutError:
        raise WireError("the provider did not answer in time", transient=True) from None
    except openai.APIConnectionError:
        raise WireError("the provider could not be reached", transient=True) from None
    except (httpx2.TimeoutException, httpx2.TransportError) as err:  # mid-body, past the SDK
        raise _transport(err) from None


async def elevenlabs_speech(call: SpeechCall, output_format: str) -> bytes:
    """The audio bytes of one ElevenLabs text-to-speech request."""
    body: dict[str, Any] = {"text": call.text, "model_id": call.model}
    if call.speed is not None:
        body["voice_settings"] = {"speed": call.speed}
    url = f"{call.base_url.rstrip('/')}/v1/text-to-speech/{call.voice}"
    headers = {"xi-api-key": call.key or "", "accept": "audio/*"}
    try:
        async with (
            httpx2.AsyncClient(follow_redirects=False, timeout=call.timeout_s,
                               transport=_CappedTransport(call.cap)) as client,
            client.stream("POST", url, params={"output_format": output_format},
                          headers=headers, json=body) as response,
        ):
            data = await response.aread()
            if response.status_code != 200:
                raise _status_error(response, data.decode("utf-8", "replace"))
            return data
    except (httpx2.TimeoutException, httpx2.TransportError) as err:
        raise _transport(err) from None


def _transport(err: Exception) -> WireError:
    if isinstance(err, httpx2.TimeoutException):
        return WireError("the provider did not answer in time", transient=True)
    return WireError("the provider connection failed", transient=True)


def _text(response: httpx2.Response) -> str:
    try:
        return response.content[:_ERROR_BODY].decode("utf-8", "replace")
    except httpx2.ResponseNotRead:
        return ""
