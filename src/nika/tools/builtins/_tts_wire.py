"""The two speech wires `nika:tts_generate` speaks, each one bounded request.

- OpenAI speech (`POST {base}/audio/speech` → raw audio), for `openai` and `local`, through
  the official `openai` SDK (its own retries off: the builtin owns the retry policy).
- ElevenLabs text-to-speech (`POST {base}/v1/text-to-speech/{voice_id}` → raw audio) over
  httpx2, the one HTTP client under every SDK nika uses: ElevenLabs ships no SDK nika depends
  on, and the wire is one POST.

Both read the body through the media builtins' one bounded client (`_provider_wire.client`):
a success body announced or sent past `cap` is refused without reading the rest, an error body
is cut at a few KiB even where the SDK reads it whole, and a redirect is never followed (a
provider endpoint is engine configuration: a `3xx` is a failure). A failure is a `WireError`
carrying what the builtin needs to name it; SDK and transport exceptions are translated here,
in one table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import httpx2

from nika.tools.builtins import _provider_wire as wire
from nika.tools.builtins._provider_wire import Oversize, oversize_in

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
    transient = wire.transient_status(status)
    return WireError(f"the provider answered HTTP {status}", status=status, body=body,
                     transient=transient,
                     retry_after=wire.retry_after(response.headers) if transient else None)


def _oversize(found: Oversize) -> WireError:
    if found.size is not None:
        return WireError(f"the provider announced {found.size} bytes, past the "
                         f"{found.cap}-byte cap", oversize=True)
    if found.encoding is not None:
        return WireError(f"the provider sent a `{found.encoding}`-coded body, unbounded once "
                         f"decoded, past the {found.cap}-byte cap", oversize=True)
    return WireError(f"the provider sent more than the {found.cap}-byte cap", oversize=True)


def _client(call: SpeechCall) -> httpx2.AsyncClient:
    return wire.client(call.timeout_s, call.cap, error_cap=_ERROR_BODY)


async def openai_speech(call: SpeechCall) -> bytes:
    """The audio bytes of one OpenAI-speech request (`openai` and `local`)."""
    import openai  # a speech task pays for the SDK, nothing else does

    extra: dict[str, Any] = {}
    if call.response_format is not None:
        extra["response_format"] = call.response_format
    if call.speed is not None:
        extra["speed"] = call.speed
    # A keyless local server still gets a placeholder: the SDK refuses an empty key.
    client = openai.AsyncOpenAI(api_key=call.key or "no-key", base_url=call.base_url,
                                timeout=httpx2.Timeout(call.timeout_s), max_retries=0,
                                http_client=_client(call))
    try:
        async with client, client.audio.speech.with_streaming_response.create(
            model=call.model, voice=call.voice, input=call.text, **extra
        ) as response:
            return await response.read()
    except Oversize as over:  # a body streamed past the cap
        raise _oversize(over) from None
    except openai.APIStatusError as err:
        raise _status_error(err.response, _text(err.response)) from None
    except openai.APITimeoutError:
        raise WireError("the provider did not answer in time", transient=True) from None
    except openai.APIConnectionError as err:
        found = oversize_in(err)  # announced past the cap: refused in the transport
        if found is not None:
            raise _oversize(found) from None
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
            _client(call) as client,
            client.stream("POST", url, params={"output_format": output_format},
                          headers=headers, json=body) as response,
        ):
            data = await response.aread()
            if response.status_code != 200:
                raise _status_error(response, data.decode("utf-8", "replace"))
            return data
    except Oversize as found:
        raise _oversize(found) from None
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
