"""Rendering MCP content blocks to text, and the size cap."""

from __future__ import annotations

import base64

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from nika.tools._mcp_render import render, truncate

PNG = base64.b64encode(b"\x89PNG" + bytes(96)).decode()


def test_blocks_render_in_order_one_per_line() -> None:
    blocks: list[ContentBlock] = [
        TextContent(type="text", text="hello"),
        ImageContent(type="image", data=PNG, mime_type="image/png"),
        AudioContent(
            type="audio", data=base64.b64encode(bytes(10)).decode(), mime_type="audio/wav"
        ),
        ResourceLink(type="resource_link", name="spec", uri="file:///s.md", description="the spec"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(uri="file:///a.txt", mime_type="text/plain", text="A"),
        ),
        EmbeddedResource(
            type="resource",
            resource=BlobResourceContents(
                uri="file:///b.bin", blob=base64.b64encode(b"xyz").decode()
            ),
        ),
    ]
    assert render(blocks, None).split("\n") == [
        "hello",
        "[image: image/png, 100 bytes]",
        "[audio: audio/wav, 10 bytes]",
        "[resource link: spec <file:///s.md> - the spec]",
        "[resource: file:///a.txt (text/plain)]",
        "A",
        "[resource: file:///b.bin, 3 bytes]",
    ]


def test_structured_content_alone_renders_as_canonical_json() -> None:
    assert render([], {"b": 1, "a": "é"}) == '{"a":"é","b":1}'
    assert render([TextContent(type="text", text="t")], {"a": 1}) == "t"


def test_undecodable_binary_reports_its_raw_length() -> None:
    block = ImageContent(type="image", data="not base64!", mime_type="image/png")
    assert render([block], None) == "[image: image/png, 11 bytes]"


def test_truncate_keeps_small_text_and_marks_cut_text() -> None:
    assert truncate("short", 5) == "short"
    cut = truncate("abcdef", 4)
    assert cut.startswith("abcd\n[nika: result truncated: 6 bytes, showing the first 4;")


def test_truncate_never_splits_a_character() -> None:
    cut = truncate("ééé", 3)  # 6 bytes; the cap falls inside the second character
    assert cut.split("\n", 1)[0] == "é"
