"""The Ray executor on a simulated three-node cluster (head + nodes `a` and `b`): the same
outputs and report as the local executor, secrets resolved on each worker from its own
source, and permits judged on the worker."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from tests.run.cluster._cluster import Cluster, comparable, fixture, run

pytestmark = pytest.mark.ray

ROOT: Final = Path(__file__).resolve().parents[3]
WORKER_TOKEN: Final = "worker-a-token-5f1c"
DRIVER_TOKEN: Final = "driver-token-93ab"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    # Node `a` has the secret's source in its environment; node `b` does not.
    yield from fixture({"a": {"env": {"NIKA_TEST_TOKEN": WORKER_TOKEN}}, "b": {}})


def on_node(name: str, verb: str = "exec") -> dict[str, str]:
    return {"NIKA_RAY_RESOURCES": json.dumps({verb: {"resources": {f"node_{name}": 1}}})}


def test_the_demo_gives_the_local_outputs_and_report(cluster: Cluster, tmp_path: Path) -> None:
    demo = ROOT / "examples" / "demo.nika.yaml"
    local = run(demo, tmp_path, executor="local")
    remote = run(demo, tmp_path, executor="ray")
    assert local.status == remote.status == 0
    assert comparable(remote.report) == comparable(local.report)
    # Every verb frame of the remote run names the worker node that produced it.
    nodes = {f["node"] for f in remote.fields_of("permit_checked") + remote.fields_of(
        "verb_invoked") if "node" in f}
    assert nodes and nodes <= {n["NodeID"] for n in _alive()}
    # The agent's typed events came back and went through the one adapter.
    agent = [f for f in remote.fields_of("verb_invoked") if f.get("agent_event")]
    assert [f["agent_event"] for f in agent][:2] == ["run_started", "turn_started"]


FANOUT: Final = """\
nika: fanout-200
permits:
  exec: ["echo"]
  tools: ["nika:jq"]
const:
  items: [{items}]
tasks:
  each:
    for_each:
      items: ${{{{ const.items }}}}
      max_parallel: 50
    exec:
      command: ["echo", "{{\\"n\\": ${{{{ item }}}}, \\"i\\": ${{{{ index }}}}}}"]
      decode: json
  total:
    with:
      rows: ${{{{ tasks.each.output }}}}
    invoke:
      tool: nika:jq
      args:
        input: ${{{{ with.rows }}}}
        expression: "map(.n) | add"
outputs:
  rows: ${{{{ tasks.each.output }}}}
  total: ${{{{ tasks.total.output }}}}
"""


def test_a_200_iteration_fan_out_gives_the_local_outputs_and_report(
    cluster: Cluster, tmp_path: Path
) -> None:
    path = tmp_path / "fanout.nika.yaml"
    path.write_text(FANOUT.format(items=", ".join(str(i * 3) for i in range(200))))
    local = run(path, tmp_path, executor="local", concurrency=50)
    remote = run(path, tmp_path, executor="ray", concurrency=50)
    assert local.status == remote.status == 0, remote.stderr
    assert remote.report["outputs"]["total"] == sum(i * 3 for i in range(200))
    assert remote.report["outputs"]["rows"][199] == {"n": 597, "i": 199}
    assert comparable(remote.report) == comparable(local.report)
    # Both worker nodes took a share of the 200 iterations.
    nodes = {f["node"] for f in remote.fields_of("verb_invoked") if f.get("verb") == "exec"}
    assert len(nodes) == 2


SECRET: Final = """\
nika: secret-on-worker
secrets:
  token:
    source: env
    key: NIKA_TEST_TOKEN
    egress: [{ to: "exec" }, { to: "outputs" }]
permits:
  exec: ["printenv"]
tasks:
  show:
    exec:
      command: ["printenv", "TOKEN"]
      env: { TOKEN: "${{ secrets.token }}" }
outputs:
  shown: ${{ tasks.show.output }}
