"""Effect inference: literal targets named, dynamic ones marked, never guessed."""

from __future__ import annotations

import json
from typing import Any

from nika.check import check
from nika.check.effects import BUILTIN_EFFECTS, SHELL, Effect, infer_effects, needed_permits
from nika.stdlib import DECLARATIONS
from nika.syntax.loader import load_document
from nika.syntax.model import Workflow, build_workflow


def workflow(tasks: str, head: str = "") -> Workflow:
    wf, errors = build_workflow(load_document(f"nika: x\n{head}tasks:\n{tasks}"))
    assert wf is not None and not errors, errors
    return wf


def effects(tasks: str, head: str = "") -> list[tuple[str, str, bool]]:
    return [(e.kind, e.target, e.dynamic) for e in infer_effects(workflow(tasks, head))]


def test_pure_compute_needs_nothing() -> None:
    wf = workflow("  t:\n    infer: { prompt: hi }\n")
    assert infer_effects(wf) == ()
    assert needed_permits(infer_effects(wf)) == {}


def test_fs_builtins_name_their_paths() -> None:
    got = effects(
        "  r:\n    invoke: { tool: nika:read, args: { path: ./data/a.csv } }\n"
        "  w:\n    invoke: { tool: nika:write, args: { path: out/b.md, content: x } }\n"
        "  e:\n    invoke: { tool: nika:edit, args: { path: doc.md, find: a, replace: b } }\n"
        "  g:\n    invoke: { tool: nika:grep, args: { pattern: TODO, path: ./src } }\n"
    )
    assert ("fs.read", "./data/a.csv", False) in got
    assert ("fs.write", "out/b.md", False) in got
    assert ("fs.read", "doc.md", False) in got and ("fs.write", "doc.md", False) in got
    assert ("fs.read", "./src/**", False) in got


def test_a_builtins_files_are_its_declarations_path_args() -> None:
    # One statement: every path arg a declaration marks is an effect of the access it names,
    # at the site it sits; nothing else of the call is.
    for tool in sorted(BUILTIN_EFFECTS):
        declaration = DECLARATIONS[tool]
        args: dict[str, Any] = {}
        expected: set[tuple[str, str, tuple[str | int, ...]]] = set()
        for n, path in enumerate(declaration.paths):
            name = f"p{n}/f.txt"
            if path.each:
                args[path.arg] = [{path.key: name}] if path.key else [name]
            else:
                args[path.arg] = {path.key: name} if path.key else name
            suffix = next(iter(path.located(args)))[0]
            target = f"p{n}/f.txt/**" if path.walk else name
            expected |= {(kind, target, suffix) for kind in path.access}
        wf = workflow(f"  t:\n    invoke: {{ tool: '{tool}', args: {json.dumps(args)} }}\n")
        got = {(e.kind, e.target, e.site[4:]) for e in infer_effects(wf)
               if e.kind.startswith("fs.")}
        assert got == expected, tool
    assert {t for t in BUILTIN_EFFECTS if DECLARATIONS[t].paths} == set(BUILTIN_EFFECTS) - {
        "nika:notify"}


def test_path_args_by_shape_default_nesting_and_lists() -> None:
    got = effects(
        "  g:\n    invoke: { tool: nika:grep, args: { pattern: TODO } }\n"  # path's default
        "  c:\n    invoke: { tool: nika:chart, args: { data: { path: rows.csv }, out: c.svg } }\n"
        "  x:\n    invoke: { tool: nika:image_fx, args: { input: a.png, out: b.png,"
        " ops: [{ grayscale: {} }] } }\n"
        "  f:\n    invoke: { tool: nika:fetch, args: { url: 'https://h.io', method: POST,"
        " multipart: [{ name: f, path: up.bin }] } }\n"
    )
    assert ("fs.read", "**", False) in got
    assert ("fs.read", "rows.csv", False) in got and ("fs.write", "c.svg", False) in got
    assert ("fs.read", "a.png", False) in got and ("fs.write", "b.png", False) in got
    assert ("fs.read", "up.bin", False) in got


