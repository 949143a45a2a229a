"""One declaration per builtin: the checker and the executor agree on every builtin.

For every name of the closed stdlib set, the same literal args go to the checker's builtin
rung (as a workflow's `invoke: args:`) and to the executor (`BuiltinExecutor.call`, or the
loop's intrinsic for `nika:done` / `nika:compose`). A bad call is refused by both, once, with
the same code; a good call passes the check and is accepted by the executor — it runs, or
fails only for a run-time reason (`ran`: an effect the SSRF floor refuses, a provider
without its key or server, a false assertion). The walk covers every rule of every declaration.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from tests.decide._spec import bundle as decide_bundle
from tests.decide._spec import snapshot as decide_snapshot

from nika.agent.config import AgentConfig
from nika.agent.intrinsic import Finish, LoopContext, intrinsic_named
from nika.agent.seams import ToolResult
from nika.check import builtins as rung
from nika.check.context import CheckContext
from nika.errors import NikaError
from nika.stdlib import DECLARATIONS
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow
from nika.tools.builtins import BuiltinExecutor, Context

B = "NIKA-BUILTIN-001"
SSRF = "NIKA-SEC-005"
IG = "NIKA-BUILTIN-IMAGE_GENERATE-"
FX = "NIKA-BUILTIN-IMAGE_FX-"
PATH = "NIKA-INVOKE-002"  # a path no file system holds: the check's and the resolver's code
NOW = datetime(2026, 5, 1, tzinfo=UTC)
SPEC = Path(__file__).resolve().parents[4] / "shared" / "nika-spec"
STDLIB = SPEC / "stdlib" / "builtins-v0.1.md"


class Case(NamedTuple):
    args: dict[str, Any]
    refused: str | None = None
    """The code both refuse the args with (None: a good call)."""
    ran: str | None = None
    """For a good call: the run-time code the executor may still end with (None: success)."""


CASES: dict[str, list[Case]] = {
    "nika:assert": [
        Case({"condition": True, "message": "m"}),
        Case({"condition": False}, ran="NIKA-BUILTIN-ASSERT-001"),
        Case({"condition": "yes"}, B),
        Case({}, B),
    ],
    "nika:chart": [
        Case({"data": [{"k": "a", "v": 1}], "out": "c.svg",
              "chart": {"type": "bar", "x": "k", "y": "v"}}),
        Case({"data": [{"k": "a", "v": "1"}], "out": "c.svg",
              "chart": {"type": "bar", "x": "k", "y": "v"}}, ran="NIKA-BUILTIN-CHART-006"),
        Case({"data": [1], "out": "c.svg", "chart": {"type": "bar", "x": "k", "y": "v"}},
             "NIKA-BUILTIN-CHART-006"),
        Case({"data": [], "out": "c.svg", "chart": {"type": "bar", "x": "k", "y": "v"}},
             "NIKA-BUILTIN-CHART-001"),
        Case({"data": [{"k": "a"}], "out": "c.svg", "chart": {"type": "bar", "x": "k", "y": "v"}},
             "NIKA-BUILTIN-CHART-002"),
        Case({"data": [{}], "out": "c.png", "chart": {"type": "bar"}}, "NIKA-BUILTIN-CHART-004"),
        Case({"data": [{}], "out": "c.svg", "chart": {"type": "pie"}}, "NIKA-BUILTIN-CHART-004"),
        Case({"data": [{}], "out": "c.svg", "chart": {"type": "bar"},
              "semantics": {"v": "eur"}}, "NIKA-BUILTIN-CHART-004"),
        Case({"data": [{}], "chart": {"type": "bar"}}, B),
        Case({"data": {"path": "rows\x00.csv"}, "out": "c.svg", "chart": {"type": "bar"}}, PATH),
    ],
    "nika:compose": [
        Case({"workflow_yaml": "nika: x\ntasks:\n  a:\n    exec: { command: [echo] }\n"}),
        Case({}, "NIKA-INVOKE-002"),
        Case({"workflow_yaml": 42}, "NIKA-INVOKE-002"),
        Case({"workflow_yaml": "nika: x", "run": True}, "NIKA-INVOKE-002"),
    ],
    "nika:convert": [
        Case({"input": "a,b\n1,2\n", "from": "csv", "to": "json"}),
        Case({"input": "x", "from": "csv", "to": "csv"}, "NIKA-BUILTIN-CONVERT-001"),
        Case({"input": "x", "from": "xml", "to": "json"}, B),
        Case({"input": "x", "from": "csv", "to": "json", "has_header": "yes"}, B),
    ],
    "nika:date": [
        Case({"op": "now", "tz": "Europe/Paris"}),
        Case({"op": "add", "base": "2026-01-01T00:00:00Z", "duration": "36h"}),
        Case({"op": "diff", "start": "2026-01-01T00:00:00Z", "end": "2026-01-02T00:00:00Z",
              "unit": "minutes"}),
        Case({"op": "parse", "input": "01/02/2026", "format": "%d/%m/%Y"}),
        Case({"op": "later"}, "NIKA-BUILTIN-DATE-001"),
        Case({"op": "now", "base": "2026-01-01T00:00:00Z"}, "NIKA-BUILTIN-DATE-001"),
        Case({"op": "add"}, "NIKA-BUILTIN-DATE-001"),
        Case({"op": "subtract", "duration": "1w2d"}),
        Case({"op": "add", "duration": "2 days"}, "NIKA-BUILTIN-DATE-001"),
        Case({"op": "add", "duration": "1d5x"}, "NIKA-BUILTIN-DATE-001"),
        Case({"op": "add", "base": "yesterday", "duration": "1h"}, "NIKA-BUILTIN-DATE-001"),
        Case({"op": "format", "input": "soon", "format": "%Y"}, "NIKA-BUILTIN-DATE-001"),
        Case({"op": "diff", "start": "then", "end": "2026-01-02T00:00:00Z"},
             "NIKA-BUILTIN-DATE-001"),
        Case({"op": "diff", "start": "2026-01-02T00:00:00Z", "end": "now"},
             "NIKA-BUILTIN-DATE-001"),
        Case({"tz": "Mars/Olympus"}, "NIKA-BUILTIN-DATE-001"),
        Case({"op": "diff", "start": "2026-01-02T00:00:00Z", "end": "2026-01-02T00:00:00Z",
              "unit": "y"}, "NIKA-BUILTIN-DATE-001"),
    ],
    "nika:decide": [
        Case({"bundle": "rubric.json", "evidence": {}}, ran="NIKA-DECIDE-001"),  # no such file
        Case({"bundle": decide_bundle(), "evidence": decide_snapshot("s5-cold")}),
        Case({"bundle": {**decide_bundle(), "fixtures": []}, "evidence": {}},
             "NIKA-DECIDE-001"),
        Case({"bundle": decide_bundle(), "evidence": {"evidence": [{"key": "ghost"}]}},
             "NIKA-DECIDE-002"),
        Case({"bundle": 3, "evidence": {}}, B),
        Case({"bundle": "rubric.yaml"}, B),
        Case({"bundle": "", "evidence": {}}, PATH),
    ],
    "nika:done": [
        Case({}),
        Case({"result": {"a": 1}}),
        Case({"result": 1, "why": "x"}, "NIKA-INVOKE-002"),
    ],
    "nika:edit": [
        Case({"path": "ed.txt", "find": "old", "replace": "new", "count": 1}),
        Case({"path": "ed.txt", "find": "old", "replace": "new", "count": 1.5},
             "NIKA-BUILTIN-EDIT-001"),
        Case({"path": "ed.txt", "find": "old", "replace": "new", "count": 0},
             "NIKA-BUILTIN-EDIT-001"),
        Case({"path": "ed.txt", "find": "", "replace": "new"}, B),
        Case({"path": "ed.txt", "find": "old"}, B),
        Case({"path": "ed\x00.txt", "find": "old", "replace": "new"}, PATH),
    ],
    "nika:emit": [
        Case({"event_type": "deploy.done", "payload": {"n": 1}}),
        Case({"event_type": "Bad Type"}, "NIKA-BUILTIN-EMIT-001"),
        Case({"payload": 1}, "NIKA-BUILTIN-EMIT-001"),
    ],
    "nika:fetch": [
        Case({"url": "http://127.0.0.1:9/a", "mode": "article"}, ran=SSRF),
        Case({"url": "http://127.0.0.1:9/a", "method": "POST", "form": {"q": 1}}, ran=SSRF),
        Case({"url": "http://127.0.0.1:9/a", "traverse": {"max_pages": 5}}, ran=SSRF),
        Case({"method": "GET"}, B),
        Case({"url": "ftp://example.com/a"}, B),
        Case({"url": "https://a.example", "method": "FETCH"}, B),
        Case({"url": "https://a.example", "form": {"q": 1}}, B),
        Case({"url": "https://a.example", "method": "POST", "body": "x", "form": {"q": 1}}, B),
        Case({"url": "https://a.example", "method": "POST", "form": {"q": 1},
              "headers": {"Content-Type": "text/plain"}}, B),
        Case({"url": "https://a.example", "mode": "markdown", "jq": ".a"}, B),
        Case({"url": "https://a.example", "mode": "selector"}, B),
        Case({"url": "https://a.example", "mode": "selector", "selector": "a[["}, B),
        Case({"url": "https://a.example", "traverse": {"max_pages": 26}}, B),
        Case({"url": "https://a.example", "traverse": {"max_pages": 2}, "mode": "text"}, B),
        Case({"url": "https://a.example", "traverse": {"max_pages": 2}, "method": "HEAD"}, B),
        Case({"url": "https://a.example", "method": "POST",
              "multipart": [{"name": "f", "value": "v", "path": "a.png"}]}, B),
        Case({"url": "https://a.example", "method": "POST",
              "multipart": [{"name": "n", "value": "v"}] * 65}, B),
        Case({"url": "https://a.example", "mode": "jq", "jq": ".items["}, "NIKA-VAR-005"),
        Case({"url": "https://a.example", "method": "POST",
              "multipart": [{"name": "n", "value": "v"}, {"name": "f", "path": ""}]}, PATH),
    ],
    "nika:glob": [
        Case({"pattern": "*.txt", "exclude": ["out*"]}),
        Case({"pattern": "./"}, "NIKA-BUILTIN-GLOB-001"),
        Case({"pattern": "in\x00/*.txt"}, PATH),
        Case({"pattern": "*.txt", "exclude": 3}, B),
        Case({}, B),
    ],
    "nika:grep": [
        Case({"pattern": "old", "case_insensitive": True}),
        Case({"pattern": "(a)\\1"}, "NIKA-BUILTIN-GREP-001"),
        Case({"pattern": "("}, "NIKA-BUILTIN-GREP-001"),
        Case({"pattern": "old", "case_insensitive": "no"}, B),
        Case({"pattern": "old", "path": "\x00"}, PATH),
    ],
    "nika:hash": [
        Case({"content": "abc"}),
        Case({"op": "hash", "content": {"a": 1}, "algo": "sha256", "encoding": "base64"}),
        Case({"content": "abc", "algo": "md5"}, "NIKA-BUILTIN-HASH-001"),
        Case({"op": "sign", "content": "abc"}, "NIKA-BUILTIN-HASH-001"),
        Case({"content": "abc", "signature": "beef"}, "NIKA-BUILTIN-HASH-001"),
        Case({"op": ["sign"], "content": "abc"}, "NIKA-BUILTIN-HASH-001"),
        # a source rule: the check refuses an inline key, the run that key (not a key at all)
        Case({"op": "sign", "content": "abc", "key": "inline-key"}, "NIKA-BUILTIN-HASH-001"),
    ],
    "nika:image_fx": [
        Case({"input": "a.png", "out": "b.png", "ops": [{"grayscale": {}}]}, ran=FX + "002"),
        Case({"input": "a.png", "out": "b.png", "ops": [{"blur": 1}]}, FX + "001"),
        Case({"input": "a.png", "out": "b.txt", "ops": [{"grayscale": {}}]}, FX + "001"),
        Case({"input": "a.png", "out": "b.png", "ops": []}, FX + "001"),
        Case({"input": "a.png", "out": "b.png"}, FX + "001"),
        Case({"input": "a.png", "out": "", "ops": [{"grayscale": {}}]}, PATH),
    ],
    "nika:image_generate": [
        Case({"prompt": "p", "output_dir": "o", "provider": "mock"}),
        Case({"prompt": "p", "output_dir": "o", "provider": "mock", "mode": "edit"}, IG + "001"),
        Case({"prompt": "p", "output_dir": "o", "provider": "mock", "image": "a.png"}, IG + "001"),
        Case({"prompt": "p", "output_dir": "o", "provider": "mock", "save": False}, IG + "001"),
        Case({"prompt": "p", "output_dir": "o", "provider": "mock",
              "reference_images": ["a.png"]}, IG + "001"),
        Case({"prompt": "p", "output_dir": "o", "provider": "mock", "n": 11}, IG + "001"),
        Case({"prompt": "p", "output_dir": "o", "provider": "mock", "qualty": "high"}, IG + "001"),
        Case({"prompt": "p", "output_dir": "o", "model": "stablediffusion"}, IG + "001"),
        Case({"prompt": "p", "output_dir": "o", "provider": "openai"}, ran=IG + "002"),
        Case({"prompt": "p", "output_dir": "o", "provider": "mock", "mode": "edit",
              "images": ["a\x00.png"]}, PATH),
    ],
    "nika:inspect": [
        Case({"view": "cost"}),
        Case({"view": "memory"}, "NIKA-BUILTIN-INSPECT-001"),
        Case({}, "NIKA-BUILTIN-INSPECT-001"),
    ],
    "nika:jq": [
        Case({"expression": ".a + 1", "input": {"a": 1}}),
        Case({"expression": ".foo | | bad"}, "NIKA-VAR-005"),
        Case({"expression": "env.HOME"}, "NIKA-VAR-005"),
        Case({"expression": ".", "query": "."}, B),
    ],
    "nika:json_diff": [
        Case({"before": {"a": 1}, "after": {"a": 2}}),
        Case({"before": {"a": 1}}, B),
    ],
    "nika:json_merge_patch": [
        Case({"target": {"a": 1}, "patch": {"a": None}}),
        Case({"target": [1], "patch": {}}, "NIKA-BUILTIN-JSON_MERGE_PATCH-001"),
        Case({"target": {}}, B),
    ],
    "nika:log": [
        Case({"level": "warn", "message": "hi", "data": [1]}),
        Case({"level": "loud", "message": "hi"}, B),
        Case({"level": "info"}, B),
    ],
    "nika:notify": [
        Case({"channel": "webhook", "target": "http://127.0.0.1:9/h", "message": "m"},
             ran=SSRF),
        Case({"channel": "slack", "message": "m"}, ran="NIKA-BUILTIN-NOTIFY-001"),
        Case({"channel": "webhook", "message": "m"}, "NIKA-BUILTIN-NOTIFY-001"),
        Case({"channel": "webhook", "target": "hooks", "message": "m"}, B),
        Case({"channel": "pager", "message": "m"}, B),
    ],
    "nika:prompt": [
        Case({"message": "ok?", "default": True}),
        Case({"message": "which?", "mode": "choice", "choices": ["a", "b"], "default": "b"}),
        Case({"message": "which?", "mode": "choice"}, B),
        Case({"message": "which?", "mode": "choice", "choices": ["a"], "default": "c"},
             "NIKA-BUILTIN-PROMPT-002"),
        Case({"message": "ok?", "default": "yes"}, B),
        Case({"message": "name?", "mode": "input", "default": 3}, B),
        Case({"message": ""}, B),
    ],
    "nika:read": [
        Case({"path": "in.txt", "encoding": "latin-1"}),
        Case({}, B),
        Case({"path": "in.txt", "encoding": "klingon"}, B),
        Case({"path": ["in.txt"]}, B),
        Case({"path": "in.txt", "bogus": 1}, B),
        Case({"path": "in.txt\x00"}, PATH),
        Case({"path": ""}, B),  # the schema's minLength speaks first, at check and at run
    ],
    "nika:tts_generate": [
        Case({"provider": "mock", "text": "hello", "output_dir": "speech", "voice": "sine"}),
        Case({"provider": "mock", "text": "", "output_dir": "speech"},
             "NIKA-BUILTIN-TTS_GENERATE-001"),
        Case({"provider": "mock", "text": "x" * 4097, "output_dir": "speech"},
             "NIKA-BUILTIN-TTS_GENERATE-001"),
        Case({"provider": "mock", "text": "hi", "output_dir": "speech", "voice": "a b"},
             "NIKA-BUILTIN-TTS_GENERATE-001"),
        Case({"provider": "acme", "text": "hi", "output_dir": "speech"},
             "NIKA-BUILTIN-TTS_GENERATE-001"),
        Case({"provider": "mock", "text": "hi"}, "NIKA-BUILTIN-TTS_GENERATE-001"),
        Case({"model": "kokoro", "text": "hi", "output_dir": "speech"},
             "NIKA-BUILTIN-TTS_GENERATE-001"),
        Case({"provider": "mock", "text": "hi", "output_dir": ""}),  # the workflow directory
        Case({"provider": "mock", "text": "hi", "output_dir": "sp\x00eech"}, PATH),
    ],
    "nika:uuid": [
        Case({}),
        Case({"version": "v4"}),
        Case({"version": "v1"}, B),
    ],
    "nika:validate": [
        Case({"data": {"a": 1}, "schema": {"type": "object"}}),
        Case({"data": "a: 1", "schema": '{"type": "object"}', "format": "yaml"}),
        Case({"data": {}, "schema": {"type": 12}}, "NIKA-BUILTIN-VALIDATE-001"),
        Case({"data": {}, "schema": "[1"}, "NIKA-BUILTIN-VALIDATE-001"),
        Case({"data": {"a": 1}, "schema": True, "format": "yaml"}, "NIKA-BUILTIN-VALIDATE-002"),
        Case({"data": {}, "schema": 3}, B),
    ],
    "nika:wait": [
        Case({"duration": "1ms"}),
        Case({"until": "2026-05-02T00:00:00Z", "timeout": "48h"}),
        Case({}, "NIKA-BUILTIN-WAIT-003"),
        Case({"duration": "1s", "until": "2026-05-02T00:00:00Z"}, "NIKA-BUILTIN-WAIT-003"),
        Case({"duration": "1s", "timeout": "1h"}, B),
        Case({"duration": "5 parsecs"}, B),
        Case({"until": "2026-05-02T00:00:00Z", "timeout": "soon"}, B),
        Case({"until": "tomorrow"}, B),
        Case({"duration": ["5s"]}, B),
    ],
    "nika:write": [
        Case({"path": "out.txt", "content": {"a": 1}, "overwrite": True}),
        Case({"path": "out.txt"}, B),
        Case({"path": "out.txt", "content": "x", "overwrite": "yes"}, B),
        Case({"path": "a/\x00", "content": "x"}, PATH),
    ],
}

WALK = [(name, case) for name in sorted(CASES) for case in CASES[name]]


def checked(name: str, args: Mapping[str, Any]) -> list[str]:
    """The codes the checker's builtin rung gives the args, written as a workflow's."""
    invoke = f"{{ tool: '{name}', args: {json.dumps(args)} }}"
    source = f"nika: walk\ntasks:\n  t:\n    invoke: {invoke}\n"
    doc = load_document(source)
    workflow, errors = build_workflow(doc)
    assert workflow is not None and not errors, errors
    found = rung.run(CheckContext(doc, workflow, None, Path(".")))
    return [f.code for f in found if isinstance(f, NikaError)]


async def executed(name: str, args: Mapping[str, Any], base: Path) -> str | None:
    """The code the executor ends the call with (None: it succeeded)."""
    intrinsic = intrinsic_named(name)
    if intrinsic is not None:
        context = LoopContext(AgentConfig(), "t", "mock/echo", 1, lambda _type, _fields: None)
        outcome = await intrinsic.serve(args, context)
        if isinstance(outcome, Finish):
            return None
        assert isinstance(outcome, ToolResult)
        return outcome.error.code if outcome.error is not None else None

    async def no_sleep(_seconds: float) -> None:
        return None

    executor = BuiltinExecutor(Context(base_dir=base, now=lambda: NOW, sleep=no_sleep,
                                       random_bytes=lambda n: bytes(n)))
    result = await executor.call(name, args)
    return result.error.code if result.error is not None else None


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "in.txt").write_text("old text\n")
    (tmp_path / "ed.txt").write_text("old text\n")
    return tmp_path


def test_the_declarations_are_the_stdlib_list() -> None:
    listed = set(re.findall(r"^### `(nika:[a-z_]+)`", STDLIB.read_text(), re.MULTILINE))
    assert len(listed) == 28  # the page's own count (<!-- canon:builtins -->)
    assert set(DECLARATIONS) == listed


def test_the_walk_covers_every_builtin_and_every_rule() -> None:
    assert set(CASES) == set(DECLARATIONS)
    for name, cases in CASES.items():
        assert any(c.refused is None for c in cases), f"{name}: no good call"
        assert any(c.refused is not None for c in cases), f"{name}: no bad call"
    fired = {(name, r.rule) for name, case in WALK if case.refused is not None
             for r in DECLARATIONS[name].refusals(case.args, static=True)}
    declared = {(name, rule.name) for name, d in DECLARATIONS.items() for rule in d.rules}
    assert declared <= fired, sorted(declared - fired)


@pytest.mark.parametrize(("name", "case"), WALK, ids=[f"{n}-{i}" for i, (n, _) in enumerate(WALK)])
async def test_checker_and_executor_agree(name: str, case: Case, workdir: Path) -> None:
    by_check = checked(name, case.args)
    by_run = await executed(name, case.args, workdir)
    loop_only = {"nika:done": "NIKA-BUILTIN-DONE-001", "nika:compose": "NIKA-BUILTIN-COMPOSE-001"}
    if name in loop_only:
        # never judged from a file: a standalone invoke is refused whatever its args
        assert by_check == [loop_only[name]]
    elif case.refused is not None:
        assert by_check == [case.refused]
    else:
        assert by_check == []
    assert by_run == (case.refused if case.refused is not None else case.ran)
