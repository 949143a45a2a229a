"""MCP tool results rendered to the text a model reads: deterministic, and capped in size.

Text blocks pass through as-is; binary blocks (image, audio, blob resources) become a one-line
placeholder naming their type and size, since a model's tool-result channel here is text.
Blocks are joined with a newline. A result with no content blocks but structured content renders
that structure as canonical JSON. Past the cap the text is cut on a character boundary and a
visible marker says how much was dropped.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from nika.canonical import loose_json


def render(blocks: Sequence[ContentBlock], structured: Any) -> str:
    """The text of a tool result's content blocks."""
    if not blocks and structured is not None:
        return loose_json(structured)
    return "\n".join(_block(b) for b in blocks)


def truncate(text: str, cap: int) -> str:
    """`text` if its UTF-8 form fits in `cap` bytes; else its first `cap` bytes and a marker."""
    raw = text.encode("utf-8")
    if len(raw) <= cap:
        return text
    head = raw[:cap].decode("utf-8", errors="ignore")
    return (
        f"{head}\n[nika: result truncated: {len(raw)} bytes, showing the first {cap}; "
        "ask the tool for less (a narrower query, a page, a range)]"
    )


def _block(block: ContentBlock) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent | AudioContent):
        return f"[{block.type}: {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, ResourceLink):
        about = f" - {block.description}" if block.description else ""
        return f"[resource link: {block.name} <{block.uri}>{about}]"
    return _resource(block.resource)


def _resource(res: TextResourceContents | BlobResourceContents) -> str:
    mime = f" ({res.mime_type})" if res.mime_type else ""
    if isinstance(res, TextResourceContents):
        return f"[resource: {res.uri}{mime}]\n{res.text}"
    return f"[resource: {res.uri}{mime}, {_decoded_size(res.blob)} bytes]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return len(data)