"""


def test_a_worker_without_the_secrets_source_fails_the_task_with_the_secret_code(
    cluster: Cluster, tmp_path: Path
) -> None:
    path = tmp_path / "secret.nika.yaml"
    path.write_text(SECRET)
    # The driver has the secret (or the launch would refuse); node `b` does not.
    result = run(path, tmp_path, executor="ray",
                 env={"NIKA_TEST_TOKEN": DRIVER_TOKEN, **on_node("b")})
    assert result.status == 1
    error = result.task("show")["error"]
    assert error["code"] == "NIKA-SECRET-001"
    assert "NIKA_TEST_TOKEN" in error["detail"] and "Ray worker node" in error["detail"]
    assert error["transient"] is False and result.task("show")["attempts"] == 1


def test_a_worker_resolves_the_secret_from_its_own_source_and_no_value_crosses(
    cluster: Cluster, tmp_path: Path
) -> None:
    path = tmp_path / "secret.nika.yaml"
    path.write_text(SECRET)
    result = run(path, tmp_path, executor="ray",
                 env={"NIKA_TEST_TOKEN": DRIVER_TOKEN, **on_node("a")})
    assert result.status == 0, result.stderr
    # The child printed node a's value; it came back sealed (a name, not a value) and the
    # driver unsealed it with its own reading of the same reference — then masked it.
    assert result.report["outputs"]["shown"] == "••••••"
    text = json.dumps(result.journal) + json.dumps(result.report) + result.stderr
    assert WORKER_TOKEN not in text and DRIVER_TOKEN not in text


ESCAPE: Final = """\
nika: escape
inputs:
  program: { type: string, default: echo }
permits:
  exec: ["echo"]
tasks:
  run:
    exec:
      command: ["${{ inputs.program }}", "hello"]
"""


def test_a_permit_escape_is_refused_on_the_worker(cluster: Cluster, tmp_path: Path) -> None:
    path = tmp_path / "escape.nika.yaml"
    path.write_text(ESCAPE)
    # The check cannot know the program; the worker's gate judges the resolved one.
    result = run(path, tmp_path, executor="ray", vars=("program=ls",), env=on_node("b"))
    assert result.status == 1
    assert result.task("run")["error"]["code"] == "NIKA-SEC-004"
    [decision] = result.fields_of("permit_checked")
    assert decision["decision"] == "deny" and decision["gate"] == "ls"
    assert decision["node"] == _node_with("node_b")
    assert result.fields_of("verb_invoked") == []  # refused before anything was spawned


CHILD: Final = """\
nika: child
permits:
  exec: ["echo", "printf"]
inputs:
  prog: { type: string }
tasks:
  go:
    exec:
      command: ["${{ inputs.prog }}", "hi"]
outputs:
  said: ${{ tasks.go.output }}
"""

MIDDLE: Final = """\
nika: middle
permits:
  exec: ["echo"]
inputs:
  prog: { type: string }
tasks:
  inner:
    invoke: { workflow: ./child.nika.yaml, args: { prog: "${{ inputs.prog }}" } }
outputs:
  said: ${{ tasks.inner.output.said }}
"""

CALLER: Final = """\
nika: caller
permits:
  exec: [{allowed}]
inputs:
  prog: {{ type: string }}
tasks:
  call:
    invoke: {{ workflow: ./{callee}, args: {{ prog: "${{{{ inputs.prog }}}}" }} }}
outputs:
  said: ${{{{ tasks.call.output.said }}}}
"""


@pytest.mark.parametrize(("allowed", "callee", "task"), [
    ('"echo"', "child.nika.yaml", "call/go"),  # the caller lacks printf
    ('"echo", "printf"', "middle.nika.yaml", "call/inner/go"),  # the one between lacks it
])
def test_a_childs_effect_its_own_permits_allow_is_refused_on_the_worker_by_a_callers(
    cluster: Cluster, tmp_path: Path, allowed: str, callee: str, task: str,
) -> None:
    # `prog` is resolved at run time, so the check cannot refuse it; the worker judges the
    # child's effect under its own permits ∩ every caller's (spec 14 law 3) — here the
    # child grants printf and a caller (the top one, or the one between) does not.
    (tmp_path / "child.nika.yaml").write_text(CHILD)
    (tmp_path / "middle.nika.yaml").write_text(MIDDLE)
    path = tmp_path / "caller.nika.yaml"
    path.write_text(CALLER.format(allowed=allowed, callee=callee))
    allowed_run = run(path, tmp_path, executor="ray", vars=("prog=echo",), env=on_node("b"))
    assert allowed_run.status == 0, allowed_run.stderr
    assert allowed_run.report["outputs"]["said"] == "hi"
    [granted] = [f for f in allowed_run.fields_of("permit_checked") if f.get("plane") == "exec"]
    assert (granted["task"], granted["decision"]) == (task, "allow")
    assert granted["node"] == _node_with("node_b")

    refused = run(path, tmp_path, executor="ray", vars=("prog=printf",), env=on_node("b"))
    assert refused.status == 1
    error = refused.task("call")["error"]
    assert error["code"] == "NIKA-SEC-004" and "printf" in error["detail"]
    assert "calling workflow's permits" in error["detail"]
    [denied] = [f for f in refused.fields_of("permit_checked") if f.get("plane") == "exec"]
    assert (denied["task"], denied["decision"], denied["gate"]) == (task, "deny", "printf")
    assert denied["node"] == _node_with("node_b")  # judged where the effect would run
    assert not [f for f in refused.fields_of("verb_invoked") if f.get("task") == task]


RESUMABLE: Final = """\
nika: resumable
inputs:
  flag: { type: string }
