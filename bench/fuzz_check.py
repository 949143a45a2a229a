"""Fuzz `check()` with seeded mutations of real workflows; report what broke and what was slow.

Seeds: the conformance sample and the spec's examples (`tests/check/_mutator.py`). Every
case must yield a Verdict with no `NIKA-IMPL-001` and only registered codes; anything else is
a crash class, printed with its count and the first reproducer (written to --out). Prints
cases/s and the slowest inputs. Run: `.venv/bin/python bench/fuzz_check.py [--cases 100000]
[--seed 14] [--out /tmp/nika-fuzz]`.
"""

from __future__ import annotations

import argparse
import heapq
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: tests.check._mutator

from tests.check._mutator import SHARED, case, seeds  # noqa: E402

from nika.check import check  # noqa: E402
from nika.codes import CODES  # noqa: E402


def classify(source: str, path: str) -> tuple[str | None, float]:
    """The crash class of one case (None when it is sound) and its CPU seconds."""
    start = time.process_time()
    try:
        verdict = check(source, path=path)
    except Exception as exc:  # the contract says never; count it
        return f"escaped {type(exc).__name__}", time.process_time() - start
    spent = time.process_time() - start
    for e in [*verdict.errors, *verdict.hints]:
        if e.code == "NIKA-IMPL-001":
            return "IMPL-001 " + e.detail.split(";")[0][:120], spent
        if e.code not in CODES:
            return f"unregistered code {e.code}", spent
    if verdict.valid == bool(verdict.errors):
        return "valid disagrees with errors", spent
    return None, spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--out", type=Path, default=Path("/tmp/nika-fuzz"))
    parser.add_argument("--slowest", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    classes: Counter[str] = Counter()
    first: dict[str, Path] = {}
    slow: list[tuple[float, int, str, str]] = []  # the top few: (cpu s, case, seed, source)
    print(f"{len(seeds())} seeds · {args.cases} cases · seed {args.seed}")
    wall = time.perf_counter()
    for n in range(args.cases):
        name, source = case(rng)
        verdict, spent = classify(source, str(SHARED / name))
        heapq.heappush(slow, (spent, n, name, source))
        if len(slow) > args.slowest:
            heapq.heappop(slow)
        if verdict is not None:
            classes[verdict] += 1
            if verdict not in first:
                first[verdict] = args.out / f"crash-{len(first)}.yaml"
                first[verdict].write_text(source, encoding="utf-8")
        if (n + 1) % 10_000 == 0:
            rate = (n + 1) / (time.perf_counter() - wall)
            print(f"  {n + 1} cases · {rate:.0f} cases/s · {sum(classes.values())} crashes")
    elapsed = time.perf_counter() - wall
    print(f"\n{args.cases} cases in {elapsed:.1f} s: {args.cases / elapsed:.0f} cases/s")
    print(f"crash classes: {len(classes)}")
    for cls, count in classes.most_common():
        print(f"  {count:6d} × {cls}  (first: {first[cls]})")
    print("slowest inputs (CPU s, case, seed):")
    for spent, n, name, source in sorted(slow, reverse=True):
        file = args.out / f"slow-{n}.yaml"
        file.write_text(source, encoding="utf-8")
        print(f"  {spent:.4f}  case {n} ({file}, {len(source)} chars)  from {name}")
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
