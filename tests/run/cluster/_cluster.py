"""A simulated multi-node Ray cluster on this one machine, sized for a 2-core CI box.

Every node binds to loopback; the head node has no CPUs (it only hosts the control store),
so every verb attempt runs on a worker node. Each worker node advertises its own custom
resource (`node_<name>`) so a test can steer a verb onto one node through
`NIKA_RAY_RESOURCES`, and may carry its own environment (a secret's source, or not).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any, Final

import pytest

# Ray's single-machine mode: every node, and the driver, on loopback (never the host's own
# network address). Read once, when Ray is first imported.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray", reason="the nika[ray] extra is installed by `make test`")
from ray.cluster_utils import Cluster as Cluster  # noqa: E402  (re-exported to the tests)

from nika.run.launch import RunOptions, Streams, run_command  # noqa: E402
from nika.run.placement import Placement  # noqa: E402
from nika.view.console import Console  # noqa: E402

STORE: Final = 80 * 1024 * 1024
"""Object store per node: Ray's floor is ~75 MiB; our payloads are kilobytes."""


def add_node(cluster: Cluster, name: str, *, cpus: int = 2,
             env: Mapping[str, str] | None = None, **resources: float) -> Any:
    return cluster.add_node(
        num_cpus=cpus, object_store_memory=STORE,
        resources={f"node_{name}": 100, **resources}, env_vars=dict(env or {}),
    )


def start(nodes: Mapping[str, Mapping[str, Any]]) -> Cluster:
    """A head (no CPUs) plus one worker node per entry; the test process joins as driver."""
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "object_store_memory": STORE, "include_dashboard": False})
    for name, spec in nodes.items():
        add_node(cluster, name, **spec)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    return cluster


def node_named(cluster: Cluster, name: str) -> Any:
    """The worker node started as `name` (it alone advertises `node_<name>`)."""
    [node_id] = [n["NodeID"] for n in ray.nodes()
                 if n["Alive"] and f"node_{name}" in n["Resources"]]
    return next(node for node in cluster.worker_nodes if node.node_id == node_id)


def stop(cluster: Cluster) -> None:
    end_workers(cluster)
    ray.shutdown()
    cluster.shutdown()


def end_workers(cluster: Cluster, *, within_s: float = 10.0) -> list[int]:
    """SIGTERM this cluster's worker processes and wait, bounded, until they are gone.

    Ray's own teardown ends an idle worker from C++, past Python's exit hooks; the worker's
    SIGTERM handler exits through them, so what a worker measured (coverage, under
    `make test`) is saved. Only children of this cluster's raylets are touched, never another
    Ray on the machine, and of those only the job's workers (a raylet's agents have no job: ending
    them ends the node).
    Returns the pids signalled.
    """
    raylets = {info.process.pid for node in cluster.list_all_nodes()
               for info in node.all_processes.get("raylet", ())}
    pids = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    workers = [pid for pid in pids if (stat := _stat(pid)) is not None
               and stat[1] in raylets and b"\0RAY_JOB_ID=" in b"\0" + _environ(pid)]
    terminate(workers, within_s=within_s)
    return workers


def terminate(pids: list[int], *, within_s: float = 10.0) -> None:
    """SIGTERM `pids` and wait, bounded, until none is running (a zombie counts as gone)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and any(_running(pid) for pid in pids):
        time.sleep(0.05)


def _stat(pid: int) -> tuple[str, int] | None:
    """A process's (state, parent pid) from /proc (Linux, as CI is); None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # `pid (comm) state ppid …`: comm may hold spaces, so split after its `)`.
    state, ppid = text.rpartition(")")[2].split()[:2]
    return state, int(ppid)


def _environ(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return b""


def _running(pid: int) -> bool:
    """Alive and not yet a zombie (the raylet, not us, reaps its workers)."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


@dataclass
class Run:
    """One `nika run` through the library entry point: status, report, journal, streams."""

    status: int
    report: dict[str, Any]
    journal: list[dict[str, Any]]
    stderr: str
    journal_path: Path | None = None

    def task(self, name: str) -> dict[str, Any]:
        task: dict[str, Any] = self.report["tasks"][name]
        return task

    def fields_of(self, kind: str) -> list[dict[str, Any]]:
        """The fields of every journal frame of `kind` (17: a list of key/value pairs)."""
        out = []
        for frame in self.journal:
            if frame.get("kind") == kind:
                out.append({p["key"]: p["value"] for p in frame.get("fields", [])})
        return out


def run(path: Path, tmp: Path, *, executor: str, env: Mapping[str, str] | None = None,
        vars: tuple[str, ...] = (), concurrency: int = 8, resume: Path | None = None,
        answers: tuple[str, ...] = (), placement: Placement | None = None) -> Run:
    report = tmp / f"report-{executor}.json"
    traces = tmp / f"traces-{executor}"
    before = set(traces.glob("*.ndjson")) if traces.exists() else set()
    out, err = StringIO(), StringIO()
    environ = {"PATH": "/usr/bin:/bin", **(env or {})}
    status = run_command(
        RunOptions(file=path, vars=vars, report=report, trace_dir=traces,
                   concurrency=concurrency, executor=executor, resume=resume,
                   answers=answers),
        Streams(out=out, err=err), Console(out=out, report=report),
        environ=environ, placement=placement)
    # This run's journal: two runs in one second share a name's time part, so never "the
    # last by name" (the run id suffix is random).
    [journal] = set(traces.glob("*.ndjson")) - before if traces.exists() else [None]
    lines = journal.read_text().splitlines() if journal is not None else []
    return Run(status, json.loads(report.read_text()), [json.loads(x) for x in lines],
               err.getvalue(), journal)


def comparable(report: Mapping[str, Any]) -> dict[str, Any]:
    """A report without wall-clock durations, each task's events as (its opening frames, the
    multiset between, its terminal frame): a fan-out's iterations interleave as they finish,
    on either executor."""
    tasks = {k: {f: v for f, v in t.items() if f != "duration_ms"}
             for k, t in report["tasks"].items()}
    per_task: dict[str, list[str]] = {}
    for event in report["events"]:
        per_task.setdefault(event.get("task") or "", []).append(event["kind"])
    events = {task: (kinds[:2], sorted(kinds[2:-1]), kinds[-1])
              for task, kinds in per_task.items()}
    return {"workflow_state": report["workflow_state"], "tasks": tasks,
            "outputs": report["outputs"], "events": events}


def fixture(nodes: Mapping[str, Mapping[str, Any]]) -> Iterator[Cluster]:
    cluster = start(nodes)
    try:
        yield cluster
    finally:
        stop(cluster)
