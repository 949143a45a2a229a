"""Real journals for the trace-view tests: a workflow run through `run_command`, offline."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Final

from nika.runtime.launch import RunOptions, Streams, run_command

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
                environ={})
    [journal] = traces.glob("*.ndjson")
    return journal
