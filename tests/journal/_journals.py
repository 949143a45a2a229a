"""Real journals for the trace-view tests: a workflow run through `run_command`, offline."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from nika.journal.writer import GENESIS_CHAIN, encode, line_hash
from nika.run.launch import RunOptions, Streams, run_command
from nika.view.console import Console

MIXED: Final = """\
nika: view-demo
model: mock/echo
permits:
  tools: ["nika:*"]
tasks:
  hello:
    infer: { prompt: "Say hello." }
  draft:
    after: { hello: success }
    agent:
      prompt: "Draft a workflow that hashes a JSON document; check it with nika:compose."
      tools: ["nika:compose", "nika:[!c]*"]
      max_turns: 8
    on_error:
      recover: "stalled"
  wrapup:
    after: { draft: success }
    agent:
      prompt: "Finish."
      tools: ["nika:done"]
      max_turns: 3
"""
"""Three tasks: an `infer`, an agent mock/echo keeps stuck on nika:compose over 26 routed tools
(nudged at turn 3, stalled at turn 5, recovered), and an agent that finishes at turn 1."""


def run_journal(tmp: Path, text: str = MIXED) -> Path:
    """Run `text` from `tmp` and return its journal."""
    tmp.mkdir(parents=True, exist_ok=True)
    source = tmp / "flow.nika.yaml"
    source.write_text(text, encoding="utf-8")
    traces = tmp / "traces"
    run_command(RunOptions(file=source, trace_dir=traces), Streams(io.StringIO(), io.StringIO()),
                Console(out=io.StringIO()), environ={})
    [journal] = traces.glob("*.ndjson")
    return journal


def chained_journal(path: Path, frames: Sequence[tuple[str, Mapping[str, Any]]]) -> Path:
    """A journal of hand-written frames, chained as a real one: a reader's input, so any
    fields — missing, ill-typed or hostile ones included — which the typed bus never writes."""
    chain, lines = GENESIS_CHAIN, []
    for n, (kind, fields) in enumerate(frames, 1):
        line = encode({
            "chain": chain, "id": {"uuid": f"00000000-0000-7000-8000-{n:012x}"},
            "timestamp": 1_700_000_000_000_000_000 + n * 1_000_000, "kind": kind,
            "fields": [{"key": k, "value": v} for k, v in fields.items()], "run": "r",
            "correlation": None})
        lines.append(line)
        chain = line_hash(line)
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path
