"""The HTML trace view at scale: file size, render time, and the browser's load time.

Run: .venv/bin/python bench/trace_view_bench.py

Each journal is written by a real run: the `Runner` with real builtins and the real
`JournalSink`; only the model is a fake at the `Provider` seam (`PagingModel`, below), which
reads one page per turn (two tool calls: `nika:hash`, `nika:jq`) so turns never repeat, and
finishes with `nika:done`. One agent, `[stall]` in its prompt, repeats its last call until the
stall guard nudges it and then stops it, so the page carries both highlights.

Scenarios: one agent of 500 turns; and a 10,000-frame run (three such agents plus plain
tasks). For each: frames, journal size, page size; the CPU time to fold and render the page
against the text view (`nika trace show`) of the same journal in this run; and, when Debian's
Chromium and chromedriver are installed (`make test` installs them), the page's load time
(navigation start to load end, best of 3) against an empty page in the same browser.
"""

from __future__ import annotations

import asyncio
import io
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from nika.agent.seams import (
    AssistantMessage,
    ModelRequest,
    ModelResponse,
    ToolCall,
    Usage,
    UserMessage,
)
from nika.journal.bus import EventBus
from nika.journal.verify import read_frames, verify
from nika.journal.writer import JournalSink, manifest
from nika.masking import Masker
from nika.run.permits import PermitGate
from nika.run.runner import Runner
from nika.run.services import ProviderPool, RunServices
from nika.run.toolbox import Toolbox
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow
from nika.view.trace_html import render_html
from nika.view.trace_show import render

TURNS = 500
STALL_FROM = TURNS - 6  # the [stall] agent repeats itself from here: nudged, then stopped


class PagingModel:
    """A fake model (at the `Provider` seam): page N on turn N, `nika:done` on the last turn;
    a prompt marked `[stall]` repeats one call from `STALL_FROM` on."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        turn = 1 + sum(isinstance(m, AssistantMessage) for m in request.messages)
        prompt = next(m.text for m in request.messages if isinstance(m, UserMessage))
        usage = Usage(input_tokens=40 + 3 * turn, output_tokens=24)
        if turn >= TURNS:
            return ModelResponse(text="done", usage=usage, stop_reason="tool_calls",
                                 tool_calls=(ToolCall("", "nika:done", {"result": turn}),))
        page = STALL_FROM if "[stall]" in prompt and turn >= STALL_FROM else turn
        calls = (ToolCall("", "nika:hash", {"content": f"page {page} of the report " * 8}),
                 ToolCall("", "nika:jq", {"input": {"page": page}, "expression": ".page"}))
        return ModelResponse(text=f"reading page {page}", usage=usage, tool_calls=calls,
                             stop_reason="tool_calls")


def workflow_text(agents: int, plain: int) -> str:
    lines = ["nika: trace-scale", "model: mock/echo", 'permits: { tools: ["nika:*"] }', "tasks:"]
    for i in range(agents):
        mark = " [stall]" if i == agents - 1 else ""
        lines += [f"  agent_{i}:", "    agent:",
                  f'      prompt: "Read every page of the report, hash each page and extract '
                  f'its number.{mark}"',
                  '      tools: ["nika:*"]', f"      max_turns: {TURNS}",
                  "    on_error: { recover: stalled }"]
    lines += [f"  step_{i}:\n    invoke: {{ tool: nika:emit, args: {{ event_type: tick }} }}"
              for i in range(plain)]
    return "\n".join(lines) + "\n"


def journal(text: str, directory: Path) -> bytes:
    source = text.encode()
    wf, findings = build_workflow(load_document(source))
    assert wf is not None and not findings, findings[:3]
    sink = JournalSink(directory, manifest=manifest(source, wf))
    bus = EventBus(sinks=[sink])
    gate = PermitGate(wf, bus)
    toolbox = Toolbox(wf, gate, base_dir=Path.cwd(), mask=Masker(), bus=bus)
    services = RunServices(
        workflow=wf, workflow_dir=Path.cwd(), base_dir=Path.cwd(), environ={}, secrets={},
        mask=Masker(), bus=bus, gate=gate, tools=toolbox.for_task, mcp=None,
        providers=ProviderPool(lambda model, timeout: PagingModel()), model=wf.model)
    result = asyncio.run(Runner(services, inputs={}, rng=random.Random(0)).run())
    bus.close()
    assert result.state == "success", result.state
    assert sink.path is not None
    return sink.path.read_bytes()


def cpu_ms(work: Callable[[], object], repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best * 1000


def text_view(data: bytes) -> None:
    console = Console(file=io.StringIO(), width=120, highlight=False)
    render(read_frames(data), verify(data), "journal", console)


def html_view(data: bytes) -> str:
    return render_html(read_frames(data), verify(data), "journal")


def browser_load_ms(pages: list[Path], profile: Path) -> list[float] | None:
    """Load time of each page (best of 3) in headless Chromium, or None without it."""
    if not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()):
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        out = []
        for page in pages:
            best = float("inf")
            for _ in range(3):
                driver.get(page.as_uri())
                best = min(best, float(driver.execute_script(
                    "const t = performance.getEntriesByType('navigation')[0];"
                    "return t.loadEventEnd - t.startTime;")))
            out.append(best)
        return out
    finally:
        driver.quit()


def main() -> None:
    scenarios = [("1 agent × 500 turns", 1, 0), ("10,000 frames (2 agents + tasks)", 2, 300)]
    print("trace view at scale (real runs, fake model at the Provider seam)")
    print(f"{'scenario':<34} {'frames':>7} {'turns':>6} {'journal':>9} {'page':>9} "
          f"{'text ms':>8} {'html ms':>8} {'html/text':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pages = [root / "empty.html"]
        pages[0].write_text("<!doctype html><title>empty</title>")
        for n, (name, agents, plain) in enumerate(scenarios):
            data = journal(workflow_text(agents, plain), root / f"traces{n}")
            frames = data.count(b"\n")
            page = html_view(data)
            turns = page.count("<details class='turn")
            text_ms = cpu_ms(lambda data=data: text_view(data))
            html_ms = cpu_ms(lambda data=data: html_view(data))
            (root / f"page{n}.html").write_text(page, encoding="utf-8")
            pages.append(root / f"page{n}.html")
            print(f"{name:<34} {frames:>7,} {turns:>6} {len(data) / 1024:>7,.0f} K "
                  f"{len(page.encode()) / 1024:>7,.0f} K {text_ms:>8.0f} {html_ms:>8.0f} "
                  f"{html_ms / text_ms:>9.2f}")
        loads = browser_load_ms(pages, root / "profile")
    if loads is None:
        print("browser load: skipped (no /usr/bin/chromium + chromedriver; `make test` "
              "installs them)")
        return
    base, *rest = loads
    print(f"browser load (headless Chromium, best of 3): empty page {base:.0f} ms")
    for (name, _, _), ms in zip(scenarios, rest, strict=True):
        print(f"  {name:<32} {ms:>6.0f} ms  ({ms / max(base, 1):.1f}× the empty page)")


if __name__ == "__main__":
    main()
