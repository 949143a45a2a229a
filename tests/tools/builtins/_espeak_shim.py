"""A small OpenAI-speech server over Debian's `espeak-ng`: `POST /v1/audio/speech` with the
wire's JSON (`model`, `input`, `voice`, `speed`, `response_format`) answers the WAV espeak-ng
writes for `input`. A real local voice for `provider: local`, nothing downloaded.

Run as `python _espeak_shim.py`: it listens on 127.0.0.1 (a free port), prints
`port <n>` on its first stdout line, and serves until terminated. The text reaches
espeak-ng on stdin (never argv: no option injection), the WAV comes back through a file
(`-w`) so its header carries real sizes, not the streaming placeholder of `--stdout`.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_WPM = 175  # espeak-ng's default rate; the wire's `speed` scales it
_TIMEOUT_S = 60


class _Speech(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 — the http.server hook's name
        if self.path != "/v1/audio/speech":
            return self._answer(404, b'{"error": {"message": "not found"}}', "application/json")
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
        text = str(body.get("input", ""))
        rate = round(_WPM * float(body.get("speed", 1.0)))
        with tempfile.TemporaryDirectory() as scratch:
            out = Path(scratch) / "speech.wav"
            done = subprocess.run(
                ["espeak-ng", "--stdin", "-s", str(rate), "-w", str(out)],
                input=text.encode(), capture_output=True, timeout=_TIMEOUT_S, check=False,
            )
            if done.returncode != 0 or not out.is_file():
                message = json.dumps({"error": {"message": done.stderr.decode(errors="replace")}})
                return self._answer(500, message.encode(), "application/json")
            self._answer(200, out.read_bytes(), "audio/wav")

    def _answer(self, status: int, data: bytes, media: str) -> None:
        self.send_response(status)
        self.send_header("content-type", media)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 — the hook's name
        """Quiet: the test reads stdout for the port only."""


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Speech)
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
