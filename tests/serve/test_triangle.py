"""The triangle law of spec 16: for every workflow of the corpora, `nika inspect` (the CLI),
the language server's `nika/semanticDocument` graph and the MCP `nika_inspect` tool serve the
same canonical projection; every semantic document passes the spec's shape oracle and every
graph our `graph_format: 3` schema."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from mcp_types import TextContent
from tests._corpus import corpus
from tests.check.test_projection import graph_schema, oracle
from tests.serve._lsp_session import lsp_session
from tests.serve.test_mcp_server import spawn

from nika.check.projection import graph_json
from nika.cli import main


async def test_cli_lsp_and_mcp_serve_one_projection(
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = corpus()
    root = Path(os.path.commonpath([str(p) for p in files]))
    cli: dict[Path, str | None] = {}
    for path in files:
        code = main(["inspect", str(path)])
        out = capsys.readouterr().out
        assert (code == 0) == bool(out), path
        cli[path] = out if code == 0 else None
    built = [p for p in files if cli[p] is not None]
    assert 40 < len(built) < len(files)

    async with lsp_session(root) as session:
        for path in files:
            session.open(path.as_uri(), path.read_text(encoding="utf-8", errors="replace"))
        for path in files:
            document = await session.semantic(path.as_uri())
            oracle().validate(document)
            graph = document.get("graph")
            assert (graph_json(graph) if graph is not None else None) == cli[path], path
            if graph is not None:
                jsonschema.validate(graph, graph_schema())
                assert json.loads(cli[path] or "") == graph

    async with spawn(root) as client:
        for path in files:
            result = await client.call_tool("nika_inspect",
                                            {"path": str(path.relative_to(root))})
            [content] = result.content
            assert isinstance(content, TextContent)
            if cli[path] is None:
                reasons = ("reason: findings" in content.text, "reason: parse" in content.text)
                assert result.is_error and any(reasons), path
            else:
                assert not result.is_error and content.text == cli[path], path
