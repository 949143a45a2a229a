"""A loopback server speaking the two speech wires the tts providers use: OpenAI speech
(`POST /v1/audio/speech`, JSON in, raw audio out) and ElevenLabs text-to-speech
(`POST /v1/text-to-speech/{voice_id}`), each scripted per request, including the hostile
answers: a hang, a 2 GB announcement, a never-ending chunked body, a body cut short, a
redirect.

It records every request and every connection, so a test can prove no second connection
was opened (a redirect never followed)."""

from __future__ import annotations

import asyncio
import io
import json
import wave
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from ._loopback import Loopback, read_request

Kind = Literal["reply", "hang", "endless", "announce", "cut"]


@dataclass
class Step:
    """One scripted answer."""

    kind: Kind = "reply"
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Heard:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def wav(ms: int, rate: int = 8000) -> bytes:
    """A silent 16-bit mono WAV of exactly `ms` milliseconds."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * (rate * ms // 1000))
    return buffer.getvalue()


MP3 = b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x00" + b"\0" * 400
"""An ID3v2 tag header then one MPEG-1 Layer III frame header: sniffed as MP3."""


class SpeechServer(Loopback):
    """HTTP/1.1 on 127.0.0.1 in the test's own loop; `script(...)` queues answers, the
    default answer is a 200 with `default` bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[Heard] = []
        self.default = Step(body=wav(500), headers={"content-type": "audio/wav"})
        self._script: deque[Step] = deque()

    def script(self, *steps: Step) -> None:
        self._script.extend(steps)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await self._one(reader, writer):  # keep-alive: one request after another
            pass

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        method, target, headers, body = await read_request(reader)
        self.heard.append(Heard(method, target, headers, body))
        step = self._script.popleft() if self._script else self.default
        if step.kind == "hang":
            await asyncio.sleep(3600)
        out = [f"HTTP/1.1 {step.status} X"]
        out += [f"{k}: {v}" for k, v in step.headers.items()]
        if step.kind == "endless":
            writer.write(("\r\n".join([*out, "transfer-encoding: chunked"]) + "\r\n\r\n")
                         .encode())
            chunk = b"\xff\xfb\x90\x00" + b"\0" * 65532
            while True:
                writer.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                await writer.drain()
        if step.kind == "announce":
            writer.write(("\r\n".join([*out, "content-length: 2147483648"]) + "\r\n\r\n")
                         .encode() + MP3)
            await writer.drain()
            await asyncio.sleep(3600)
        if step.kind == "cut":  # promise a body, send a little of it, hang up
            writer.write(("\r\n".join([*out, "content-length: 100000"]) + "\r\n\r\n")
                         .encode() + MP3[:64])
            await writer.drain()
            return False
        out.append(f"content-length: {len(step.body)}")
        writer.write(("\r\n".join(out) + "\r\n\r\n").encode() + step.body)
        await writer.drain()
        return True


def speech_server() -> SpeechServer:
    """A fresh server, to run under `async with`."""
    return SpeechServer()
