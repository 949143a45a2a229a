"""The workflow model: envelope, tasks, verb bodies and task fields (spec 01/02/03/05/09)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import (
    AgentBody,
    ExecBody,
    InferBody,
    InvokeBody,
    TaskId,
    Workflow,
    build_workflow,
)


def build(src: str) -> tuple[Workflow | None, list[NikaError]]:
    return build_workflow(load_document(textwrap.dedent(src)))


def codes(src: str) -> list[str]:
    return sorted(e.code for e in build(src)[1])


HELLO = """
nika: hello
tasks:
  greet:
    infer: { prompt: "hi" }
"""


def test_minimal_workflow_builds_a_frozen_model() -> None:
    wf, errors = build(HELLO)
    assert errors == []
    assert wf is not None and wf.name == "hello"
    task = wf.tasks[TaskId("greet")]
    assert task.verb == "infer" and isinstance(task.body, InferBody)
    assert task.path == ("tasks", "greet")
    with pytest.raises(AttributeError):
        task.verb = "exec"  # type: ignore[misc]


def test_full_envelope_is_modelled() -> None:
    wf, errors = build(
        """
        nika: full
        model: mock/echo
        inputs:
          topic: { type: string, required: true, description: "what" }
          n: { type: { integer: { min: 1 } }, default: 3 }
        const:
          dir: "./out"
          window: { type: integer, value: 30 }
          settings: { type: custom }
        secrets:
          key: { source: env, key: API_KEY, egress: [{ to: "nika:fetch", host: "api.x.com" }] }
          pem: { source: file, path: ./k.pem }
        permits:
          fs: { read: ["./data/**"] }
          exec: ["git"]
          tools: ["nika:read"]
        run: { entropy: { seeded: 7 }, clock: virtual }
        tasks:
          a:
            exec: { command: ["git", "status"], capture: structured }
            returns: { object: { stdout: string }, additional: true }
        outputs:
          plain: ${{ tasks.a.output }}
          typed: { value: "${{ tasks.a.output }}", type: string, description: "x" }
        """
    )
    assert errors == []
    assert wf is not None
    assert wf.inputs["topic"].required and wf.inputs["n"].default == 3
    assert wf.const["window"].type is not None and wf.const["settings"].type is None
    assert wf.secrets["key"].egress[0].host == "api.x.com" and wf.secrets["pem"].file == "./k.pem"
    assert wf.permits is not None and wf.permits.exec == ("git",) and wf.permits.net_http is None
    assert wf.run is not None and wf.run.entropy == 7 and wf.run.clock == "virtual"
    assert wf.outputs["typed"].type is not None and wf.outputs["plain"].type is None
    body = wf.tasks[TaskId("a")].body
    assert isinstance(body, ExecBody) and body.command == ("git", "status")


@pytest.mark.parametrize(
    ("src", "code"),
    [
        ("tasks: { a: { infer: { prompt: x } } }", "NIKA-PARSE-002"),
        ("nika: x\n", "NIKA-PARSE-002"),
        ("nika: x\ntasks: {}", "NIKA-PARSE-002"),
        ("nika: v1.0\ntasks: { a: { infer: { prompt: x } } }", "NIKA-PARSE-003"),
        ("nika: My_Flow\ntasks: { a: { infer: { prompt: x } } }", "NIKA-PARSE-003"),
        ("nika: x\nfoo: 1\ntasks: { a: { infer: { prompt: x } } }", "NIKA-PARSE-005"),
        ("nika: x\ntasks: { Bad-Id: { infer: { prompt: x } } }", "NIKA-PARSE-006"),
        ("nika: x\ntasks: [ { id: a, infer: { prompt: x } } ]", "NIKA-PARSE-022"),
        ("nika: x\ntasks: { a: { id: a, infer: { prompt: x } } }", "NIKA-PARSE-023"),
        ("nika: x\ntasks: { a: { depends_on: [b], infer: { prompt: x } } }", "NIKA-PARSE-024"),
        ("nika: x\nvars: { a: 1 }\ntasks: { a: { infer: { prompt: x } } }", "NIKA-VALUES-001"),
        ("nika: x\nenv: { A: 1 }\ntasks: { a: { infer: { prompt: x } } }", "NIKA-VALUES-002"),
        (
            "nika: x\nsecrets: { k: inline }\ntasks: { a: { infer: { prompt: x } } }",
            "NIKA-PARSE-014",
        ),
        ("nika: x\nsecrets: { k: {} }\ntasks: { a: { infer: { prompt: x } } }", "NIKA-PARSE-014"),
        (
            "nika: x\nsecrets: { k: { source: consul, key: a } }\ntasks: "
            "{ a: { infer: { prompt: x } } }",
            "NIKA-PARSE-014",
        ),
        (
            "nika: x\nsecrets: { k: { source: file } }\ntasks: { a: { infer: { prompt: x } } }",
            "NIKA-PARSE-014",
        ),
        (
            "nika: x\npermits: { net: { https: [] } }\ntasks: { a: { infer: { prompt: x } } }",
            "NIKA-PARSE-005",
        ),
        (
            "nika: x\npermits: { exec: maybe }\ntasks: { a: { infer: { prompt: x } } }",
            "NIKA-PARSE-019",
        ),
        ("nika: x\nrun: { seed: 1 }\ntasks: { a: { infer: { prompt: x } } }", "NIKA-PARSE-005"),
        (
            "nika: x\nrun: { entropy: ambient, clock: virtual }\ntasks: "
            "{ a: { infer: { prompt: x } } }",
            "NIKA-PARSE-026",
        ),
        (
            "nika: x\nrun: { entropy: none, clock: system }\ntasks: "
            "{ a: { infer: { prompt: x } } }",
            "NIKA-PARSE-027",
        ),
        (
            "nika: x\nrun: { entropy: { seeded: 1 }, clock: system }\ntasks: "
            "{ a: { infer: { prompt: x } } }",
            "NIKA-PARSE-027",
        ),
        (
            "nika: x\nrun: { entropy: none, clock: virtual }\n"
            "tasks: { a: { infer: { prompt: x }, retry: { max_attempts: 2 } } }",
            "NIKA-PARSE-028",
        ),
        (
            "nika: x\nrun: { entropy: none, clock: virtual }\ntasks: "
            "{ a: { invoke: { tool: nika:uuid } } }",
            "NIKA-PARSE-028",
        ),
    ],
)
def test_envelope_refusals(src: str, code: str) -> None:
    assert code in codes(src)


@pytest.mark.parametrize(
    "src",
    [
        "nika: x\nrun: { clock: virtual }\ntasks: { a: { infer: { prompt: x } } }",
        "nika: x\nrun: { entropy: ambient, clock: system }\ntasks: { a: { infer: { prompt: x } } }",
        "nika: x\nrun: { entropy: none, clock: virtual }\n"
        "tasks: { a: { infer: { prompt: x }, retry: { max_attempts: 2, jitter: false } } }",
        "nika: x\npermits: {}\ntasks: { a: { infer: { prompt: x } } }",
        "nika: x\nconst: { settings: { type: custom } }\ntasks: { a: { infer: { prompt: x } } }",
    ],
)
def test_envelope_clean(src: str) -> None:
    assert codes(src) == []


@pytest.mark.parametrize(
    ("task", "code"),
    [
        ("{ with: { a: 1 } }", "NIKA-PARSE-008"),
        ("{ infer: { prompt: x }, exec: { command: [ls] } }", "NIKA-PARSE-009"),
        ("{ infer: { prompt: x, temperture: 1 } }", "NIKA-PARSE-005"),
        ("{ infer: { system: x } }", "NIKA-PARSE-018"),
        ("{ agent: { tools: [] } }", "NIKA-PARSE-018"),
        ("{ exec: { cwd: . } }", "NIKA-PARSE-018"),
        ("{ invoke: { args: {} } }", "NIKA-PARSE-018"),
        ('{ exec: { command: "ls -l" } }', "NIKA-PARSE-019"),
        ('{ exec: { command: [ls], shell: "ls" } }', "NIKA-PARSE-019"),
        ("{ exec: { command: [ls], capture: everything } }", "NIKA-PARSE-019"),
        ("{ exec: { command: [ls], capture: structured, decode: json } }", "NIKA-PARSE-025"),
        ("{ invoke: { tool: 'mcp:postgres' } }", "NIKA-PARSE-019"),
        ("{ invoke: { tool: 'x-vendor:research' } }", "NIKA-PARSE-019"),
        ("{ invoke: { tool: 'nika:jq', args: [a, b] } }", "NIKA-PARSE-019"),
        ("{ invoke: { tool: 'nika:read', workflow: ./c.nika.yaml } }", "NIKA-PARSE-019"),
        ("{ infer: { prompt: x }, timeout: 30 }", "NIKA-PARSE-010"),
        ('{ infer: { prompt: x }, timeout: "30m1h" }', "NIKA-PARSE-010"),
        ('{ infer: { prompt: x }, timeout: "25h" }', "NIKA-PARSE-010"),
        ('{ infer: { prompt: x }, timeout: "0s" }', "NIKA-PARSE-010"),
        ("{ infer: { prompt: x }, retry: { max_attempts: 0 } }", "NIKA-PARSE-011"),
        ("{ infer: { prompt: x }, retry: { backoff_ms: 5 } }", "NIKA-PARSE-011"),
        (
            "{ infer: { prompt: x }, retry: { max_attempts: 2, backoff_strategy: random } }",
            "NIKA-PARSE-011",
        ),
        (
            "{ infer: { prompt: x }, retry: { max_attempts: 2, on_codes: [oops] } }",
            "NIKA-PARSE-011",
        ),
        ("{ infer: { prompt: x }, on_error: { fallback: 1 } }", "NIKA-PARSE-012"),
        ("{ infer: { prompt: x }, on_error: { recover: 1, skip: true } }", "NIKA-PARSE-012"),
        ("{ infer: { prompt: x }, on_error: { on_codes: [NIKA-EXEC-001] } }", "NIKA-PARSE-012"),
        ("{ infer: { prompt: x }, on_error: { skip: false } }", "NIKA-PARSE-012"),
        ("{ infer: { prompt: x }, with: { status: 1 } }", "NIKA-PARSE-013"),
        ("{ infer: { prompt: x }, extract: { output: '.' } }", "NIKA-PARSE-013"),
        ("{ infer: { prompt: x }, output: { a: '.' } }", "NIKA-PARSE-005"),
        ("{ infer: { prompt: x }, max_parallel: 2 }", "NIKA-PARSE-005"),
        ("{ infer: { prompt: x }, for_each: '${{ inputs.xs }}' }", "NIKA-PARSE-019"),
        ("{ infer: { prompt: x }, for_each: { items: [1], max_parallel: 0 } }", "NIKA-PARSE-019"),
        ("{ infer: { prompt: x }, after: [a] }", "NIKA-PARSE-019"),
        ("{ infer: { prompt: x }, after: { b: 3 } }", "NIKA-DAG-005"),
        ("{ infer: { prompt: x }, when: 3 }", "NIKA-VAR-005"),
        ("{ infer: { prompt: x }, group: Bad-Group }", "NIKA-PARSE-019"),
        ("{ infer: { prompt: x }, lift: [{ law: data-as-code, because: '' }] }", "NIKA-PARSE-019"),
        ("{ infer: { prompt: x }, lift: [{ law: taint, because: ok }] }", "NIKA-PARSE-019"),
        (
            "{ infer: { prompt: x }, lift: [{ law: data-as-code, from: inputs.p, because: ok }] }",
            "NIKA-PARSE-019",
        ),
        ("{ infer: { prompt: x, schema: { type: object } }, returns: string }", "NIKA-TYPE-003"),
        ("{ exec: { command: [ls] }, returns: { object: { n: integer } } }", "NIKA-TYPE-004"),
        ("{ exec: { command: [ls], decode: bytes }, returns: string }", "NIKA-TYPE-004"),
        ("{ exec: { command: [ls], decode: jsonl }, returns: { map: string } }", "NIKA-TYPE-004"),
        ("{ infer: { prompt: x }, returns: Summary }", "NIKA-TYPE-001"),
    ],
)
def test_task_refusals(task: str, code: str) -> None:
    assert code in codes(f"nika: x\ntasks:\n  a: {task}\n")


@pytest.mark.parametrize(
    "task",
    [
        "{ exec: { command: [ls], decode: json }, returns: { object: { n: integer } } }",
        "{ exec: { command: [ls], decode: jsonl }, returns: { array: integer } }",
        "{ exec: { command: [ls], decode: bytes }, returns: bytes }",
        "{ exec: { command: [ls] }, returns: { union: [string, null] } }",
        "{ exec: { shell: 'ls | wc -l' } }",
        "{ invoke: { tool: 'mcp:my-server/do_thing', args: { a: 1 } } }",
        "{ invoke: { workflow: ./child.nika.yaml } }",
        "{ agent: { prompt: x, tools: ['nika:done'], max_turns: 3 } }",
        "{ infer: { prompt: x }, on_error: { on_codes: [NIKA-TIMEOUT-001], recover: { a: 1 } } }",
        "{ infer: { prompt: x }, on_error: { skip: true } }",
        "{ infer: { prompt: x }, retry: { max_attempts: 3, backoff_strategy: linear, "
        "on_codes: [NIKA-INFER-001] } }",
        '{ infer: { prompt: x }, timeout: "1h30m500ms" }',
        "{ infer: { prompt: x }, for_each: { items: [1, 2], max_parallel: 1, fail_fast: false } }",
        "{ infer: { prompt: x }, lift: [{ law: taint, from: inputs.p, because: reviewed }] }",
        "{ infer: { prompt: x }, group: probes, when: false }",
    ],
)
def test_task_clean(task: str) -> None:
    assert codes(f"nika: x\ntasks:\n  a: {task}\n") == []


def test_bodies_carry_their_fields() -> None:
    wf, _ = build(
        """
        nika: x
        tasks:
          i: { invoke: { tool: "nika:read", args: { path: a.txt } } }
          g: { agent: { prompt: p, tools: ["nika:*"], skills: [s/SKILL.md], model: mock/echo } }
        """
    )
    assert wf is not None
    inv, ag = wf.tasks[TaskId("i")], wf.tasks[TaskId("g")]
    assert (
        isinstance(inv.body, InvokeBody)
        and inv.tool == "nika:read"
        and inv.body.args == {"path": "a.txt"}
    )
    assert (
        isinstance(ag.body, AgentBody) and ag.body.tools == ("nika:*",) and ag.model == "mock/echo"
    )


def test_all_findings_are_collected_across_tasks() -> None:
    found = codes(
        """
        nika: x
        tasks:
          a: { infer: { prompt: x }, timeout: 5 }
          b: { infer: { prompt: x }, retry: { max_attempts: 0 } }
          c: { with: { a: 1 } }
        """
    )
    assert {"NIKA-PARSE-010", "NIKA-PARSE-011", "NIKA-PARSE-008"} <= set(found)


def test_findings_are_located() -> None:
    _, errors = build("nika: x\ntasks:\n  a:\n    infer: { prompt: x }\n    timeout: 5\n")
    (err,) = errors
    assert err.location is not None and err.location.line == 5


@pytest.mark.parametrize(
    ("decl", "code"),
    [
        ("{ type: integer, default: 'three' }", "NIKA-DEFAULT-001"),
        ("{ type: { enum: [a, b] }, default: c }", "NIKA-DEFAULT-001"),
        ("{ type: boolean }", "NIKA-TYPE-001"),
        ("{ required: true }", "NIKA-PARSE-019"),
        ("{ type: string, secret: true }", "NIKA-PARSE-005"),
    ],
)
def test_input_declarations(decl: str, code: str) -> None:
    assert code in codes(
        f"nika: x\ninputs:\n  p: {decl}\ntasks: {{ a: {{ infer: {{ prompt: x }} }} }}\n"
    )


def test_typed_const_value_must_conform() -> None:
    src = (
        "nika: x\nconst: { w: { type: integer, value: '30' } }\n"
        "tasks: { a: { infer: { prompt: x } } }\n"
    )
    assert codes(src) == ["NIKA-DEFAULT-001"]


def test_bad_input_never_raises() -> None:
    for src in ["nika: [x]", "nika: x\ntasks: { a: 5 }", "nika: x\ntasks: { a: { infer: 5 } }"]:
        wf, errors = build(src)
        assert errors, src


@pytest.mark.parametrize(("body", "says"), [
    ('exec: "echo hi"', '`exec: { command: ["echo", "hi"] }` (argv, no shell) or '
                        "`exec: { shell: 'echo hi' }`"),
    ('exec: ["echo", "hi"]', "an argv list goes under `command:`: "
                             "`exec: { command: ['echo', 'hi'] }`"),
    ('infer: "Say hi."', "`infer: { prompt: 'Say hi.' }`"),
    ('invoke: "nika:log"', "`invoke: { tool: 'nika:log', args: { … } }`"),
])
def test_a_verb_given_a_bare_value_says_which_mapping_to_write(body: str, says: str) -> None:
    # issue 35: `exec: "echo hi"` is one finding that shows the mapping, not just "a mapping"
    _, errors = build(f"nika: x\ntasks:\n  a:\n    {body}\n")
    [error] = errors
    assert error.code == "NIKA-PARSE-019" and says in error.detail, error.detail


@pytest.mark.parametrize(("src", "meant"), [
    ("nika: x\ntasks:\n  a:\n    infer: { promt: hi }\n", "prompt"),
    ("nika: x\ntasks:\n  a:\n    infr: { prompt: hi }\n", "infer"),
    ("nika: x\ntaks:\n  a:\n    infer: { prompt: hi }\n", "tasks"),
    ("nika: x\ntasks:\n  a:\n    exec: { comand: [ls] }\n", "command"),
])
def test_a_misspelt_field_is_one_finding_that_names_the_field(src: str, meant: str) -> None:
    _, errors = build(src)
    [error] = errors
    assert error.code == "NIKA-PARSE-005" and f"did you mean `{meant}`?" in error.detail


def test_an_unrelated_unknown_field_still_leaves_the_missing_one_reported() -> None:
    _, errors = build("nika: x\ntasks:\n  a:\n    infer: { zzz: hi }\n")
    assert sorted(e.code for e in errors) == ["NIKA-PARSE-005", "NIKA-PARSE-018"]


@pytest.mark.parametrize("glob", ["nika:re[ad", "nika:*[", "[abc", "nika:[z-a]*", "", "!"])
@pytest.mark.parametrize("permits", ["", "permits:\n  exec: true\n  fs: { read: ['**'] }\n"])
def test_a_malformed_agent_tool_glob_is_a_located_parse_finding_through_the_cli(
    tmp_path: Path, glob: str, permits: str
) -> None:
    # it crashed the authority rung (IMPL-001) with exec+fs permits and passed check
    # (to fail at run) without them: the builder judges it where it stands, both verbs
    flow = tmp_path / "g.nika.yaml"
    flow.write_text(
        f"nika: g\nmodel: mock/echo\n{permits}tasks:\n  a:\n    agent:\n"
        f"      prompt: hi\n      tools: ['nika:done', {glob!r}]\n"
    )
    line = 5 + permits.count("\n") + 2
    for verb in ("check", "run"):
        done = subprocess.run(
            [sys.executable, "-m", "nika.cli", verb, str(flow)],
            capture_output=True, text=True, timeout=60, cwd=tmp_path, check=False,
        )
        assert done.returncode == 1, done.stderr
        text = done.stdout + done.stderr
        assert "NIKA-IMPL-001" not in text and "Traceback" not in text
        assert f"g.nika.yaml:{line}:28 NIKA-PARSE-019" in text
        assert f"glob {glob!r} is malformed" in text
