"""The library example (docs/agent.md, linked from the README) runs offline and prints what its
comments say."""

from __future__ import annotations

import re
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "docs" / "agent.md"
SECTION = "## Use the agent loop as a library"


def _example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None, "the section has no python code block"
    return match.group(1)


def test_the_example_is_at_most_fifteen_lines() -> None:
    lines = [line for line in _example().splitlines() if line.strip()]
    assert len(lines) <= 15


def test_the_example_runs_and_prints_what_it_promises() -> None:
    out = StringIO()
    with redirect_stdout(out):
        exec(compile(_example(), str(README), "exec"), {"__name__": "readme_example"})
    assert out.getvalue().splitlines() == ["2 + 3 = 5 2", "5", "finished"]
