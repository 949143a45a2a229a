"""How `nika check` grows with its input, and what it costs to start.

- tasks: chains and fan-outs of 10 … 10,000 tasks, best-of-N CPU time per size and, per
  10× step, the measured growth ratio next to n·log n's;
- islands: 1k, 8k and 64k `${{ }}` islands in `when:` strings (the issue-14 worst case:
  it was quadratic), plain and with a quote no island closes; one scalar is capped at
  64 KiB, so 64k islands ride in eight tasks of 8k each (5k for the quoted island);
- recovery: an `on_error.recover` ring (each task recovers from the next: one recovery
  cycle), a wait chain its head recovers from its tail (one long cycle) and a recovery chain
  (each recovers from the one before: acyclic, valid) of 1k, 4k and 16k tasks, the check's
  CPU and the size of what it prints (human and `--json`), with growth ratios (issue 28: the
  ring printed one finding per task, each naming the whole ring). A 16k ring is past the
  1 MiB document cap (1.2 MB), so these rows lift the cap in-process to measure the check
  itself; the CLI refuses such a file up front (`NIKA-YAML-010`);
- startup: `nika check` of a tiny file as a fresh process (cold), and through the opt-in
  warm check server (`--server`: the thin client's own CPU, then client + server CPU and the
  wall time of the whole answer), next to `python -c pass`; then where the cold start's
  imports go (`-X importtime`, nika's own modules apart from the libraries').

Every baseline is measured in the same run, so the ratios hold on any machine.
Run: `.venv/bin/python bench/check_bench.py [--startup] [--against SRC]`: `--startup` runs the
startup rows alone; `--against SRC` also starts a cold check from another checkout's `src/`
directory (e.g. an export of main) in the same run, the two taking turns.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import nika
from nika.check import check

SIZES = (10, 100, 1_000, 10_000)
RECOVERY = (1_000, 4_000, 16_000)
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


_EXEC = "exec: {command: [x]}"


def _recover(source: int) -> str:
    return f'on_error: {{recover: "${{{{ tasks.t{source}.output }}}}"}}'


def recovery_ring(n: int) -> str:
    """t_i recovers from t_(i+1), the last from t0: one recovery cycle through every task."""
    lines = ["nika: bench-ring", "permits: {exec: [x]}", "tasks:"]
    lines += [f"  t{i}: {{{_EXEC}, {_recover((i + 1) % n)}}}" for i in range(n)]
    return "\n".join(lines) + "\n"


def closed_chain(n: int) -> str:
    """t_i after t_(i-1); t0 recovers from the tail: one n-task cycle, one recovery edge."""
    lines = ["nika: bench-closed", "permits: {exec: [x]}", "tasks:"]
    lines.append(f"  t0: {{{_EXEC}, {_recover(n - 1)}}}")
    lines += [f"  t{i}: {{after: {{t{i - 1}: terminal}}, {_EXEC}}}" for i in range(1, n)]
    return "\n".join(lines) + "\n"


def recovery_chain(n: int) -> str:
    """t_i recovers from t_(i-1): every recovery await waits on its predecessor (acyclic)."""
    lines = ["nika: bench-recovery-chain", "permits: {exec: [x]}", "tasks:", f"  t0: {{{_EXEC}}}"]
    lines += [f"  t{i}: {{{_EXEC}, {_recover(i - 1)}}}" for i in range(1, n)]
    return "\n".join(lines) + "\n"


def printed(source: str) -> int:
    """Bytes `nika check` prints for `source`: the human view plus the `--json` verdict."""
    from nika._term import json_printable
    from nika.check.render import render_human

    human = render_human(check(source, lint=True), "bench.nika.yaml")
    return len(human.encode()) + len(json_printable(check(source).to_json(None)).encode())


def recovery() -> float:
    """The recovery rows; returns the worst step ratio (time or output) ÷ the linear one."""
    from nika.syntax import _yaml_text

    cap = _yaml_text.MAX_DOCUMENT_BYTES
    _yaml_text.MAX_DOCUMENT_BYTES = 1 << 26  # type: ignore[misc]  # see the module docstring
    worst = 0.0
    try:
        for name, make, valid in (("recovery ring", recovery_ring, False),
                                  ("chain closed by a recovery", closed_chain, False),
                                  ("recovery chain (acyclic)", recovery_chain, True)):
            sources = [make(n) for n in RECOVERY]
            times = [cpu(src, 3, valid=valid) for src in sources]
            worst = max(worst, table(f"{name} — check CPU", "tasks", RECOVERY, times,
                                     lambda m, n: n / m, "linear ×"))
            print(f"{'tasks':>8} {'in bytes':>10} {'out bytes':>10} {'out ×prev':>10}")
            sizes = [printed(src) for src in sources]
            for i, (n, src, out) in enumerate(zip(RECOVERY, sources, sizes, strict=True)):
                step = f"{out / sizes[i - 1]:10.1f}" if i else f"{'—':>10}"
                print(f"{n:>8} {len(src):>10} {out:>10} {step}")
                if i:
                    worst = max(worst, (out / sizes[i - 1]) / (n / RECOVERY[i - 1]))
    finally:
        _yaml_text.MAX_DOCUMENT_BYTES = cap  # type: ignore[misc]
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


def child_cpu(argv: list[str], repeat: int = 20, env: dict[str, str] | None = None) -> float:
    """Best-of-N CPU seconds (user + system) of a child process."""
    best = math.inf
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, stdout=subprocess.DEVNULL, env=env or _ENV, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, spent)
    return best


def interleaved_cpu(argvs: Sequence[list[str]], repeat: int = 20) -> list[float]:
    """Best-of-N CPU seconds (user + system) of each child, the children taking turns: a change
    in the machine's load falls on every figure alike."""
    best = [math.inf] * len(argvs)
    for _ in range(repeat):
        for i, argv in enumerate(argvs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(argv, stdout=subprocess.DEVNULL, env=_ENV, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            best[i] = min(best[i], spent)
    return best


def child_wall(argv: list[str], repeat: int = 20, env: dict[str, str] | None = None) -> float:
    """Best-of-N wall seconds of a child process, start to exit."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, env=env or _ENV, check=True)
        best = min(best, time.perf_counter() - start)
    return best


# Bytecode caches as a user has them: written once, then read.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

# What any check pays before nika's own code runs: the stdlib modules the model and the CLI
# stand on (typing, dataclasses and its inspect, re, argparse) and PyYAML, whose package
# import loads its whole pure-Python stack around the libyaml parser nika uses.
FLOOR = "import typing, dataclasses, re, argparse, yaml"

# The `nika` entry, started from the checkout whose `src/` directory is given.
_FROM_SRC = ("import sys; sys.path.insert(0, {src!r}); from nika.warm.client import main; "
             "sys.exit(main())")


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a live process has spent, from /proc (clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def warm(nika: Path, flow: Path, tmp: str) -> tuple[float, float, float]:
    """The warm path: the client's own CPU, client + server CPU per answer, and the best
    wall time of one answer, against a server started for the bench and stopped after."""
    run = Path(tmp) / "run"
    run.mkdir(mode=0o700)
    env = {**_ENV, "XDG_RUNTIME_DIR": str(run)}
    server = subprocess.Popen([sys.executable, "-m", "nika.warm.server"], env=env,
                              stdin=subprocess.DEVNULL)
    try:
        argv = [str(nika), "check", "--server", str(flow)]
        deadline = time.monotonic() + 60
        while not any(run.glob("nika/*.sock")):
            if server.poll() is not None or time.monotonic() > deadline:
                sys.exit("the warm check server did not start")
            time.sleep(0.05)
        child_cpu(argv, repeat=3, env=env)  # the first answers, warmed
        served = process_cpu(server.pid)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        client = child_cpu(argv, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        clients = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        total = (clients + process_cpu(server.pid) - served) / 20
        wall = child_wall(argv, env=env)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return client, total, wall


def imports(argv: list[str], repeat: int = 5) -> None:
    """Where a cold start's imports go: each module's own import time (`-X importtime`, the
    least of `repeat` runs; the flag's bookkeeping inflates every figure alike)."""
    least: dict[str, int] = {}
    for _ in range(repeat):
        run = subprocess.run([sys.executable, "-X", "importtime", *argv], env=_ENV, check=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for line in run.stderr.splitlines()[1:]:
            own, _total, name = line.removeprefix("import time:").split("|")
            module = name.strip()
            least[module] = min(least.get(module, 1 << 62), int(own))
    ours = sum(us for m, us in least.items() if m.split(".")[0] == "nika")
    print(f"\ncold imports (µs of own import time, least of {repeat} runs): {len(least)} modules, "
          f"{sum(least.values())} µs — nika's own {ours} µs, the libraries' "
          f"{sum(least.values()) - ours} µs; the costliest:")
    for module, us in sorted(least.items(), key=lambda kv: (-kv[1], kv[0]))[:15]:
        print(f"  {us:7d}  {module}")


def startup(against: Path | None = None) -> tuple[float, float, float]:
    """`nika check` on a 4-line file, cold (a fresh process) and warm (through the server),
    against `python -c pass`, with the import floor of its libraries beside it (and, given
    `against`, the cold check of that checkout's `src/`). Returns the cold CPU ratio, the warm
    client + server CPU ratio and the warm wall ratio."""
    nika_cmd = Path(sys.executable).with_name("nika")
    with tempfile.TemporaryDirectory() as tmp:
        flow = Path(tmp) / "tiny.nika.yaml"
        flow.write_text(TINY, encoding="utf-8")
        cold = [str(nika_cmd), "check", str(flow)]
        turns = [[sys.executable, "-c", "pass"], [sys.executable, "-c", FLOOR], cold]
        if against is not None:
            here = Path(nika.__file__).resolve().parents[1]
            turns += [[sys.executable, "-c", _FROM_SRC.format(src=str(src)), "check", str(flow)]
                      for src in (here, against)]
        for argv in turns[2:]:
            child_cpu(argv, repeat=1)  # writes the bytecode caches
        bare, floor, checked, *pair = interleaved_cpu(turns)
        bare_wall = child_wall([sys.executable, "-c", "pass"])
        cold_wall = child_wall(cold)
        client, total, wall = warm(nika_cmd, flow, tmp)
    print("\nstartup (best-of-20, fresh processes taking turns; CPU unless marked wall)")
    print(f"  python -c pass              {bare * 1000:7.1f} ms   wall {bare_wall * 1000:6.1f} ms")
    print(f"  library import floor        {floor * 1000:7.1f} ms   {floor / bare:5.1f}× bare"
          f"  ({FLOOR})")
    print(f"  cold: nika check tiny.yaml  {checked * 1000:7.1f} ms   {checked / bare:5.1f}× bare"
          f"   wall {cold_wall * 1000:6.1f} ms  {cold_wall / bare_wall:5.1f}× bare wall")
    print(f"  warm: the client alone      {client * 1000:7.1f} ms   {client / bare:5.1f}× bare")
    print(f"  warm: client + server       {total * 1000:7.1f} ms   {total / bare:5.1f}× bare"
          "   (mean; the server's CPU from /proc)")
    print(f"  warm: one answer, wall      {wall * 1000:7.1f} ms   {wall / bare_wall:5.1f}× bare"
          " wall")
    if pair:
        mine, theirs = pair
        print(f"  cold, this src/ by -c       {mine * 1000:7.1f} ms   {mine / bare:5.1f}× bare")
        print(f"  cold, --against src/ by -c  {theirs * 1000:7.1f} ms   {theirs / bare:5.1f}× bare"
              f"   ({against})")
    with tempfile.TemporaryDirectory() as tmp:
        flow = Path(tmp) / "tiny.nika.yaml"
        flow.write_text(TINY, encoding="utf-8")
        imports([str(nika_cmd), "check", str(flow)])
    return checked / bare, total / bare, wall / bare_wall


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--startup", action="store_true", help="the startup rows alone")
    parser.add_argument("--recovery", action="store_true", help="the recovery rows alone")
    parser.add_argument("--against", type=Path, metavar="SRC",
                        help="also start a cold check from this checkout's src/ directory")
    args = parser.parse_args(argv)
    if args.recovery:
        rings = recovery()
        print(f"\nworst recovery step ratio (CPU or output) ÷ linear ratio: {rings:.2f} "
              "(≈ 1 means linear)")
        return 0
    if not args.startup:
        worst = tasks()
        print(f"\nworst step ratio ÷ n·log n ratio: {worst:.2f} "
              "(≤ 1 means no worse than O(n log n))")
        linear = islands()
        print(f"\nworst island step ratio ÷ linear ratio: {linear:.2f} (≈ 1 means linear)")
        rings = recovery()
        print(f"\nworst recovery step ratio (CPU or output) ÷ linear ratio: {rings:.2f} "
              "(≈ 1 means linear)")
    cold, warm_cpu, warm_wall = startup(args.against)
    print(f"\nstartup ratio (target ≤ 4×): cold {cold:.1f}× · warm {warm_cpu:.1f}× CPU, "
          f"{warm_wall:.1f}× wall (`nika check --server`, opt-in)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
