"""The semantic hash (spec 15): one meaning, one hash; another meaning, another hash."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.journal._reference import proof_core
from tests.journal._workflows import BASE, Spec, build, emit, hash_of, task_hashes

from nika.journal._semantic_ir import lower_envelope, value
from nika.journal.identity import definition_hash
from nika.journal.replay import Replay
from nika.journal.semantic import (
    DOMAINS,
    bytes_hash,
    domain_hash,
    jcs,
    parse_spelling,
    preimage,
    semantic_hash,
    semantic_tree,
)
from nika.syntax.model import AgentBody, ExecBody, InferBody, InvokeBody, Task, TaskId

BASE_TEXT = emit(BASE)
BASE_HASH = hash_of(BASE_TEXT)


def _with(change: Callable[[Spec], None]) -> Spec:
    spec = copy.deepcopy(BASE)
    change(spec)
    return spec


# -- same meaning, same hash ---------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), comments=st.booleans())
def test_key_order_and_comments_never_change_the_hash(seed: int, comments: bool) -> None:
    text = emit(BASE, rng=random.Random(seed), comments=comments)
    assert hash_of(text) == BASE_HASH


def _spellings(seconds: int) -> list[str]:
    """Every way this suite spells a whole number of seconds as a Go duration."""
    out = [f"{seconds}s", f"{seconds * 1000}ms"]
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    out.append("".join(f"{n}{u}" for n, u in ((h, "h"), (m, "m"), (s, "s")) if n))
    if seconds % 60 == 0:
        out.append(f"{seconds // 60}m")
    if seconds % 3600 == 0:
        out.append(f"{seconds // 3600}h")
    return out


@settings(max_examples=40, deadline=None)
@given(seconds=st.integers(1, 86_400), pick=st.randoms(use_true_random=False))
def test_a_duration_hashes_by_its_length_not_its_spelling(seconds: int,
                                                          pick: random.Random) -> None:
    def at(spelling: str) -> str:
        return hash_of(emit(_with(lambda s: s["tasks"]["plan"].update(timeout=spelling))))

    first, second = pick.sample(_spellings(seconds), 2)
    assert at(first) == at(second)


def test_sixty_seconds_is_one_minute() -> None:
    def at(spelling: str) -> str:
        return hash_of(emit(_with(lambda s: s["tasks"]["plan"].update(timeout=spelling))))

    assert at("60s") == at("1m") == at("60000ms") != at("61s")


DEFAULTS: dict[str, Callable[[Spec], None]] = {
    "retry knobs": lambda s: s["tasks"]["plan"]["retry"].update(
        backoff_strategy="exponential", backoff_max_ms=60000, jitter=True),
    "one attempt is no retry": lambda s: s["tasks"]["more"].update(
        retry={"max_attempts": 1, "backoff_ms": 5}),
    "fail_fast": lambda s: s["tasks"]["each"]["for_each"].update(fail_fast=True),
    "capture and decode": lambda s: s["tasks"]["fetch"]["exec"].update(
        capture="stdout", decode="text"),
    "max_turns": lambda s: s["tasks"]["each"]["agent"].update(max_turns=10),
    "when true": lambda s: s["tasks"]["call"].update(when=True),
    "empty with": lambda s: s["tasks"]["fetch"].update({"with": {}}),
    "the workflow's model": lambda s: s["tasks"]["note"]["infer"].update(model="mock/echo"),
    "temperature 0.5 as written": lambda s: s["tasks"]["plan"]["infer"].update(temperature=0.5),
    "an optional input": lambda s: s["inputs"]["topic"].update(required=False),
}


@settings(max_examples=40, deadline=None)
@given(chosen=st.sets(st.sampled_from(sorted(DEFAULTS)), min_size=1),
       seed=st.integers(0, 2**32))
def test_writing_a_default_out_never_changes_the_hash(chosen: set[str], seed: int) -> None:
    spec = copy.deepcopy(BASE)
    for name in sorted(chosen):
        DEFAULTS[name](spec)
    assert hash_of(emit(spec, rng=random.Random(seed))) == BASE_HASH


@pytest.mark.parametrize(("first", "second"), [
    ({"union": ["string", "integer"]}, {"union": ["integer", "string"]}),
    ({"union": ["integer", "number"]}, "number"),
    ({"union": ["string", {"union": ["integer", "string"]}]}, {"union": ["integer", "string"]}),
    ({"enum": ["b", "a"]}, {"enum": ["a", "b"]}),
    ({"integer": {}}, "integer"),
    ({"object": {"a": "string", "b": "integer"}}, {"object": {"b": "integer", "a": "string"}}),
])
def test_types_hash_in_their_normal_form(first: Any, second: Any) -> None:
    def at(returns: Any) -> str:
        return hash_of(emit(_with(lambda s: s["tasks"]["plan"].update(returns=returns))))

    assert at(first) == at(second)


def test_temperature_one_is_one_point_zero() -> None:
    def at(t: float) -> str:
        return hash_of(emit(_with(lambda s: s["tasks"]["plan"]["infer"].update(temperature=t))))

    assert at(1) == at(1.0) != at(0.9)


def test_strings_are_compared_in_nfc() -> None:
    assert value("cafe\u0301") == value("caf\u00e9")
    assert value({"cafe\u0301": 1}) == value({"caf\u00e9": 1})


# -- different meaning, different hash ----------------------------------------------------------

def _set(task: str, *path: str, to: Any) -> Callable[[Spec], None]:
    def change(spec: Spec) -> None:
        node = spec["tasks"][task]
        for step in path[:-1]:
            node = node.setdefault(step, {})
        node[path[-1]] = to
    return change


def _drop(task: str, key: str) -> Callable[[Spec], None]:
    return lambda spec: spec["tasks"][task].pop(key)


MUTATIONS: dict[str, tuple[str, Callable[[Spec], None]]] = {
    "task.with_": ("plan", _set("plan", "with", "n", to=4)),
    "task.after": ("call", _set("call", "after", "plan", to="success")),
    "task.when": ("plan", _set("plan", "when", to="${{ inputs.topic == 'go' }}")),
    "task.for_each": ("each", _set("each", "for_each", "max_parallel", to=3)),
    "task.retry": ("plan", _set("plan", "retry", "backoff_ms", to=600)),
    "task.timeout": ("plan", _set("plan", "timeout", to="6m")),
    "task.timeout added": ("more", _set("more", "timeout", to="5m")),
    "task.on_error": ("plan", _set("plan", "on_error", "recover", to="other")),
    "task.returns": ("plan", _set("plan", "returns", to="integer")),
    "task.extract": ("plan", _set("plan", "extract", "first", to=".[1]")),
    "task.group": ("more", _drop("more", "group")),
    "task.lift": ("plan", _set("plan", "lift", to=[{"law": "data-as-code", "because": "x"}])),
    "infer.prompt": ("note", _set("note", "infer", "prompt", to="another note")),
    "infer.system": ("note", _set("note", "infer", "system", to="be brief")),
    "infer.model": ("note", _set("note", "infer", "model", to="mock/other")),
    "infer.temperature": ("plan", _set("plan", "infer", "temperature", to=0.7)),
    "infer.max_tokens": ("plan", _set("plan", "infer", "max_tokens", to=201)),
    "infer.schema": ("note", _set("note", "infer", "schema", to={"type": "object"})),
    "infer.thinking": ("note", _set("note", "infer", "thinking", to={"enabled": True})),
    "infer.vision": ("note", _set("note", "infer", "vision",
                                  to=[{"source": "path", "path": "a.png"}])),
    "exec.command": ("fetch", _set("fetch", "exec", "command", to=["echo", "ho"])),
    "exec.shell": ("sh", _set("sh", "exec", "shell", to="echo ho | wc -c")),
    "exec.cwd": ("fetch", _set("fetch", "exec", "cwd", to="sub")),
    "exec.env": ("fetch", _set("fetch", "exec", "env", to={"A": "1"})),
    "exec.stdin": ("fetch", _set("fetch", "exec", "stdin", to="input")),
    "exec.capture": ("fetch", _set("fetch", "exec", "capture", to="combined")),
    "exec.decode": ("fetch", _set("fetch", "exec", "decode", to="json")),
    "invoke.tool": ("call", _set("call", "invoke", "tool", to="nika:sleep")),
    "invoke.args": ("call", _set("call", "invoke", "args", "message", to="over")),
    "agent.prompt": ("each", _set("each", "agent", "prompt", to="rest on ${{ item }}")),
    "agent.system": ("each", _set("each", "agent", "system", to="be brief")),
    "agent.model": ("each", _set("each", "agent", "model", to="mock/other")),
    "agent.tools": ("each", _set("each", "agent", "tools", to=["nika:read", "nika:write"])),
    "agent.max_turns": ("each", _set("each", "agent", "max_turns", to=4)),
    "agent.max_tokens_total": ("each", _set("each", "agent", "max_tokens_total", to=900)),
    "agent.temperature": ("each", _set("each", "agent", "temperature", to=0.2)),
    "agent.schema": ("each", _set("each", "agent", "schema", to={"type": "object"})),
}
FILE_MUTATIONS = {"invoke.workflow": "test_a_composed_child_is_a_subtree",
                  "agent.skills": "test_a_skill_counts_by_its_bytes"}
"""Fields whose meaning lives in a side file: each has its own test below."""


def test_every_task_field_is_mutated_somewhere() -> None:
    bodies = {"infer": InferBody, "exec": ExecBody, "invoke": InvokeBody, "agent": AgentBody}
    wanted = {f"task.{f.name}" for f in dataclasses.fields(Task)
              if f.name not in ("id", "verb", "body", "path")}
    wanted |= {f"{verb}.{f.name}" for verb, kind in bodies.items()
               for f in dataclasses.fields(kind)}
    covered = {name.split(" ")[0] for name in MUTATIONS} | set(FILE_MUTATIONS)
    assert wanted - covered == set()


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_field_changes_the_hash(name: str) -> None:
    task, change = MUTATIONS[name]
    text = emit(_with(change))
    assert hash_of(text) != BASE_HASH
    assert task_hashes(text)[task] != task_hashes(BASE_TEXT)[task]


@pytest.mark.parametrize("change", [
    _set("plan", "retry", "backoff_ms", to=10**15),
    _set("plan", "retry", "max_attempts", to=2**60),
    _set("each", "for_each", "max_parallel", to=2**60),
    _set("plan", "with", "n", to=-(2**70)),
    _set("plan", "returns", to={"string": {"max_len": 2**60}}),
])
def test_integers_beyond_the_double_range_hash_exactly(change: Callable[[Spec], None]) -> None:
    text = emit(_with(change))
    assert hash_of(text) == hash_of(text) != BASE_HASH


def test_a_group_change_reaches_the_fan_in_that_folds_it() -> None:
    text = emit(_with(_drop("more", "group")))
    assert task_hashes(text)["plan"] != task_hashes(BASE_TEXT)["plan"]


@pytest.mark.parametrize("change", [
    lambda s: s.update(model="mock/other"),
    lambda s: s["inputs"]["topic"].update(default="go"),
    lambda s: s.update(permits={"exec": ["echo"]}),
    lambda s: s.update(outputs={"plan": "${{ tasks.plan.output }}"}),
    lambda s: s.update(nika="renamed"),
])
def test_each_envelope_field_changes_the_hash(change: Callable[[Spec], None]) -> None:
    assert hash_of(emit(_with(change))) != BASE_HASH


def test_the_resume_identity_stays_apart() -> None:
    """Resume ignores `timeout:` (ADR-099 §1); the semantic hash does not."""
    edited = build(emit(_with(_set("plan", "timeout", to="9m"))))
    base = build(BASE_TEXT)
    plan = TaskId("plan")
    assert definition_hash(base.tasks[plan], model="mock/echo") == \
        definition_hash(edited.tasks[plan], model="mock/echo")
    assert hash_of(emit(_with(_set("plan", "timeout", to="9m")))) != BASE_HASH


# -- side files ---------------------------------------------------------------------------------

CHILD = 'nika: child\ntasks:\n  only: {"exec": {"command": ["echo", "%s"]}}\n'


def test_a_composed_child_is_a_subtree(tmp_path: Path) -> None:
    (tmp_path / "child.nika.yaml").write_text(CHILD % "one", encoding="utf-8")
    parent = emit(_with(_set("call", "invoke", to={"workflow": "./child.nika.yaml"})))
    tree = semantic_tree(build(parent), tmp_path)
    child = tree.children["call"]
    assert child.root == hash_of(CHILD % "one", tmp_path)
    assert tree.ir["tasks"]["call"] == tree.tasks["call"]
    (tmp_path / "child.nika.yaml").write_text(CHILD % "two", encoding="utf-8")
    again = semantic_tree(build(parent), tmp_path)
    assert again.root != tree.root and again.tasks["call"] != tree.tasks["call"]
    assert again.tasks["plan"] == tree.tasks["plan"]  # Merkle: the other parts stand


def test_a_child_that_invokes_its_parent_is_a_named_cycle(tmp_path: Path) -> None:
    text = 'nika: loop\ntasks:\n  again: {"invoke": {"workflow": "./loop.nika.yaml"}}\n'
    (tmp_path / "loop.nika.yaml").write_text(text, encoding="utf-8")
    tree = semantic_tree(build(text), tmp_path)
    # the closure walker unrolls the file once below itself, then names the cycle
    assert tree.children["again"].children == {}
    assert tree.children["again"].tasks["again"] != tree.tasks["again"]
    assert parse_spelling(tree.root) is not None


INFER_CHILD = 'nika: child\n%stasks:\n  ask: {"infer": {"prompt": "hi"}}\n'
CALLER = 'nika: caller\nmodel: %s\ntasks:\n  call: {"invoke": {"workflow": "./child.nika.yaml"}}\n'


def test_a_child_lowers_with_the_model_it_runs_on(tmp_path: Path) -> None:
    """A child naming no model runs on its caller's: its subtree moves with that model; a
    child naming its own does not (it runs on its own, as the run resolves it)."""
    (tmp_path / "child.nika.yaml").write_text(INFER_CHILD % "", encoding="utf-8")
    one, two = (semantic_tree(build(CALLER % m), tmp_path).children["call"]
                for m in ("mock/echo", "mock/other"))
    assert one.root != two.root
    (tmp_path / "child.nika.yaml").write_text(INFER_CHILD % "model: mock/own\n",
                                              encoding="utf-8")
    one, two = (semantic_tree(build(CALLER % m), tmp_path).children["call"]
                for m in ("mock/echo", "mock/other"))
    assert one.root == two.root


def test_a_run_s_shared_walker_gives_the_same_hash(tmp_path: Path) -> None:
    """The boot manifest's hash (`Replay.semantic`, over the run's closure walker, after the
    definition hashes) is the hash a receipt re-derives from the file alone."""
    (tmp_path / "child.nika.yaml").write_text(INFER_CHILD % "", encoding="utf-8")
    workflow = build(CALLER % "mock/echo")
    replay = Replay(workflow, tmp_path, "mock/other")  # a --model override keys resume only
    for task in workflow.tasks.values():
        replay.definition(task)
    assert replay.semantic() == semantic_hash(workflow, tmp_path)


def test_a_skill_counts_by_its_bytes(tmp_path: Path) -> None:
    skill = tmp_path / "SKILL.md"
    text = emit(_with(_set("each", "agent", "skills", to=["./SKILL.md"])))
    skill.write_text("---\nname: a\ndescription: one\n---\nbody\n", encoding="utf-8")
    first = hash_of(text, tmp_path)
    skill.write_text("---\nname: a\ndescription: two\n---\nbody\n", encoding="utf-8")
    assert hash_of(text, tmp_path) != first


# -- the hash itself ----------------------------------------------------------------------------

def test_the_spelling_names_algorithm_domain_and_version() -> None:
    spelled = parse_spelling(BASE_HASH)
    assert spelled is not None and spelled.current
    assert (spelled.algorithm, spelled.domain, spelled.version) == ("blake3", "semantic", 1)
    assert parse_spelling("ab" * 32) is None  # an older bare sha256 hex


def test_domains_separate_identical_bytes() -> None:
    ir = {"node": "task"}
    hashes = {domain_hash(d, ir) for d in DOMAINS}
    assert len(hashes) == len(DOMAINS)
    assert bytes_hash("artifact", b"x") != bytes_hash("source", b"x")
    with pytest.raises(ValueError, match="closed"):
        preimage("cache", ir)


def test_the_preimage_is_the_references() -> None:
    core = proof_core()
    workflow = build(BASE_TEXT)
    ir = {**lower_envelope(workflow), "tasks": task_hashes(BASE_TEXT)}
    assert jcs(ir) == core.canonical(ir).encode("utf-8")
    assert preimage("semantic", ir) == core.preimage("semantic", 1, ir).encode("utf-8")


_SCALAR = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text()
_JSON: st.SearchStrategy[Any] = st.deferred(
    lambda: _SCALAR | st.lists(_JSON, max_size=3) | st.dictionaries(st.text(), _JSON, max_size=3))


@settings(max_examples=100, deadline=None)
@given(_JSON)
def test_canonical_is_idempotent(ir: Any) -> None:
    once = jcs(ir)
    assert jcs(json.loads(once)) == once
