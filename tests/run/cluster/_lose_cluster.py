"""Helper process for `test_the_driver_losing_the_cluster…`: starts a two-node cluster, loses
its control store under a driver, and prints what the driver did as one JSON line.

    _lose_cluster.py TMP mid-task       `nika run --executor ray --ray-address …` as a separate
                                        driver; the control store dies once the exec runs
    _lose_cluster.py TMP before-start   this process joins as the driver (an embedder's own
                                        `ray.init`), the control store dies, then the run
                                        starts: its first submission meets a dead cluster
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path
from typing import Any

from ray.cluster_utils import Cluster

from nika.run.cluster.reaper import Reaper

WORKFLOW = """\
nika: lose-the-cluster
permits:
  exec: ["sleep"]
tasks:
  wait:
    exec:
      command: ["sleep", "30"]
"""
UNWITNESSED = """\
nika: lose-before-start
tasks:
  wait:
    invoke: { tool: nika:jq, args: { input: 1, expression: "." } }
"""
"""A pure builtin, shipped like any verb. (An attempt that never reaches a worker takes no
permit decision, and the chain walk counts a started `exec` as an effect exercised: a pure
task keeps the journal's verdict about the chain and the terminal frame alone.)"""
STORE = 80 * 1024 * 1024


def main(tmp: Path, when: str) -> None:
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "object_store_memory": STORE, "include_dashboard": False})
    cluster.add_node(num_cpus=1, object_store_memory=STORE)
    cluster.wait_for_nodes()
    # Ray's agents outlive a dead control store (re-parented to init, for a minute or more);
    # the engine's reaper, pointed at this cluster, ends them with the rest.
    nodes = [node for node in [cluster.head_node, *cluster.worker_nodes] if node is not None]
    reaper = Reaper(nodes[0].get_session_dir_path(),
                    [info.process.pid for node in nodes for infos in node.all_processes.values()
                     for info in infos if info.process is not None])
    reaper.start()
    (tmp / "lose.nika.yaml").write_text(WORKFLOW if when == "mid-task" else UNWITNESSED)
    traces = tmp / ".nika" / "traces"
    try:
        ran = (mid_task if when == "mid-task" else before_start)(cluster, tmp, traces)
    finally:
        for node in nodes:
            node.kill_all_processes(check_alive=False, allow_graceful=False)
        reaper.close()
    [journal] = sorted(traces.glob("*.ndjson"))
    (tmp / "journal.ndjson").write_bytes(journal.read_bytes())
    report = tmp / "report.json"
    print(json.dumps({**ran, "report": json.loads(report.read_text())
                      if report.exists() else None}), flush=True)


def mid_task(cluster: Cluster, tmp: Path, traces: Path) -> dict[str, Any]:
    nika = Path(sys.executable).with_name("nika")
    driver = subprocess.Popen(
        [str(nika), "run", "lose.nika.yaml", "--executor", "ray", "--ray-address",
         cluster.address, "--report", "report.json"],
        cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "NIKA_RAY_LOST_AFTER": "3"},
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        journals = sorted(traces.glob("*.ndjson")) if traces.exists() else []
        lines = journals[-1].read_text().splitlines() if journals else []
        if any('"kind":"verb_invoked"' in line and '"exec"' in line for line in lines):
            break
        time.sleep(0.2)
    killed = time.monotonic()
    # The control store dies; the driver's own node (its raylet) stays up. (Were that raylet
    # to die, Ray itself ends the driver process: the journal is then incomplete.)
    assert cluster.head_node is not None
    cluster.head_node.kill_gcs_server()
    try:
        out, err = driver.communicate(timeout=120)
    finally:
        driver.kill()
    return {"status": driver.returncode, "seconds": round(time.monotonic() - killed, 1),
            "stderr": err[-4000:], "stdout": out[-2000:]}


def before_start(cluster: Cluster, tmp: Path, traces: Path) -> dict[str, Any]:
    import ray

    from nika.run.launch import RunOptions, Streams, run_command
    from nika.view.console import Console

    ray.init(address=cluster.address, log_to_driver=False)
    assert cluster.head_node is not None
    cluster.head_node.kill_gcs_server()
    killed = time.monotonic()
    out, err = StringIO(), StringIO()
    with contextlib.redirect_stderr(err):  # the progress lines, as the CLI's stderr has them
        status = run_command(
            RunOptions(file=tmp / "lose.nika.yaml", report=tmp / "report.json",
                       trace_dir=traces, executor="ray"),
            Streams(out=out, err=err), Console(out=out, report=tmp / "report.json"),
            environ={**os.environ, "NIKA_RAY_LOST_AFTER": "3"})
    return {"status": status, "seconds": round(time.monotonic() - killed, 1),
            "stderr": err.getvalue()[-4000:], "stdout": out.getvalue()[-2000:]}


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
    # This process may be a driver whose control store is gone: Ray's exit hooks would wait
    # for it (a minute) before Ray ends the process. Everything is printed and reaped.
    os._exit(0)
