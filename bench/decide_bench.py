"""What the decision kernel costs (spec 11, `nika.decide`).

- receipts per second for the pr-triage bundle over its five golden snapshots: the whole
  evaluation (every bundle law judged, monotonicity over the fixtures included, then the
  snapshot and the receipt) and, beside it, with the bundle validated once up front (what a
  run pays when one bundle scores many snapshots would be the latter); each receipt is checked
  byte for byte against its golden first;
- the check-time cost of a literal bundle: `nika check` of a workflow whose `nika:decide` task
  carries the bundle inline (const), or names its JSON side file, against the same workflow
  whose bundle the check cannot see (a templated path), measured in the same run: the ratio is
  what judging the bundle's laws at check adds.

CPU time, best of N, so the figures do not depend on what else the machine runs.
Run: `.venv/bin/python bench/decide_bench.py [--seconds S]`.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nika.check import check
from nika.decide import evaluate, receipt_json, validate

GOLDENS = next(
    (up / "shared" / "nika-spec" / "conformance" / "decision-goldens"
     for up in Path(__file__).resolve().parents
     if (up / "shared" / "nika-spec").is_dir()),
    Path("/work/shared/nika-spec/conformance/decision-goldens"),
)
CASES = ("s1-dominant-risk", "s2-missing-required", "s3-straddle", "s4-conflict", "s5-cold")


def rate(work: Callable[[], Any], seconds: float) -> float:
    """Calls per CPU second, best of five windows of `seconds / 5` each."""
    best = 0.0
    for _ in range(5):
        gc.collect()
        calls, start = 0, time.process_time()
        while (spent := time.process_time() - start) < seconds / 5:
            work()
            calls += 1
        best = max(best, calls / spent)
    return best


def best_cpu(work: Callable[[], Any], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def _checker(source: str, path: str) -> Callable[[], Any]:
    return lambda: check(source, path=path)


def workflow(bundle_arg: str, const: dict[str, Any] | None = None) -> str:
    doc: dict[str, Any] = {
        "nika": "decide-bench",
        "inputs": {"p": {"type": "string", "default": "rubric.json"}},
        "permits": {"fs": {"read": ["*.json"]}},
        "tasks": {"d": {"invoke": {"tool": "nika:decide", "args": {
            "bundle": bundle_arg, "evidence": "${{ inputs.p }}"}}}},
    }
    if const is not None:
        doc["const"] = const
    return json.dumps(doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per receipt-rate row")
    args = parser.parse_args()
    bundle = json.loads((GOLDENS / "pr-triage.bundle.json").read_text())
    snapshots = [json.loads((GOLDENS / f"{c}.snapshot.json").read_text()) for c in CASES]
    for case, snap in zip(CASES, snapshots, strict=True):
        want = (GOLDENS / f"{case}.receipt.golden.json").read_text().rstrip("\n")
        if receipt_json(evaluate(bundle, snap)) != want:
            sys.exit(f"{case}: the receipt is not the golden's bytes")
    print("goldens: 5/5 receipts byte-equal")

    def whole() -> None:
        for snap in snapshots:
            receipt_json(evaluate(bundle, snap))

    checked = validate(bundle)

    def scored() -> None:
        for snap in snapshots:
            receipt_json(evaluate(checked, snap))

    full = rate(whole, args.seconds) * len(snapshots)
    warm = rate(scored, args.seconds) * len(snapshots)
    print(f"receipts/s, pr-triage (validate + evaluate + canonical JSON): {full:10,.0f}")
    print(f"receipts/s, pr-triage (bundle validated once):                {warm:10,.0f}")
    print(f"  bundle validation share of a receipt: {1 - full / warm:6.1%}")

    with tempfile.TemporaryDirectory() as tmp:
        side = Path(tmp) / "rubric.json"
        side.write_text(json.dumps(bundle))
        path = str(Path(tmp) / "w.nika.yaml")
        rows = {
            "baseline (bundle unseen)": workflow("${{ inputs.p }}"),
            "inline bundle (const)": workflow("${{ const.b }}", {"b": bundle}),
            "side-file bundle": workflow("rubric.json"),
        }
        for source in rows.values():  # warm the imports (the kernel loads with its first call)
            verdict = check(source, path=path)
            if not verdict.valid:
                sys.exit(f"bench workflow refused: {verdict.errors[0].detail}")
        times = {label: best_cpu(_checker(source, path), 30) for label, source in rows.items()}
    base = times["baseline (bundle unseen)"]
    print("\nnika check of one nika:decide task (cpu ms, best of 30)")
    for label, spent in times.items():
        print(f"  {label:<26} {spent * 1000:8.3f} ms   ×{spent / base:5.2f} vs baseline")


if __name__ == "__main__":
    main()
