from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.errors import NikaError
from nika.syntax.toolref import ToolRef, is_tool_ref, parse_tool_ref


@pytest.mark.parametrize(
    ("text", "ref"),
    [
        ("nika:fetch", ToolRef("nika", "fetch")),
        ("nika:json_merge_patch", ToolRef("nika", "json_merge_patch")),
        ("nika:connectome/recall", ToolRef("nika", "connectome/recall")),
        ("mcp:browser/navigate", ToolRef("mcp", "navigate", "browser")),
        ("mcp:my-server/do_thing", ToolRef("mcp", "do_thing", "my-server")),
        ("mcp:pg/Query-2", ToolRef("mcp", "Query-2", "pg")),
        ("mcp:21st/magic_component", ToolRef("mcp", "magic_component", "21st")),
        ("mcp:1password/item-get", ToolRef("mcp", "item-get", "1password")),
    ],
)
def test_valid_refs_roundtrip(text: str, ref: ToolRef) -> None:
    parsed = parse_tool_ref(text)
    assert parsed == ref
    assert parsed.canonical == text
    assert str(parsed) == text
    assert is_tool_ref(text)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("mcp:postgres", "requires the slash"),
        ("x-superclever:research", "closed set"),
        ("custom:thing", "closed set"),
        ("read", "no namespace"),
        ("nika::read", "more than one colon"),
        ("mcp:a/b:c", "more than one colon"),
        ("nika:Read", "snake_case"),
        ("nika:", "snake_case"),
        ("nika:a//b", "snake_case"),
        ("mcp:Browser/x", "lowercase letters, digits and '-'"),
        ("mcp:/x", "lowercase letters, digits and '-'"),
        ("mcp:-srv/x", "lowercase letters, digits and '-'"),
        ("mcp:browser/", "tool segment"),
        ("mcp:browser/tab/open", "tool segment"),
        ("nika:${{ inputs.t }}", "templated"),
        ("", "no namespace"),
        (" nika:read", "closed set"),
    ],
)
def test_invalid_refs(text: str, fragment: str) -> None:
    with pytest.raises(NikaError) as info:
        parse_tool_ref(text)
    assert info.value.code == "NIKA-PARSE-019"
    assert info.value.category == "validation_error"
    assert fragment in info.value.detail
    assert not is_tool_ref(text)


@pytest.mark.parametrize("value", [None, 3, ["nika:read"]])
def test_non_string(value: Any) -> None:
    with pytest.raises(NikaError):
        parse_tool_ref(value)


@given(st.text(max_size=30))
def test_never_crashes_and_canonical_is_stable(text: str) -> None:
    try:
        ref = parse_tool_ref(text)
    except NikaError as err:
        assert err.code == "NIKA-PARSE-019"
    else:
        assert parse_tool_ref(ref.canonical) == ref
