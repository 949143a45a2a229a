"""Fixtures for the builtin tests: a tmp workflow directory, a recording permits judge, an
executor factory, and a loopback HTTP server the fetch tests script."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from nika.check.effects import Effect
from nika.errors import NikaError
from nika.tools.builtins import BuiltinExecutor, Context

from ._loopback import read_request


class RecordingJudge:
    """Records every effect it is asked about; refuses those whose target is in `refuse`
    (or starts with one of `refuse_prefixes`) with `NIKA-SEC-004`."""

    def __init__(self, refuse: set[str] | None = None, refuse_prefixes: tuple[str, ...] = ()):
        self.seen: list[Effect] = []
        self.refuse = refuse or set()
        self.refuse_prefixes = refuse_prefixes

    def judge(self, effect: Effect) -> NikaError | None:
        self.seen.append(effect)
        if effect.target in self.refuse or effect.target.startswith(self.refuse_prefixes):
            return NikaError(
                "NIKA-SEC-004",
                f"{effect.kind} {effect.target!r} is outside permits",
                details={"target": effect.target},
            )
        return None


@pytest.fixture
def base(tmp_path: Path) -> Path:
    root = tmp_path / "wf"
    root.mkdir()
    return root


@pytest.fixture
def judge() -> RecordingJudge:
    return RecordingJudge()


@pytest.fixture
def make(base: Path, judge: RecordingJudge) -> Callable[..., BuiltinExecutor]:
    def factory(**kwargs: Any) -> BuiltinExecutor:
        kwargs.setdefault("base_dir", base)
        kwargs.setdefault("judge", judge)
        kwargs.setdefault("task", "t1")
        masker = kwargs.pop("masker", None)
        return BuiltinExecutor(Context(**kwargs), masker=masker)

    return factory


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class LocalServer:
    """A minimal HTTP/1.1 server on 127.0.0.1 in the test's own event loop."""

    def __init__(self) -> None:
        self.routes: dict[str, Reply] = {}
        self.requests: list[Seen] = []
        self._server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def route(self, path: str, body: bytes | str = b"", status: int = 200, **headers: str) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = Reply(
            status, data, {k.replace("_", "-"): v for k, v in headers.items()}
        )

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)

    async def close(self) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            method, target, headers, body = await read_request(reader)
            self.requests.append(Seen(method, target, headers, body))
            reply = self.routes.get(target.split("?", 1)[0], Reply(404, b"not found"))
            out = [
                f"HTTP/1.1 {reply.status} X",
                f"content-length: {len(reply.body)}",
                "connection: close",
            ]
            out += [f"{k}: {v}" for k, v in reply.headers.items()]
            writer.write(("\r\n".join(out) + "\r\n\r\n").encode() + reply.body)
            await writer.drain()
        finally:
            writer.close()
            await writer.wait_closed()


@asynccontextmanager
async def _serving() -> AsyncIterator[LocalServer]:
    srv = LocalServer()
    await srv.start()
    try:
        yield srv
    finally:
        await srv.close()


@pytest.fixture
async def server() -> AsyncIterator[LocalServer]:
    async with _serving() as srv:
        yield srv


@pytest.fixture
async def server2() -> AsyncIterator[LocalServer]:
    """A second loopback server: another origin (another port)."""
    async with _serving() as srv:
        yield srv
