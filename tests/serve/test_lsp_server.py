"""`nika lsp` through pygls' `LanguageClient`, which spawns it over stdio: diagnostics as a
document is opened and fixed, hover, definition, completion, code actions applied, and the
`nika/semanticDocument` of spec 16 (negotiated under `experimental.nika`)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from tests.check.test_projection import SHAPE, oracle
from tests.serve._lsp_session import SRC, TIMEOUT, lsp_session

from nika.check import check
from nika.check.projection import inspect_source
from nika.serve._ranges import Lines

BROKEN = """\
nika: broken
tasks:
  a:
    after: { ghost: success }
    infer: { model: mock/echo, prompt: "hi" }
"""
FIXED = BROKEN.replace("{ ghost: success }", "{ b: success }") + \
    '  b:\n    infer: { model: mock/echo, prompt: "first" }\n'
HOIST = """\
nika: hoist
tasks:
  deploy:
    infer: { model: mock/echo, prompt: "go" }
  report:
    after: { deploy: terminal }
    when: "${{ tasks.deploy.status == 'failure' }}"
    infer: { model: mock/echo, prompt: "it failed" }
"""


def _at(text: str, needle: str, offset: int = 0) -> types.Position:
    """The position of `needle`'s first occurrence (+ `offset` characters), in UTF-16."""
    lines = Lines.of(text)
    for number, line in enumerate(text.split("\n")):
        column = line.find(needle)
        if column >= 0:
            return types.Position(number, lines.utf16(number, column + offset))
    raise AssertionError(needle)


def _apply(text: str, edits: Sequence[types.TextEdit]) -> str:
    lines = Lines.of(text)
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)

    def offset(p: types.Position) -> int:
        return starts[p.line] + lines.chars(p.line, p.character)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                       reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def test_a_finding_is_published_with_its_code_and_range_then_cleared(
    tmp_path: Path,
) -> None:
    uri = (tmp_path / "w.nika.yaml").as_uri()
    async with lsp_session(tmp_path) as session:
        session.open(uri, BROKEN)
        [diagnostic] = await session.diagnostics(uri)
        assert diagnostic.code == "NIKA-DAG-002" and diagnostic.source == "nika"
        assert diagnostic.severity == types.DiagnosticSeverity.Error
        [expected] = check(BROKEN).errors
        assert expected.location is not None and diagnostic.message == expected.detail
        start = diagnostic.range.start
        assert (start.line, start.character) == (expected.location.line - 1,
                                                 expected.location.column - 1)
        line = BROKEN.split("\n")[start.line]
        assert line[start.character: diagnostic.range.end.character] == "ghost"

        session.change(uri, FIXED, 2)
        assert await session.diagnostics(uri) == []


async def test_hover_definition_and_completion(tmp_path: Path) -> None:
    uri = (tmp_path / "w.nika.yaml").as_uri()
    text = "# fixes NIKA-DAG-002\n" + SHAPE
    async with lsp_session(tmp_path) as session:
        session.open(uri, text)
        await session.diagnostics(uri)
        client = session.client
        doc = types.TextDocumentIdentifier(uri=uri)

        hover = await client.text_document_hover_async(
            types.HoverParams(doc, _at(text, "NIKA-DAG-002", 3)))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert "NIKA-DAG-002" in hover.contents.value and "Fix:" in hover.contents.value
        hover = await client.text_document_hover_async(
            types.HoverParams(doc, _at(text, "tool: nika:read", 9)))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert "`path`: string (required)" in hover.contents.value

        async def target(needle: str, offset: int) -> tuple[int, int]:
            found = await client.text_document_definition_async(
                types.DefinitionParams(doc, _at(text, needle, offset)))
            assert isinstance(found, types.Location) and found.uri == uri, needle
            return found.range.start.line, found.range.start.character

        gather = _at(text, "  gather:", 2)
        assert await target("tasks.gather.output", 7) == (gather.line, gather.character)
        think = _at(text, "  think:", 2)
        assert await target("after: { think", 10) == (think.line, think.character)
        readme = _at(text, "with: { readme", 8)
        assert await target("with.readme", 6) == (readme.line, readme.character)

        async def complete(position: types.Position) -> set[str]:
            found = await client.text_document_completion_async(
                types.CompletionParams(doc, position))
            items = found.items if isinstance(found, types.CompletionList) else found or []
            return {item.label for item in items}

        edited = text.replace('prompt: "Summarize ${{ with.readme }}"',
                              'prompt: "Summarize ${{ tasks. }}"')
        session.change(uri, edited, 2)
        await session.diagnostics(uri)
        assert await complete(_at(edited, "tasks. }}", 6)) == {
            "gather", "think", "publish", "drop_temp"}
        assert "nika:read" in await complete(_at(edited, "tool: nika:read", 11))
        verb_fields = await complete(types.Position(_at(edited, "model: openai").line, 6))
        assert {"prompt", "max_tokens", "schema"} <= verb_fields
        assert await complete(types.Position(_at(edited, "  fs: {").line, 2)) == {
            "fs", "net", "exec", "tools", "env"}
        tasks = {"gather", "think", "publish", "drop_temp"}
        assert await complete(_at(edited, "after: { think", 9)) == tasks
        block = edited.replace("    after: { think: success }\n", "    after:\n      \n")
        session.change(uri, block, 3)
        await session.diagnostics(uri)
        assert await complete(types.Position(_at(block, "    after:").line + 1, 6)) == tasks


