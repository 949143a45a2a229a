"""A loopback HTTP/1.1 server that speaks the image providers' wires for the
`nika:image_generate` tests: the OpenAI images API (openai · xai · a LocalAI-style local
server) and Gemini's `generateContent`, with response and error bodies shaped as the
providers' public docs show them — and the hostile answers a provider could give (a 2 GB
announcement, a never-ending body, a silent socket, a redirect).

Replies are scripted per path as a queue (the last one repeats); every request is recorded
(method, path, headers, body) and every accepted connection counted.
"""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from nika.media import png

from ._loopback import Loopback, read_request

Behaviour = Literal["reply", "announce", "trickle", "silent"]


@dataclass
class Scripted:
    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    behaviour: Behaviour = "reply"


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class ImageServer(Loopback):
    """Scripted replies per path; `connections` counts accepted sockets."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: dict[str, list[Scripted]] = {}
        self.requests: list[Seen] = []

    def script(self, path: str, *replies: Scripted) -> None:
        self.scripts[path] = list(replies)

    def json(self, path: str, body: Any, status: int = 200, **headers: str) -> None:
        self.script(path, Scripted(status, json.dumps(body).encode(),
                                   {"content-type": "application/json", **headers}))

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        method, target, headers, body = await read_request(reader)
        path = target.split("?", 1)[0]
        self.requests.append(Seen(method, path, headers, body))
        queue = self.scripts.get(path) or [Scripted(404, b'{"error": "no route"}')]
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        await self._reply(writer, reply)

    async def _reply(self, writer: asyncio.StreamWriter, reply: Scripted) -> None:
        if reply.behaviour == "silent":
            await asyncio.sleep(3600)
        status_line = f"HTTP/1.1 {reply.status} X\r\n"
        extra = "".join(f"{k}: {v}\r\n" for k, v in reply.headers.items())
        if reply.behaviour == "announce":  # 2 GB promised, a trickle sent
            writer.write(f"{status_line}content-length: {2 << 30}\r\n{extra}\r\n".encode())
            writer.write(b"{" + b" " * 1024)
            await writer.drain()
            await asyncio.sleep(3600)
        if reply.behaviour == "trickle":  # a body that never ends
            writer.write(f"{status_line}transfer-encoding: chunked\r\n{extra}\r\n".encode())
            while True:
                writer.write(b"400\r\n" + b" " * 1024 + b"\r\n")
                await writer.drain()
                await asyncio.sleep(0.01)
        writer.write(f"{status_line}content-length: {len(reply.body)}\r\nconnection: close\r\n"
                     f"{extra}\r\n".encode() + reply.body)
        await writer.drain()


def serving() -> ImageServer:
    """A fresh server, to run under `async with`."""
    return ImageServer()


def png_bytes(width: int = 8, height: int = 6, seed: int = 0) -> bytes:
    """A real, small RGB PNG."""
    rng = np.random.default_rng(seed)
    return png.encode(rng.integers(0, 256, (height, width, 3), dtype=np.uint8))


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def signed_png() -> bytes:
    """A PNG carrying a C2PA manifest store in a `caBX` chunk (the PNG carriage)."""
    plain = png_bytes()
    at = len(png.SIGNATURE) + 25
    return plain[:at] + _chunk(b"caBX", b"\x00\x00\x00\x10jumbc2pa-manifest") + plain[at:]


def bomb_png() -> bytes:
    """A PNG whose IHDR declares 100000×100000 pixels (its data never decoded)."""
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    return (png.SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + _chunk(b"IEND", b""))


def gzip_bomb(inflated: int) -> bytes:
    """A gzip body of a few KB that inflates to `inflated` bytes of spaces (built a MiB at a
    time, so the test itself never holds the inflated body)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: the gzip container
    block = b" " * (1 << 20)
    parts = [packer.compress(block) for _ in range(inflated >> 20)]
    return b"".join(parts) + packer.compress(b" " * (inflated % (1 << 20))) + packer.flush()


def jpeg_bytes(width: int = 10, height: int = 7) -> bytes:
    """A JPEG header with an SOF0 frame (enough for header-only validation)."""
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", height, width) + b"\x03" + b"\x01\x22\x00" \
        + b"\x02\x11\x01\x03\x11\x01"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def openai_images(*payloads: bytes, usage: Mapping[str, Any] | None = None,
                  **extra: Any) -> dict[str, Any]:
    """An OpenAI images response (`ImagesResponse`): `created`, `data[].b64_json`, `usage`."""
    body: dict[str, Any] = {"created": 1_767_225_600,
                            "data": [{"b64_json": b64(p)} for p in payloads]}
    if usage is not None:
        body["usage"] = dict(usage)
    return body | extra


def openai_error(message: str, code: str | None, kind: str = "invalid_request_error") -> Any:
    """OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def gemini_answer(*parts: Mapping[str, Any], finish: str = "STOP") -> dict[str, Any]:
    """A `generateContent` response: candidates[].content.parts, finishReason, usageMetadata."""
    return {
        "candidates": [{"content": {"role": "model", "parts": list(parts)},
                        "finishReason": finish, "index": 0}],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 1290,
                          "totalTokenCount": 1302, "thoughtsTokenCount": 40},
        "modelVersion": "gemini-3.1-flash-image",
    }


def gemini_error(code: int, message: str, status: str) -> dict[str, Any]:
    """Google's error body: `{"error": {"code", "message", "status"}}`."""
    return {"error": {"code": code, "message": message, "status": status}}
