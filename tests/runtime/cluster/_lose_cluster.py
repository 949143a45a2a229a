"""Helper process for `test_the_driver_losing_the_cluster…`: starts a two-node cluster, runs
`nika run --executor ray --ray-address …` against it as a separate driver, kills the head
node's control store once the exec is running, and prints what the driver did as one JSON line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ray.cluster_utils import Cluster

WORKFLOW = """\
nika: lose-the-cluster
permits:
  exec: ["sleep"]
tasks:
  wait:
    exec:
      command: ["sleep", "30"]
"""
STORE = 80 * 1024 * 1024


def main(tmp: Path) -> None:
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "object_store_memory": STORE, "include_dashboard": False})
    cluster.add_node(num_cpus=1, object_store_memory=STORE)
    cluster.wait_for_nodes()
    (tmp / "lose.nika.yaml").write_text(WORKFLOW)
    nika = Path(sys.executable).with_name("nika")
    driver = subprocess.Popen(
        [str(nika), "run", "lose.nika.yaml", "--executor", "ray", "--ray-address",
         cluster.address, "--report", "report.json"],
        cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "NIKA_RAY_LOST_AFTER": "3"},
    )
    traces = tmp / ".nika" / "traces"
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
        for node in [cluster.head_node, *cluster.worker_nodes]:
            node.kill_all_processes(check_alive=False, allow_graceful=False)
    seconds = time.monotonic() - killed
    [journal] = sorted(traces.glob("*.ndjson"))
    (tmp / "journal.ndjson").write_bytes(journal.read_bytes())
    report = tmp / "report.json"
    print(json.dumps({"status": driver.returncode, "seconds": round(seconds, 1),
                      "stderr": err[-4000:], "stdout": out[-2000:],
                      "report": json.loads(report.read_text()) if report.exists() else None}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