async def test_code_actions_apply_the_fixes_the_details_spell(tmp_path: Path) -> None:
    uri = (tmp_path / "w.nika.yaml").as_uri()
    async with lsp_session(tmp_path) as session:
        session.open(uri, HOIST)
        [diagnostic] = await session.diagnostics(uri)
        assert diagnostic.code == "NIKA-VAR-021"
        actions = await session.client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri), diagnostic.range,
            types.CodeActionContext(diagnostics=[diagnostic])))
        [action] = [a for a in actions or [] if isinstance(a, types.CodeAction)]
        assert action.edit is not None and action.edit.changes is not None
        hoisted = _apply(HOIST, action.edit.changes[uri])
        assert check(hoisted).valid, check(hoisted).errors
        assert "${{ with.deploy_status == 'failure' }}" in hoisted

        unpermitted = SHAPE.replace('  tools: ["nika:read"]\n', "")
        session.change(uri, unpermitted, 2)
        found = await session.diagnostics(uri)
        [capability] = [d for d in found if d.code == "NIKA-SEC-004"]
        actions = await session.client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri), capability.range,
            types.CodeActionContext(diagnostics=[capability])))
        [action] = [a for a in actions or [] if isinstance(a, types.CodeAction)]
        assert action.edit is not None and action.edit.changes is not None
        permitted = _apply(unpermitted, action.edit.changes[uri])
        assert check(permitted).valid, (permitted, check(permitted).errors)


async def test_the_semantic_document_for_a_valid_and_an_invalid_file(tmp_path: Path) -> None:
    good, bad, broken = (tmp_path / f"{n}.nika.yaml" for n in ("good", "bad", "broken"))
    good.write_text(SHAPE, encoding="utf-8")
    async with lsp_session(tmp_path) as session:
        assert session.capabilities is not None
        assert session.capabilities.experimental == {
            "nika": {"semanticDocument": {"semantic_document_format": 1}}}
        session.open(good.as_uri(), SHAPE)
        session.open(bad.as_uri(), BROKEN)
        session.open(broken.as_uri(), "nika: broken\ntasks:\n  first:\n    infer: [unclosed\n"
                                      "  second: {}\n")
        documents: dict[str, Any] = {}
        for path in (good, bad, broken):
            name = path.name.split(".")[0]
            documents[name] = await session.semantic(path.as_uri())
            oracle().validate(documents[name])
        assert documents["good"]["graph"] == inspect_source(SHAPE, str(good)).graph
        assert documents["good"]["spans"]["gather"] == {
            "start": {"line": 6, "character": 2}, "end": {"line": 6, "character": 8}}
        assert "reason" not in documents["good"]
        assert documents["bad"]["reason"] == "findings" and documents["bad"]["graph"] is None
        assert set(documents["bad"]["spans"]) == {"a"}
        assert documents["broken"]["reason"] == "parse" and documents["broken"]["graph"] is None
        assert documents["broken"]["spans"] == {  # recovered by a line scan
            "first": {"start": {"line": 2, "character": 2}, "end": {"line": 2, "character": 7}},
            "second": {"start": {"line": 4, "character": 2}, "end": {"line": 4, "character": 8}}}


async def test_the_semantic_document_is_offered_only_when_negotiated(tmp_path: Path) -> None:
    uri = (tmp_path / "w.nika.yaml").as_uri()
    async with lsp_session(tmp_path, experimental=False) as session:
        assert session.capabilities is not None and session.capabilities.experimental is None
        session.open(uri, SHAPE)
        try:
            await session.semantic(uri)
        except Exception as exc:  # noqa: BLE001 - pygls raises its JsonRpc error class
            assert "not negotiated" in str(exc)
        else:
            raise AssertionError("an un-negotiated request was answered")


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
       st.integers(min_value=0, max_value=45))
def test_utf16_columns_round_trip(line: str, column: int) -> None:
    line = line.replace("\n", "").replace("\r", "")
    lines = Lines.of(line)
    units = lines.utf16(0, column)
    assert units == len(line[:column].encode("utf-16-le")) // 2
    assert lines.chars(0, units) == min(column, len(line))


async def test_a_burst_of_edits_ends_on_the_last_versions_diagnostics(tmp_path: Path) -> None:
    uri = (tmp_path / "w.nika.yaml").as_uri()
    async with lsp_session(tmp_path) as session:
        session.open(uri, FIXED)
        assert await session.diagnostics(uri) == []
        for version in range(2, 7):  # typing: broken, fixed, broken, fixed, broken
            session.change(uri, BROKEN if version % 2 == 0 else FIXED, version)
        while True:
            params = await asyncio.wait_for(session.queue(uri).get(), 60)
            if params.version == 6:
                break
            assert params.version is not None and params.version < 6
        assert [d.code for d in params.diagnostics] == ["NIKA-DAG-002"]
        assert session.queue(uri).empty()


async def test_positions_are_utf16_whatever_the_client_prefers(tmp_path: Path) -> None:
    client = LanguageClient("nika-tests", "1")
    await client.start_io(sys.executable, "-m", "nika.cli", "lsp", cwd=str(tmp_path),
                          env={**os.environ, "PYTHONPATH": str(SRC)})
    try:
        result = await asyncio.wait_for(client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(general=types.GeneralClientCapabilities(
                position_encodings=[types.PositionEncodingKind.Utf8])))), TIMEOUT)
        assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf16
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
    finally:
        await asyncio.wait_for(client.stop(), TIMEOUT)
