"""How `nika check` grows with the task count: chains and fan-outs of 10 … 10,000 tasks.

Prints the best-of-N check time per size and, per 10× step, the measured growth ratio
next to n·log n's. The baseline is the smallest size, measured in the same run, so the
ratios hold on any machine. Run: `.venv/bin/python bench/check_bench.py`.
"""

from __future__ import annotations

import gc
import math
import sys
import time
from collections.abc import Callable

from nika.check import check

SIZES = (10, 100, 1_000, 10_000)


def chain(n: int) -> str:
    """t0 → t1 → … : every task binds its predecessor's output through `with:`."""
    lines = ["nika: bench-chain", "tasks:", '  t0: {infer: {prompt: "start"}}']
    body = 'infer: {prompt: "${{ with.p }}"}'
    lines += [
        f'  t{i}: {{with: {{p: "${{{{ tasks.t{i - 1}.output }}}}"}}, {body}}}' for i in range(1, n)
    ]
    return "\n".join(lines) + "\n"


def fan(n: int) -> str:
    """One root, n-2 leaves binding it, one join folding the leaves as a group."""
    lines = ["nika: bench-fan", "tasks:", '  root: {infer: {prompt: "start"}}']
    leg = 'group: legs, with: {r: "${{ tasks.root.output }}"}, infer: {prompt: "${{ with.r }}"}'
    lines += [f"  l{i}: {{{leg}}}" for i in range(n - 2)]
    lines.append('  join: {with: {legs: "${{ group.legs }}"}, infer: {prompt: "${{ with.legs }}"}}')
    return "\n".join(lines) + "\n"


def best_of(source: str, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        gc.collect()  # start each sample from the same heap state, not the last sample's garbage
        # CPU time, not wall time: the figure must not depend on what else the machine runs.
        start = time.process_time()
        verdict = check(source)
        best = min(best, time.process_time() - start)
        if not verdict.valid:
            sys.exit(f"bench workflow refused: {verdict.errors[0].code} {verdict.errors[0].detail}")
    return best


def report(name: str, make: Callable[[int], str]) -> list[float]:
    times = [best_of(make(n), 5 if n <= 1_000 else 3) for n in SIZES]
    print(f"\n{name}")
    print(f"{'tasks':>8} {'cpu s':>10} {'×prev':>8} {'n·log n ×':>10}")
    for i, (n, t) in enumerate(zip(SIZES, times, strict=True)):
        if i == 0:
            print(f"{n:>8} {t:>10.4f} {'—':>8} {'—':>10}")
            continue
        m = SIZES[i - 1]
        nlogn = (n * math.log(n)) / (m * math.log(m))
        print(f"{n:>8} {t:>10.4f} {t / times[i - 1]:>8.1f} {nlogn:>10.1f}")
    return times


def main() -> int:
    worst = 0.0
    for name, make in (("chain", chain), ("fan-out", fan)):
        times = report(name, make)
        for i in range(1, len(SIZES)):
            m, n = SIZES[i - 1], SIZES[i]
            worst = max(worst, (times[i] / times[i - 1]) / ((n * math.log(n)) / (m * math.log(m))))
    print(f"\nworst step ratio ÷ n·log n ratio: {worst:.2f} (≤ 1 means no worse than O(n log n))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