def test_fetch_host_and_dynamic_url() -> None:
    got = effects(
        "  a:\n    invoke: { tool: nika:fetch, args: { url: 'https://API.example.com/x' } }\n"
        "  b:\n    invoke: { tool: nika:fetch, args: { url: 'https://h.io/${{ inputs.p }}' } }\n"
        "  c:\n    invoke: { tool: nika:fetch, args: { url: '${{ inputs.u }}' } }\n",
        "inputs:\n  p: { type: string, default: x }\n  u: { type: string, default: x }\n",
    )
    assert ("net", "api.example.com", False) in got
    assert ("net", "h.io", False) in got  # the template sits after the authority
    assert ("net", "${{ inputs.u }}", True) in got


def test_exec_argv_and_opaque_shell() -> None:
    got = effects(
        "  a:\n    exec: { command: [git, status] }\n  b:\n    exec: { shell: 'ls | wc' }\n"
    )
    assert ("exec", "git", False) in got and ("exec", SHELL, False) in got
    block = needed_permits(
        infer_effects(
            workflow(
                "  a:\n    exec: { command: [git, status] }\n  b:\n    exec: { shell: 'ls | wc' }\n"
            )
        )
    )
    assert block["exec"] is True  # only `true` admits an opaque shell


def test_tools_agent_whitelist_and_skills() -> None:
    got = effects(
        "  a:\n    agent: { prompt: p, tools: ['nika:read', 'mcp:gh/*'], skills: [s/SKILL.md] }\n"
    )
    assert ("tool", "nika:read", False) in got and ("tool", "mcp:gh/*", False) in got
    assert ("fs.read", "s/SKILL.md", False) in got


def test_needed_block_skips_pure_builtins_and_opens_dynamic_categories() -> None:
    wf = workflow(
        "  j:\n    invoke: { tool: nika:jq, args: { expression: '.', input: 1 } }\n"
        "  r:\n    invoke: { tool: nika:read, args: { path: '${{ inputs.p }}' } }\n",
        "inputs:\n  p: { type: string }\n",
    )
    block = needed_permits(infer_effects(wf))
    assert block == {"fs": {"read": []}, "tools": ["nika:read"]}


def test_order_is_deterministic_and_site_not_compared() -> None:
    a = Effect("fs.read", "x", "t", site=("a",))
    b = Effect("fs.read", "x", "t", site=("b",))
    assert a == b
    tasks = "  z:\n    exec: { command: [b] }\n  a:\n    exec: { command: [a] }\n"
    assert [e.task for e in infer_effects(workflow(tasks))] == ["z", "a"]


def test_media_builtins_write_their_output_dir_argument_and_read_edit_sources() -> None:
    got = effects(
        "  i:\n    invoke: { tool: nika:image_generate, args: { provider: local, prompt: p,"
        " output_dir: ./assets/og } }\n"
        "  s:\n    invoke: { tool: nika:tts_generate, args: { provider: local, text: t,"
        " output_dir: ./assets/audio } }\n"
        "  e:\n    invoke: { tool: nika:image_generate, args: { provider: openai, mode: edit,"
        " images: [a.png, b.png], mask: m.png, prompt: p, output_dir: out } }\n"
    )
    # check judges the directory argument; the run gates each final file under it
    assert ("fs.write", "./assets/og", False) in got
    assert ("fs.write", "./assets/audio", False) in got
    assert not any(target.endswith("**") for _, target, _ in got)
    assert {("fs.read", "a.png", False), ("fs.read", "b.png", False)} <= set(got)
    assert ("fs.read", "m.png", False) in got


def test_a_bare_directory_grant_and_a_recursive_one_both_admit_output_dir() -> None:
    for grant in ('["./assets/og"]', '["assets/og/**"]'):
        src = (
            f"nika: x\npermits: {{ tools: [nika:image_generate], fs: {{ write: {grant} }} }}\n"
            "tasks:\n  i:\n    invoke: { tool: nika:image_generate, args: { provider: local,"
            " prompt: p, output_dir: ./assets/og } }\n"
        )
        verdict = check(src)
        assert verdict.valid, (grant, [e.code for e in verdict.errors])
    outside = src.replace('["assets/og/**"]', '["assets/other/**"]')
    assert [e.code for e in check(outside).errors] == ["NIKA-SEC-004"]
