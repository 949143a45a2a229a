"""A scripted loopback HTTP server for the provider wire tests.

The real SDKs talk to it over TCP on 127.0.0.1; each test scripts the replies (status, body,
headers, an optional delay) and afterwards reads the exact requests the SDK sent. The server
runs under uvicorn in a thread so the test's own event loop stays free for the SDK client.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


@dataclass(frozen=True)
class Reply:
    """One scripted response. `json` wins over `body`; `delay` holds the response back."""

    status: int = 200
    json: Any = None
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class ScriptedServer:
    """Serves scripted replies in order on a free loopback port; records every request."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self._replies: deque[Reply] = deque()
        self._release: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        app = Starlette(routes=[Route("/{path:path}", self._handle, methods=["GET", "POST"])])
        self._server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
        )
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.port: int = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *replies: Reply) -> None:
        self._replies.extend(replies)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._release = asyncio.Event()
        await self._server.serve(sockets=[self._sock])

    async def _handle(self, request: Request) -> Response:
        body = await request.body()
        self.requests.append(
            Seen(request.method, request.url.path, dict(request.headers.items()), body)
        )
        if not self._replies:
            return Response(b'{"error": "no scripted reply left"}', status_code=500)
        reply = self._replies.popleft()
        if reply.delay and self._release is not None:
            # Held until the delay passes or the server stops, whichever comes first.
            with suppress(TimeoutError):
                await asyncio.wait_for(self._release.wait(), reply.delay)
        if reply.json is not None:
            content, media = json.dumps(reply.json).encode(), "application/json"
        else:
            content, media = reply.body, "text/plain"
        return Response(
            content, status_code=reply.status, headers=dict(reply.headers), media_type=media
        )

    def start(self) -> None:
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the scripted server failed to start")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._loop is not None and self._release is not None:
            self._loop.call_soon_threadsafe(self._release.set)
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


@contextmanager
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def chat_completion(
    *,
    content: str | None = None,
    tool_calls: Sequence[tuple[str, str, str]] = (),
    finish_reason: str = "stop",
    usage: tuple[int, int] | None = (11, 7),
    model: str = "test-model",
) -> dict[str, Any]:
    """An OpenAI chat-completions response body; tool_calls are (id, name, arguments-json)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
            for cid, name, args in tool_calls
        ]
    out: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage is not None:
        out["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return out


def anthropic_message(
    *,
    blocks: list[dict[str, Any]],
    stop_reason: str = "end_turn",
    usage: dict[str, int] | None = None,
    model: str = "claude-test",
) -> dict[str, Any]:
    """An Anthropic Messages API response body."""
    out: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
    }
    out["usage"] = usage if usage is not None else {"input_tokens": 13, "output_tokens": 5}
    return out
