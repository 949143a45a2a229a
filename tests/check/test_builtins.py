"""Rung `nika.check.builtins`: the closed builtin set and static arg contracts."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from nika.check import builtins
from nika.check.context import CheckContext
from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow


def ctx_of(src: str, base: Path = Path(".")) -> CheckContext:
    doc = load_document(textwrap.dedent(src))
    wf, errors = build_workflow(doc)
    assert wf is not None and not errors, errors
    return CheckContext(doc, wf, None, base)


def codes(tool: str, args: str) -> list[str]:
    ctx = ctx_of(f"nika: x\ntasks:\n  t:\n    invoke: {{ tool: '{tool}', args: {args} }}\n")
    return sorted(f.code for f in builtins.run(ctx) if isinstance(f, NikaError))


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("nika:csv_to_json", "{ input: x }", "NIKA-INVOKE-001"),
        ("nika:charts", "{}", "NIKA-INVOKE-001"),
        ("nika:done", "{ result: 1 }", "NIKA-BUILTIN-DONE-001"),
        ("nika:compose", "{ workflow_yaml: x }", "NIKA-BUILTIN-COMPOSE-001"),
        ("nika:write", "{ path: ./out.md }", "NIKA-BUILTIN-001"),
        ("nika:jq", "{ input: [], query: length }", "NIKA-BUILTIN-001"),
        ("nika:wait", "{ duration: 5s, until: '2026-12-01T00:00:00Z' }", "NIKA-BUILTIN-WAIT-003"),
        ("nika:wait", "{}", "NIKA-BUILTIN-WAIT-003"),
        ("nika:wait", "{ duration: 5 parsecs }", "NIKA-BUILTIN-001"),
        ("nika:fetch", "{ url: 'https://a.b', form: { q: 1 } }", "NIKA-BUILTIN-001"),
        (
            "nika:fetch",
            "{ url: 'https://a.b', method: POST, body: x, form: { a: b } }",
            "NIKA-BUILTIN-001",
        ),
        ("nika:fetch", "{ url: 'https://a.b', mode: markdown, jq: '.a' }", "NIKA-BUILTIN-001"),
        ("nika:fetch", "{ url: 'https://a.b', traverse: { max_pages: 200 } }", "NIKA-BUILTIN-001"),
        ("nika:fetch", "{ url: 'https://a.b', mode: llm-txt }", "NIKA-BUILTIN-001"),
        ("nika:fetch", "{ mode: article }", "NIKA-BUILTIN-001"),
        ("nika:fetch", "{ url: 'https://a.b', mode: article, selector: h1 }", "NIKA-BUILTIN-001"),
        ("nika:fetch", "{ url: 'https://a.b', selector: h1 }", "NIKA-BUILTIN-001"),
        (
            "nika:fetch",
            "{ url: 'https://a.b', method: POST, multipart: [{ name: f, value: v, path: a.png }] }",
            "NIKA-BUILTIN-001",
        ),
        (
            "nika:fetch",
            "{ url: 'https://a.b', method: POST, multipart: [{ name: f }] }",
            "NIKA-BUILTIN-001",
        ),
        (
            "nika:fetch",
            "{ url: 'https://a.b', method: POST, multipart: [{ name: f, value: v, filename: x }] }",
            "NIKA-BUILTIN-001",
        ),
        (
            "nika:fetch",
            "{ url: 'https://a.b', method: POST, multipart: { a: b } }",
            "NIKA-BUILTIN-001",
        ),
        ("nika:hash", "{ op: sign, content: abc }", "NIKA-BUILTIN-HASH-001"),
        ("nika:hash", "{ op: sign, content: abc, key: inline-key }", "NIKA-BUILTIN-HASH-001"),
        ("nika:hash", "{ content: abc, signature: beef }", "NIKA-BUILTIN-HASH-001"),
        ("nika:hash", "{ algo: md5, content: abc }", "NIKA-BUILTIN-HASH-001"),
        ("nika:convert", "{ input: x, from: csv, to: csv }", "NIKA-BUILTIN-CONVERT-001"),
        (
            "nika:prompt",
            "{ message: m, mode: choice, choices: [a, b], default: c }",
            "NIKA-BUILTIN-PROMPT-002",
        ),
        ("nika:inspect", "{ view: everything }", "NIKA-BUILTIN-INSPECT-001"),
        ("nika:image_generate", "{ prompt: p, output_dir: ./a, mode: edit }",
         "NIKA-BUILTIN-IMAGE_GENERATE-001"),
        ("nika:chart", "{ data: [], out: chart.png }", "NIKA-BUILTIN-001"),
        ("nika:emit", "{ event_type: Bad Type }", "NIKA-BUILTIN-EMIT-001"),
    ],
)
def test_refused(tool: str, args: str, code: str) -> None:
    assert code in codes(tool, args)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("nika:write", "{ path: ./out.md, content: hi }"),
        ("nika:jq", "{ input: [], expression: length }"),
        ("nika:wait", "{ until: '2026-12-01T00:00:00Z', timeout: 48h }"),
        ("nika:fetch", "{ url: 'https://a.b', traverse: { max_pages: 5 } }"),
        ("nika:fetch", "{ url: 'https://a.b', mode: selector, selector: div }"),
        ("nika:fetch", "{ url: 'https://a.b', mode: '${{ with.m }}', selector: div }"),
        (
            "nika:fetch",
            "{ url: 'https://a.b', method: POST, multipart: [{ name: n, value: '${{ with.v }}' }, "
            "{ name: f, path: a.png, filename: a.png, content_type: image/png }, "
            "'${{ with.p }}'] }",
        ),
        ("nika:fetch", "{ url: '${{ with.u }}', method: '${{ with.m }}', form: { a: b } }"),
        ("nika:hash", "{ op: sign, content: abc, key: '${{ secrets.release_key }}' }"),
        ("nika:hash", "{ op: verify, content: abc, public_key: pk, signature: beef }"),
        ("nika:convert", "{ input: x, from: csv, to: json }"),
        (
            "nika:image_generate",
            "{ provider: openai, mode: edit, image: a.png, prompt: p, output_dir: ./o }",
        ),
        ("nika:tts_generate", "{ provider: local, text: hello, output_dir: out }"),
        ("mcp:any/tool", "{ whatever: 1 }"),
    ],
)
def test_clean(tool: str, args: str) -> None:
    assert codes(tool, args) == []


def test_agent_whitelist_names_known_builtins() -> None:
    ctx = ctx_of(
        "nika: x\ntasks:\n  a:\n    agent: "
        "{ prompt: p, tools: ['nika:done', 'nika:*', 'nika:fecth'] }\n"
    )
    found = [f for f in builtins.run(ctx) if isinstance(f, NikaError)]
    assert [f.code for f in found] == ["NIKA-INVOKE-001"]
    assert "nika:fetch" in found[0].detail and found[0].location is not None


@pytest.mark.parametrize(
    ("tool", "args", "needle"),
    [
        ("nika:jq", "{ input: [], expression: '.foo | | bad' }", "does not compile"),
        ("nika:jq", "{ input: {}, expression: 'env.HOME' }", "reads the ambient 'env'"),
        ("nika:fetch", "{ url: 'https://a.b', mode: jq, jq: '.items[' }", "does not compile"),
    ],
)
def test_a_literal_jq_program_must_compile(tool: str, args: str, needle: str) -> None:
    ctx = ctx_of(f"nika: x\ntasks:\n  t:\n    invoke: {{ tool: '{tool}', args: {args} }}\n")
    found = [f for f in builtins.run(ctx) if isinstance(f, NikaError)]
    assert [f.code for f in found] == ["NIKA-VAR-005"]
    assert needle in found[0].detail and "task `t`" in found[0].detail
    assert found[0].location is not None and found[0].location.line == 4


@pytest.mark.parametrize(
    "args",
    [
        "{ input: [1], expression: 'map(. + 1) | add' }",
        "{ input: [1], expression: '${{ with.program }}' }",  # the run's to judge
    ],
)
def test_a_well_formed_or_templated_jq_program_passes(args: str) -> None:
    assert codes("nika:jq", args) == []


def test_a_list_where_a_string_belongs_is_a_shape_finding_not_a_crash() -> None:
    # issue 14: `op: [sign]` once raised TypeError (unhashable list) inside the rung.
    ctx = ctx_of(
        "nika: x\ntasks:\n  t:\n    invoke: { tool: nika:hash, args: { op: [sign], content: x } }\n"
    )
    found = [f for f in builtins.run(ctx) if isinstance(f, NikaError)]
    assert [f.code for f in found] == ["NIKA-BUILTIN-HASH-001"]
    assert "`op: ['sign']` is a list" in found[0].detail and "is a string" in found[0].detail


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("nika:read", "{ path: [a] }", "NIKA-BUILTIN-001"),
        ("nika:read", "{ path: x, bogus: 1 }", "NIKA-BUILTIN-001"),  # the run's schema is closed
        ("nika:write", "{ path: x, content: y, overwrite: 'yes' }", "NIKA-BUILTIN-001"),
        ("nika:edit", "{ path: x, find: a, replace: b, count: 1.5 }", "NIKA-BUILTIN-EDIT-001"),
        ("nika:fetch", "{ url: 'https://a.example', method: [POST], body: x }", "NIKA-BUILTIN-001"),
        ("nika:inspect", "{ view: { a: 1 } }", "NIKA-BUILTIN-INSPECT-001"),
        ("nika:image_generate", "{ prompt: p, output_dir: o, provider: [] }",
         "NIKA-BUILTIN-IMAGE_GENERATE-001"),
        ("nika:wait", "{ duration: [5s] }", "NIKA-BUILTIN-001"),
        ("nika:prompt", "{ message: m, mode: choice, choices: a }", "NIKA-BUILTIN-001"),
    ],
)
def test_every_wrong_yaml_type_is_named_once(tool: str, args: str, code: str) -> None:
    assert codes(tool, args) == [code]


@pytest.mark.parametrize(
    "args",
    [
        "{ path: '${{ inputs.p }}' }",  # one whole island: any type, the run's to judge
        "{ path: 'out/${{ inputs.p }}.md' }",
    ],
)
def test_a_templated_argument_is_not_typed_statically(args: str) -> None:
    ctx = ctx_of(
        "nika: x\ninputs: { p: { type: string } }\ntasks:\n  t:\n"
        f"    invoke: {{ tool: nika:read, args: {args} }}\n"
    )
    assert [f for f in builtins.run(ctx) if isinstance(f, NikaError)] == []
