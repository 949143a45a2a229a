"""How `nika check` grows with its input, and what it costs to start.

- tasks: chains and fan-outs of 10 … 10,000 tasks, best-of-N CPU time per size and, per
  10× step, the measured growth ratio next to n·log n's;
- islands: 1k, 8k and 64k `${{ }}` islands in `when:` strings (the issue-14 worst case:
  it was quadratic), plain and with a quote no island closes; one scalar is capped at
  64 KiB, so 64k islands ride in eight tasks of 8k each (5k for the quoted island);
- startup: `nika check` of a tiny file as a fresh process, next to `python -c pass`.

Every baseline is measured in the same run, so the ratios hold on any machine.
Run: `.venv/bin/python bench/check_bench.py`.
"""

from __future__ import annotations

import gc
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from nika.check import check

SIZES = (10, 100, 1_000, 10_000)
ISLANDS = (1_000, 8_000, 64_000)


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


def cpu(source: str, repeat: int, *, valid: bool = False) -> float:
    """Best-of-N CPU seconds of one check; `valid` demands the bench workflow pass."""
    best = math.inf
    for _ in range(repeat):
        gc.collect()  # start each sample from the same heap state, not the last sample's garbage
        # CPU time, not wall time: the figure must not depend on what else the machine runs.
        start = time.process_time()
        verdict = check(source)
        best = min(best, time.process_time() - start)
        if valid and not verdict.valid:
            sys.exit(f"bench workflow refused: {verdict.errors[0].code} {verdict.errors[0].detail}")
    return best


def table(title: str, unit: str, sizes: tuple[int, ...], times: list[float],
          expected: Callable[[int, int], float], label: str) -> float:
    """Print one growth table; returns the worst measured step ratio ÷ the `expected` one."""
    print(f"\n{title}")
    print(f"{unit:>8} {'cpu s':>10} {'×prev':>8} {label:>10}")
    worst = 0.0
    for i, (n, t) in enumerate(zip(sizes, times, strict=True)):
        if i == 0:
            print(f"{n:>8} {t:>10.4f} {'—':>8} {'—':>10}")
            continue
        step = expected(sizes[i - 1], n)
        print(f"{n:>8} {t:>10.4f} {t / times[i - 1]:>8.1f} {step:>10.1f}")
        worst = max(worst, (t / times[i - 1]) / step)
    return worst


def nlogn(m: int, n: int) -> float:
    return (n * math.log(n)) / (m * math.log(m))


def tasks() -> float:
    """The task rows; returns the worst step ratio ÷ n·log n's."""
    worst = 0.0
    for name, make in (("chain", chain), ("fan-out", fan)):
        times = [cpu(make(n), 5 if n <= 1_000 else 3, valid=True) for n in SIZES]
        worst = max(worst, table(name, "tasks", SIZES, times, nlogn, "n·log n ×"))
    return worst


def when_islands(n: int, island: str, per: int) -> str:
    """`n` islands in `when:` strings of at most `per` islands each."""
    tasks = [
        f"  t{start}:\n    when: '{island * min(per, n - start)}'\n    infer: {{prompt: hi}}\n"
        for start in range(0, n, per)
    ]
    return "nika: bench-islands\ntasks:\n" + "".join(tasks)


def islands() -> float:
    """The island rows (hostile inputs: a refusal is fine); returns the worst step ratio ÷
    the linear ratio."""
    worst = 0.0
    for label, island, per in (("plain ${{ a }}", "${{ a }}", 8_000),
                               ('unclosed quote ${{ "\\" }}', '${{ "\\" }}', 5_000)):
        times = [cpu(when_islands(n, island, per), 3) for n in ISLANDS]
        title = f"islands in when: — {label}"
        worst = max(worst, table(title, "islands", ISLANDS, times, lambda m, n: n / m, "linear ×"))
    return worst


TINY = "nika: hello\ntasks:\n  greet:\n    infer: { prompt: hi }\n"


def child_cpu(argv: list[str], repeat: int = 20) -> float:
    """Best-of-N CPU seconds (user + system) of a child process."""
    # Bytecode caches as a user has them: written once, then read.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    best = math.inf
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, spent)
    return best


# What any check pays before nika's own code runs: the stdlib modules the model and the CLI
# stand on (typing, dataclasses and its inspect, re, pathlib, argparse) and PyYAML, whose
# package import loads its whole pure-Python stack around the libyaml parser nika uses.
FLOOR = "import typing, dataclasses, re, pathlib, argparse, yaml"


def startup() -> float:
    """`nika check` on a 4-line file as a fresh process, against `python -c pass`, with the
    import floor of its libraries beside it."""
    nika = Path(sys.executable).with_name("nika")
    with tempfile.TemporaryDirectory() as tmp:
        flow = Path(tmp) / "tiny.nika.yaml"
        flow.write_text(TINY, encoding="utf-8")
        child_cpu([str(nika), "check", str(flow)], repeat=1)  # writes the bytecode caches
        bare = child_cpu([sys.executable, "-c", "pass"])
        floor = child_cpu([sys.executable, "-c", FLOOR])
        checked = child_cpu([str(nika), "check", str(flow)])
    print("\nstartup (best-of-20 CPU, fresh processes)")
    print(f"  python -c pass        {bare * 1000:7.1f} ms")
    print(f"  library import floor  {floor * 1000:7.1f} ms   {floor / bare:.1f}× bare  ({FLOOR})")
    print(f"  nika check tiny.yaml  {checked * 1000:7.1f} ms   {checked / bare:.1f}× bare")
    return checked / bare


def main() -> int:
    worst = tasks()
    print(f"\nworst step ratio ÷ n·log n ratio: {worst:.2f} (≤ 1 means no worse than O(n log n))")
    linear = islands()
    print(f"\nworst island step ratio ÷ linear ratio: {linear:.2f} (≈ 1 means linear)")
    ratio = startup()
    print(f"\nstartup ratio: {ratio:.1f}× (target ≤ 4×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
