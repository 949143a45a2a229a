"""How long an editor waits for diagnostics from `nika lsp`, next to a cold `nika check`.

For a 20-task and a 500-task workflow (a chain: each task binds its predecessor's output),
the time from sending `textDocument/didChange` to receiving the `publishDiagnostics` of that
version (the server's debounce included), median and p95 over a series of edits; and the wall
time of a cold `nika check FILE` process on the same file, measured in the same run. The
server is spawned by pygls' `LanguageClient`, as an editor would.

Targets (issue 33): 20 tasks — median ≤ 30 ms and at least 3× faster than the cold check;
500 tasks — median no slower than the cold check.

Run: `.venv/bin/python bench/lsp_bench.py [--edits N] [--cold N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SRC = Path(__file__).resolve().parents[1] / "src"
SIZES = (20, 500)


def chain(n: int, salt: int = 0) -> str:
    """t0 → t1 → … (each task reads its predecessor through `with:`); `salt` varies a prompt."""
    lines = ["nika: bench-lsp", "tasks:",
             f'  t0: {{infer: {{model: mock/echo, prompt: "start {salt}"}}}}']
    body = 'infer: {model: mock/echo, prompt: "${{ with.p }}"}'
    lines += [f'  t{i}: {{with: {{p: "${{{{ tasks.t{i - 1}.output }}}}"}}, {body}}}'
              for i in range(1, n)]
    return "\n".join(lines) + "\n"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def edit_latencies(path: Path, n: int, edits: int) -> list[float]:
    """Seconds from each `didChange` to the diagnostics of that version."""
    client = LanguageClient("lsp-bench", "1")
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    await client.start_io(sys.executable, "-m", "nika.cli", "lsp", env=env)
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="yaml", version=0, text=chain(n))))
    first = await asyncio.wait_for(published.get(), 120)
    assert not first.diagnostics, first.diagnostics
    out = []
    for version in range(1, edits + 1):
        text = chain(n, version)
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text=text)]))
        while True:
            got = await asyncio.wait_for(published.get(), 120)
            if got.version == version:
                break
        out.append(time.perf_counter() - start)
        assert not got.diagnostics, got.diagnostics
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]
    return out


def cold_checks(path: Path, runs: int) -> list[float]:
    """Wall seconds of `nika check FILE` as a fresh process, `runs` times."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "nika.cli", "check", str(path)], check=True,
                       env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
                       stdout=subprocess.DEVNULL, timeout=120)
        out.append(time.perf_counter() - start)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=40, help="edits per size")
    parser.add_argument("--cold", type=int, default=7, help="cold checks per size")
    args = parser.parse_args()
    ok = True
    print(f"{'tasks':>6} {'edit median':>12} {'edit p95':>9} {'cold check':>11} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            path = Path(tmp) / f"chain{n}.nika.yaml"
            path.write_text(chain(n))
            latencies = asyncio.run(edit_latencies(path, n, args.edits))
            cold = statistics.median(cold_checks(path, args.cold))
            median, p95 = statistics.median(latencies), percentile(latencies, 0.95)
            print(f"{n:>6} {median * 1e3:>9.1f} ms {p95 * 1e3:>6.1f} ms {cold * 1e3:>8.1f} ms "
                  f"{cold / median:>5.1f}×")
            if n == 20:
                ok &= median <= 0.030 and cold / median >= 3
            else:
                ok &= median <= cold
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
