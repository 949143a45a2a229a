"""Faults under the Ray executor, each on a cluster of its own making: a node dying mid-run
(retried by the task's `retry:`, never by Ray), a `timeout:` reaching into a worker, and the
driver losing the whole cluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from tests.run.cluster._cluster import (
    Cluster,
    add_node,
    fixture,
    node_named,
    run,
    terminate,
)

from nika.journal.verify import verify
from nika.run.cluster import RayConfig, RayPlacement
from nika.run.cluster.worker import Body, Packet, UnitCall, unit_stream

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


POOL: Final = json.dumps({"exec": {"resources": {"pool": 1}}})
"""Every exec on a node with a `pool` (never the head)."""

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
    result = run(path, tmp_path, executor="ray", env={"NIKA_RAY_RESOURCES": POOL})
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


OUTCOME_THEN_DEATH: Final = """\
nika: outcome-then-node-death
permits:
  exec: ["sleep"]
tasks:
  work:
    retry: { max_attempts: 2, backoff_ms: 100, jitter: false }
    exec:
      command: ["sleep", "1"]
"""


def _outcome_then_node_death(marker: Path, *, kill_child: bool) -> Body:
    """The real Ray task body, with a fault at the one instant a node's death can strike
    unseen: on a task's first attempt, once the outcome has left for the driver and before
    the stream ends, it names its node in `marker` and waits for that node to die under it.
    With `kill_child` the attempt's `sleep` is first SIGKILLed, as Ray's teardown of a dead
    node does, so that outcome is the genuine-looking "exited with status -9".

    Self-contained (a closure, shipped by value): a worker imports nothing of the tests."""

    def body(call: UnitCall) -> Iterator[list[Packet]]:
        import ray

        def kill_my_sleep(within_s: float) -> None:
            deadline = time.monotonic() + within_s
            while time.monotonic() < deadline:
                for proc in Path("/proc").iterdir():
                    try:
                        ppid = int((proc / "stat").read_text().rpartition(")")[2].split()[1])
                        argv = (proc / "cmdline").read_bytes().split(b"\0")
                    except (OSError, ValueError, IndexError):
                        continue
                    if ppid == os.getpid() and argv[0] == b"sleep":
                        os.kill(int(proc.name), signal.SIGKILL)
                        return
                time.sleep(0.01)

        first = call.unit.attempt == 1
        to_kill = first and kill_child
        for batch in unit_stream(call):
            if to_kill and any(m[0] == "frame" for m in batch):  # verb_invoked: it spawns
                to_kill = False
                kill_my_sleep(10)
            yield batch
            if first and batch[-1][0] in ("done", "error"):
                marker.write_text(str(ray.get_runtime_context().get_node_id()))
                time.sleep(60)  # ended by the node's death (the test removes it)

    return body


@pytest.mark.parametrize("kill_child", [False, True], ids=["success", "killed-child"])
def test_an_outcome_whose_node_dies_before_the_stream_ends_is_node_loss_and_retried(
    cluster: Cluster, tmp_path: Path, kill_child: bool
) -> None:
    # A node of its own to lose: the nodes left stay enough for the retry and later tests.
    add_node(cluster, f"spare{int(kill_child)}", pool=2)
    cluster.wait_for_nodes()
    path = tmp_path / "race.nika.yaml"
    path.write_text(OUTCOME_THEN_DEATH)
    marker = tmp_path / "outcome-sent"
    removed: list[str] = []

    def remove_the_node() -> None:
        if _wait(marker.exists, 60):
            time.sleep(0.5)  # the outcome's message is in the driver's hands by now
            node_id = marker.read_text()
            node = next(n for n in cluster.worker_nodes if n.node_id == node_id)
            cluster.remove_node(node, allow_graceful=False)
            removed.append(node_id)

    killer = threading.Thread(target=remove_the_node, daemon=True)
    killer.start()
    config = RayConfig.from_env({"NIKA_RAY_RESOURCES": POOL})
    result = run(path, tmp_path, executor="ray",
                 placement=RayPlacement(config, body=_outcome_then_node_death(
                     marker, kill_child=kill_child)))
    killer.join(10)
    assert len(removed) == 1
    assert result.status == 0, result.stderr
    work = result.task("work")
    # The first attempt's outcome was never taken for the task's: its node died before the
    # stream ended, so it is node loss, retried once on a live node, and one success.
    assert work["status"] == "success" and work["output"] == "" and work["attempts"] == 2
    retries = result.fields_of("task_retrying")
    assert [f["code"] for f in retries] == ["NIKA-CLUSTER-001"]
    execs = [f["node"] for f in result.fields_of("verb_invoked") if f.get("verb") == "exec"]
    assert execs[0] == removed[0] and execs[1] != removed[0]
    assert result.journal_path is not None
    journal = result.journal_path.read_text()
    assert verify(journal.encode()).status == "clean"
    assert "NIKA-EXEC-001" not in journal  # the teardown's "-9" is nobody's outcome
    kinds = [f["kind"] for f in result.journal]
    assert kinds.count("task_completed") == 1 and "task_failed" not in kinds
    assert kinds[-1] == "workflow_completed"


RAYLET_DEATH: Final = """\
nika: outlives-its-raylet
permits:
  exec: ["python3"]