permits:
  exec: ["echo", "cat"]
tasks:
  first:
    exec:
      command: ["echo", "expensive"]
  second:
    with:
      before: ${{ tasks.first.output }}
    exec:
      command: ["cat", "${{ inputs.flag }}"]
outputs:
  both: "${{ tasks.first.output }}+${{ tasks.second.output }}"
"""


def test_resume_works_on_a_distributed_runs_journal(cluster: Cluster, tmp_path: Path) -> None:
    path = tmp_path / "resumable.nika.yaml"
    path.write_text(RESUMABLE)
    flag = tmp_path / "flag.txt"
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    failed = run(path, tmp_path / "one", executor="ray", vars=(f"flag={flag}",))
    assert failed.status == 1 and failed.task("second")["error"]["code"] == "NIKA-EXEC-001"
    assert failed.journal_path is not None
    flag.write_text("ready\n")
    resumed = run(path, tmp_path / "two", executor="ray", vars=(f"flag={flag}",),
                  resume=failed.journal_path)
    assert resumed.status == 0, resumed.stderr
    assert resumed.report["outputs"]["both"] == "expensive+ready"
    # `first` came from the distributed journal; only `second` went to a worker.
    hits = [e["task"] for e in resumed.report["events"] if e["kind"] == "task_cache_hit"]
    assert hits == ["first"]
    gates = {f["gate"] for f in resumed.fields_of("permit_checked") if "node" in f}
    assert "cat" in gates and "echo" not in gates


def _alive() -> list[dict[str, Any]]:
    import ray

    return [n for n in ray.nodes() if n["Alive"]]


def _node_with(resource: str) -> str:
    [node] = [n["NodeID"] for n in _alive() if resource in n["Resources"]]
    return str(node)


GATED_CHILD: Final = """\
nika: gated-child
permits:
  exec: ["echo"]
tasks:
  build:
    exec: { command: ["echo", "v2"] }
  approve:
    with: { version: "${{ tasks.build.output }}" }
    invoke:
      tool: "nika:prompt"
      args: { message: "Ship ${{ with.version }}?" }
  ship:
    with: { ok: "${{ tasks.approve.output }}", version: "${{ tasks.build.output }}" }
    when: "${{ with.ok == true }}"
    exec: { command: ["echo", "shipped ${{ with.version }}"] }
outputs:
  shipped: ${{ tasks.ship.output }}
"""

GATED_PARENT: Final = """\
nika: gated-parent
permits:
  exec: ["echo"]
tasks:
  release:
    invoke: { workflow: ./child.nika.yaml }
outputs:
  shipped: ${{ tasks.release.output.shipped }}
"""


def test_a_prompt_in_a_child_pauses_a_distributed_run_and_resume_answers_it(
    cluster: Cluster, tmp_path: Path,
) -> None:
    (tmp_path / "child.nika.yaml").write_text(GATED_CHILD)
    path = tmp_path / "parent.nika.yaml"
    path.write_text(GATED_PARENT)
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    paused = run(path, tmp_path / "one", executor="ray")
    assert paused.status == 75, paused.stderr
    [end] = paused.fields_of("workflow_paused")
    assert (end["task_id"], end["message"]) == ("release/approve", "Ship v2?")
    [built] = [f for f in paused.fields_of("verb_invoked") if f["task"] == "release/build"]
    assert "node" in built  # the child's exec ran on a worker; the prompt stayed here
    assert paused.journal_path is not None

    resumed = run(path, tmp_path / "two", executor="ray", resume=paused.journal_path,
                  answers=("release/approve=yes",))
    assert resumed.status == 0, resumed.stderr
    assert resumed.report["outputs"] == {"shipped": "shipped v2"}
    assert [f["task"] for f in resumed.fields_of("task_cache_hit")] == ["release/build"]
    [shipped] = [f for f in resumed.fields_of("verb_invoked") if f["task"] == "release/ship"]
    assert "node" in shipped
