"""The Ray executor against the local one, on simulated Ray clusters on this one machine.

Run: .venv/bin/python bench/ray_bench.py   (needs the nika[ray] extra; ~3 minutes)

1. Dispatch overhead: a 1,000-iteration `for_each` of a no-op verb (`nika:jq` over `1`,
   tens of µs of work), `max_parallel` and `--concurrency` 50, run by `nika run`'s own entry
   point with the local executor, then with `--executor ray` on a one-node cluster (4 CPUs).
   Figure: wall time / 1,000 = ms per task, and the ratio to local.
2. Scale-out: a 200-iteration `for_each` of `exec: sleep 0.5`, `max_parallel: 50`, on 1, 2
   and 3 simulated nodes of 8 CPUs each (one exec holds one CPU, so one node runs 8 at a
   time: the per-node capacity a real cluster has). Workers are warmed first (Ray keeps a
   node's idle workers); the figure is the warm wall time, with the ideal
   `ceil(200 / min(50, 8·nodes)) · 0.5 s` beside it and the local executor's run.

Wall-clock, on a shared 2-core machine: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from io import StringIO
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # every node on loopback

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from nika.run.launch import RunOptions, Streams, run_command  # noqa: E402
from nika.view.console import Console

STORE = 80 * 1024 * 1024
NOOP = """\
nika: bench-noop
permits: {{ tools: ["nika:jq"] }}
const:
  items: {items}
tasks:
  each:
    for_each: {{ items: "${{{{ const.items }}}}", max_parallel: 50 }}
    invoke: {{ tool: nika:jq, args: {{ input: 1, expression: "." }} }}
"""
SLEEP = """\
nika: bench-sleep
permits: {{ exec: ["sleep"] }}
const:
  items: {items}
tasks:
  each:
    for_each: {{ items: "${{{{ const.items }}}}", max_parallel: 50 }}
    exec: {{ command: ["sleep", "0.5"] }}
"""


def timed_run(path: Path, executor: str, work: Path) -> float:
    started = time.perf_counter()
    status = run_command(
        RunOptions(file=path, executor=executor, concurrency=50, trace_dir=work / "traces"),
        Streams(out=StringIO(), err=StringIO()), Console(out=StringIO()),
        environ={"PATH": os.environ["PATH"]})
    elapsed = time.perf_counter() - started
    assert status == 0, f"{path.name} on {executor} exited {status}"
    return elapsed


def cluster(nodes: int, cpus: int) -> Cluster:
    sim = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "object_store_memory": STORE, "include_dashboard": False})
    for _ in range(nodes):
        sim.add_node(num_cpus=cpus, object_store_memory=STORE)
    sim.wait_for_nodes()
    ray.init(address=sim.address, log_to_driver=False)
    return sim


def close(sim: Cluster) -> None:
    ray.shutdown()
    sim.shutdown()


def dispatch(work: Path) -> None:
    path = work / "noop.nika.yaml"
    path.write_text(NOOP.format(items=list(range(1000))))
    local = min(timed_run(path, "local", work) for _ in range(3))
    sim = cluster(1, 4)
    try:
        timed_run(path, "ray", work)  # warm the node's workers
        remote = min(timed_run(path, "ray", work) for _ in range(2))
    finally:
        close(sim)
    print("dispatch overhead, 1,000 no-op tasks (max_parallel 50)")
    print(f"  local executor      {local * 1000 / 1000:7.3f} ms/task")
    print(f"  ray, 1 node         {remote * 1000 / 1000:7.3f} ms/task   "
          f"x{remote / local:.1f} the local executor")


def scale_out(work: Path) -> None:
    path = work / "sleep.nika.yaml"
    path.write_text(SLEEP.format(items=list(range(200))))
    local = timed_run(path, "local", work)
    print("200 × `exec: sleep 0.5`, max_parallel 50 (8 CPUs per simulated node)")
    print(f"  local executor      {local:6.2f} s   (ideal {math.ceil(200 / 50) * 0.5:.2f} s)")
    base = None
    for nodes in (1, 2, 3):
        sim = cluster(nodes, 8)
        try:
            timed_run(path, "ray", work)  # warm every node's workers
            wall = timed_run(path, "ray", work)
        finally:
            close(sim)
        base = base or wall
        ideal = math.ceil(200 / min(50, 8 * nodes)) * 0.5
        print(f"  ray, {nodes} node(s)       {wall:6.2f} s   (ideal {ideal:.2f} s)   "
              f"speed-up x{base / wall:.2f} over 1 node")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        dispatch(work)
        scale_out(work)


if __name__ == "__main__":
    main()