tasks:
  work:
    retry: { max_attempts: 2, backoff_ms: 100, jitter: false }
    exec:
      command: ["python3", "${{ inputs.waiter }}", "${{ inputs.marker }}"]
inputs:
  waiter: { type: string }
  marker: { type: string }
"""
WAITER: Final = """\
import os, sys, time
deadline = time.monotonic() + 60
while not os.path.exists(sys.argv[1]) and time.monotonic() < deadline:
    time.sleep(0.05)
"""


def test_an_attempt_that_outlives_its_nodes_raylet_is_node_loss_not_its_own_success(
    cluster: Cluster, tmp_path: Path
) -> None:
    # Ray's workers look for their raylet once a second and, finding it gone, SIGKILL their
    # children and exit. These nodes' workers look every ten minutes, so the attempt runs to
    # its own end after its raylet died and its stream ends cleanly: only the worker's own
    # judgement can tell the driver that this success came from a dead node.
    deaf = {"RAY_raylet_death_check_interval_milliseconds": "600000"}
    nodes = [add_node(cluster, name, cpus=1, lane=1, env=deaf) for name in ("deaf1", "deaf2")]
    cluster.wait_for_nodes()
    path = tmp_path / "raylet.nika.yaml"
    path.write_text(RAYLET_DEATH)
    (tmp_path / "waiter.py").write_text(WAITER)
    marker = tmp_path / "raylet-dead"
    killed: list[Any] = []

    def running_on() -> list[Any]:
        return [n for n in nodes if _ran_exec_on(tmp_path / "traces-ray", n.node_id)]

    def kill_the_raylet() -> None:
        if not _wait(lambda: bool(running_on()), 60):
            return
        [node] = running_on()
        [raylet] = [info.process for info in node.all_processes["raylet"]]
        raylet.kill()
        raylet.wait(10)
        killed.append(node)
        marker.touch()  # the attempt ends now, its raylet already gone

    killer = threading.Thread(target=kill_the_raylet, daemon=True)
    killer.start()
    try:
        result = run(path, tmp_path, executor="ray",
                     vars=(f"waiter={tmp_path / 'waiter.py'}", f"marker={marker}"),
                     env={"NIKA_RAY_RESOURCES": json.dumps({"exec": {"resources": {"lane": 1}}})})
        killer.join(10)
    finally:
        # Both deaf nodes' workers would outlive their raylets by ten minutes — the killed
        # one's and the one `remove_node` kills here: end them once their raylets are gone.
        raylets = [node.all_processes["raylet"][0].process.pid for node in nodes]
        for node in nodes:
            cluster.remove_node(node, allow_graceful=False)
        for raylet_pid in raylets:
            _end_orphans_of(raylet_pid)
    assert result.status == 0, result.stderr
    work = result.task("work")
    assert work["status"] == "success" and work["attempts"] == 2
    retries = result.fields_of("task_retrying")
    assert [f["code"] for f in retries] == ["NIKA-CLUSTER-001"]
    execs = [f["node"] for f in result.fields_of("verb_invoked") if f.get("verb") == "exec"]
    [lost] = killed
    assert execs[0] == lost.node_id and execs[1] != lost.node_id
    assert result.journal_path is not None
    assert verify(result.journal_path.read_bytes()).status == "clean"
    kinds = [f["kind"] for f in result.journal]
    assert kinds.count("task_completed") == 1 and "task_failed" not in kinds


def _end_orphans_of(raylet: int) -> None:
    """SIGTERM (coverage is saved on the way out) every worker started by `raylet`."""
    mine = f"RAY_RAYLET_PID={raylet}".encode()
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and mine in (proc / "environ").read_bytes().split(b"\0"):
                pids.append(int(proc.name))
        except OSError:
            continue
    terminate(pids)


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


@pytest.mark.parametrize("when", ["mid-task", "before-start"])
def test_the_driver_losing_the_cluster_ends_the_run_with_a_coded_error(
    tmp_path: Path, when: str
) -> None:
    # In a child process: Ray's own client ends a driver whose cluster stayed gone for a
    # minute, and this test's process must never be that driver. `before-start`: the run's
    # first submission meets the dead control store (Ray waits on it with the loop held,
    # unless the submission is off the loop), so only the watchdog can end the run.
    done = subprocess.run(
        [sys.executable, str(HERE / "_lose_cluster.py"), str(tmp_path), when],
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
