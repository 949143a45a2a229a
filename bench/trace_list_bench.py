"""`nika trace ls` over a project of 1,000 journals, against folding each journal whole.

Run: .venv/bin/python bench/trace_list_bench.py

One real journal (a `nika run` of a three-task workflow with the mock provider) is copied
1,000 times under a temporary `.nika/traces/`; `journal.runs.runs` reads each copy's two ends,
the baseline decodes every line of every copy (what a list that re-folded its journals would
pay). A second project holds the same journals as an older engine wrote them (no tokens on the
terminal frame), which `runs` folds for their model calls' tokens. Best of 5, wall clock.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from nika.journal.runs import runs

FLOW = """\
nika: bench-list
model: mock/echo
tasks:
  a: {infer: {prompt: "one"}}
  b: {infer: {prompt: "two"}, after: {a: success}}
  c: {infer: {prompt: "three"}, after: {b: success}}
"""


def _best(work: Callable[[], object], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
        subprocess.run([sys.executable, "-m", "nika.cli", "run", "flow.nika.yaml", "--no-gc"],
                       cwd=root, check=True, capture_output=True, timeout=120)
        traces = root / ".nika" / "traces"
        [journal] = traces.glob("*.ndjson")
        for i in range(999):
            shutil.copy(journal, traces / f"copy-{i:04d}.ndjson")

        def fold() -> None:
            for path in traces.glob("*.ndjson"):
                for line in path.read_bytes().splitlines():
                    json.loads(line)

        older = root / "older"
        older.mkdir()
        *body, end = journal.read_bytes().rstrip(b"\n").split(b"\n")
        frame = json.loads(end)
        frame["fields"] = [f for f in frame["fields"]
                           if f["key"] not in ("input_tokens", "output_tokens", "duration_ms")]
        old_bytes = b"\n".join([*body, json.dumps(frame).encode()]) + b"\n"
        for i in range(1000):
            (older / f"old-{i:04d}.ndjson").write_bytes(old_bytes)

        listed = _best(lambda: runs(traces))
        listed_old = _best(lambda: runs(older))
        folded = _best(fold)
        count = len(runs(traces))
        print(f"trace ls · {count} journals of {journal.stat().st_size:,} bytes")
        print(f"  runs():           {listed * 1000:8.1f} ms")
        print(f"  runs(), older:    {listed_old * 1000:8.1f} ms  (no totals: tokens folded)")
        print(f"  fold every line:  {folded * 1000:8.1f} ms  (baseline)")
        print(f"  ratio:            {listed / folded:8.2f}x the baseline")


if __name__ == "__main__":
    main()
