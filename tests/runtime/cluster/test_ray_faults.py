"""Faults under the Ray executor, each on a cluster of its own making: a node dying mid-run
(retried by the task's `retry:`, never by Ray), a `timeout:` reaching into a worker, and the
driver losing the whole cluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import pytest
from tests.runtime.cluster._cluster import Cluster, fixture, node_named, run

from nika.runtime.trace import verify

pytestmark = pytest.mark.ray

HERE: Final = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    yield from fixture({"a": {"pool": 2}, "b": {"pool": 2}})


def _wait(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def _ran_exec_on(traces: Path, node: str) -> bool:
    journals = sorted(traces.glob("*.ndjson"))
    return bool(journals) and any(
        '"verb","value":"exec"' in line and node in line
        for line in journals[-1].read_text().splitlines())


NODE_LOSS: Final = """\
nika: node-loss
permits:
  exec: ["sleep"]
tasks:
  work:
    for_each:
      items: [1, 2, 3, 4]
      max_parallel: 4
    retry: { max_attempts: 3, backoff_ms: 100, jitter: false }
    exec:
      command: ["sleep", "6"]
"""


def test_a_node_removed_mid_run_is_retried_and_the_run_succeeds_cleanly(
    cluster: Cluster, tmp_path: Path
) -> None:
    path = tmp_path / "loss.nika.yaml"
    path.write_text(NODE_LOSS)
    doomed = node_named(cluster, "a")
    removed: list[str] = []

    def remove_node_a() -> None:
        # Once a sleep runs on node `a`, `a` dies under it.
        if _wait(lambda: _ran_exec_on(tmp_path / "traces-ray", doomed.node_id), 60):
            cluster.remove_node(doomed, allow_graceful=False)
            removed.append(doomed.node_id)

    killer = threading.Thread(target=remove_node_a, daemon=True)
    killer.start()
    result = run(path, tmp_path, executor="ray",
                 env={"NIKA_RAY_RESOURCES": json.dumps({"exec": {"resources": {"pool": 1}}})})
    killer.join(10)
    assert removed == [doomed.node_id]
    assert result.status == 0, result.stderr
    work = result.task("work")
    assert work["status"] == "success" and work["output"] == ["", "", "", ""]
    # Every attempt on the dead node was lost and retried; nothing else was (one budget).
    retries = result.fields_of("task_retrying")
    assert len(retries) >= 2 and {f["code"] for f in retries} == {"NIKA-CLUSTER-001"}
    assert work["attempts"] == 4 + len(retries)
    # A clean journal: the chain verifies, one terminal frame for the task, the run succeeded.
    assert result.journal_path is not None
    assert verify(result.journal_path.read_bytes()).status == "clean"
    kinds = [f["kind"] for f in result.journal]
    assert kinds.count("task_completed") == 1 and "task_failed" not in kinds
    assert kinds[-1] == "workflow_completed"
    execs = [f["node"] for f in result.fields_of("verb_invoked") if f.get("verb") == "exec"]
    assert doomed.node_id in execs and len(set(execs)) == 2  # lost on `a`, retried on `b`


TIMEOUT: Final = """\
nika: remote-timeout
permits:
  exec: ["sleep"]
tasks:
  slow:
    timeout: "3s"
    exec:
      command: ["sleep", "41.25"]
"""


def _sleepers() -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", b"41.25"]:
            found.append(int(proc.name))
    return found


def test_a_timeout_cancels_the_remote_attempt_and_reaps_its_child(
    cluster: Cluster, tmp_path: Path
) -> None:
    path = tmp_path / "timeout.nika.yaml"
    path.write_text(TIMEOUT)
    result = run(path, tmp_path, executor="ray")
    assert result.status == 1
    assert result.task("slow")["error"]["code"] == "NIKA-TIMEOUT-001"
    assert _wait(lambda: not _sleepers(), 15), "the worker's child outlived the timeout"


def test_the_driver_losing_the_cluster_ends_the_run_with_a_coded_error(tmp_path: Path) -> None:
    # In a child process: Ray's own client ends a driver whose cluster stayed gone for a
    # minute, and this test's process must never be that driver.
    done = subprocess.run(
        [sys.executable, str(HERE / "_lose_cluster.py"), str(tmp_path)],
        capture_output=True, text=True, timeout=240,
        env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["status"] == 1, outcome["stderr"]
    assert outcome["seconds"] < 60  # ended by the watchdog, not by Ray's own minute
    assert "NIKA-CLUSTER-002" in outcome["stderr"]
    report = outcome["report"]
    assert report["workflow_state"] == "failure"
    assert report["tasks"]["wait"]["error"]["code"] == "NIKA-CLUSTER-002"
    journal = (tmp_path / "journal.ndjson").read_bytes()
    last = json.loads(journal.splitlines()[-1])
    assert last["kind"] == "workflow_failed"
    assert verify(journal).status == "clean"
