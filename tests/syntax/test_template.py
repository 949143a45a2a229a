from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.errors import NikaError
from nika.syntax.template import (
    Island,
    find_islands,
    is_literal,
    is_whole_island,
    render,
    render_json,
    segments,
    stringify,
    unescape,
    walk_strings,
)


def _sources(text: str) -> list[str]:
    return [i.source for i in find_islands(text)]


def test_islands_positions_and_sources() -> None:
    text = "a ${{ inputs.x }} b ${{with.y}}"
    islands = find_islands(text)
    assert [i.source for i in islands] == ["inputs.x", "with.y"]
    assert text[islands[0].start : islands[0].end] == "${{ inputs.x }}"
    assert text[islands[1].start : islands[1].end] == "${{with.y}}"


@pytest.mark.parametrize(
    ("text", "sources"),
    [
        ("plain", []),
        ("${{ a }}", ["a"]),
        ("\\${{ a }}", []),
        ("\\\\${{ a }}", ["a"]),
        ("\\\\\\${{ a }}", []),
        ("${{ x == '}}' }}", ["x == '}}'"]),
        ('${{ x == "a}}b" }} tail', ['x == "a}}b"']),
        ("${{ it's }}", ["it's"]),
        ("${{ a }}${{ b }}", ["a", "b"]),
        ("$ {{ a }}", []),
    ],
)
def test_find_islands(text: str, sources: list[str]) -> None:
    assert _sources(text) == sources


@pytest.mark.parametrize("text", ["Research ${{ const.topic", "${{", "ok ${{ a }} then ${{ b"])
def test_unclosed_opener_is_var_008(text: str) -> None:
    with pytest.raises(NikaError) as info:
        find_islands(text)
    assert info.value.code == "NIKA-VAR-008"
    assert info.value.category == "validation_error"
    assert "\\${{" in info.value.detail


def test_escaped_unclosed_opener_is_fine() -> None:
    assert find_islands("literal \\${{ no close") == ()


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("The syntax \\${{ inputs.x }} is", "The syntax ${{ inputs.x }} is"),
        ("\\\\${{ v }}", "\\V"),
        ("\\\\\\${{ v }}", "\\${{ v }}"),
        ("a\\b ${{ v }}", "a\\b V"),
        ("no islands \\ here", "no islands \\ here"),
    ],
)
def test_escape_rendering(text: str, rendered: str) -> None:
    assert render(text, lambda island: island.source.upper()) == rendered


def test_unescape() -> None:
    assert unescape("\\${{ x }}") == "${{ x }}"
    with pytest.raises(NikaError) as info:
        unescape("${{ x }}")
    assert info.value.code == "NIKA-VAR-005"


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("${{ a }}", True),
        ("${{a}}", True),
        (" ${{ a }}", False),
        ("${{ a }}${{ b }}", False),
        ("x", False),
        ("\\${{ a }}", False),
    ],
)
def test_is_whole_island(text: str, whole: bool) -> None:
    assert is_whole_island(text) is whole


def test_whole_island_keeps_type() -> None:
    value = {"b": [1, 2], "a": None}
    assert render("${{ x }}", lambda _: value) is value
    assert render("${{ x }}", lambda _: b"\x00") == b"\x00"


VALUES: dict[str, Any] = {
    "obj": {"b": 1, "a": [True, None, "é"]},
    "n": None,
    "t": True,
    "f": False,
    "i": 42,
    "x": 3.5,
    "s": "str",
}


def test_embedded_rendering() -> None:
    text = "${{ obj }}|${{ n }}|${{ t }}|${{ f }}|${{ i }}|${{ x }}|${{ s }}"
    out = render(text, lambda island: VALUES[island.source])
    assert out == '{"a":[true,null,"é"],"b":1}|null|true|false|42|3.5|str'


def test_bytes_in_string_is_var_007() -> None:
    with pytest.raises(NikaError) as info:
        render("x ${{ a }}", lambda _: b"\x89PNG")
    assert info.value.code == "NIKA-VAR-007"


def test_unrenderable_values() -> None:
    with pytest.raises(NikaError) as info:
        stringify(float("nan"))
    assert info.value.code == "NIKA-VAR-006"
    with pytest.raises(NikaError):
        stringify(object())
    with pytest.raises(NikaError):
        render_json({"a": {1, 2}})


def test_single_pass_no_rescan() -> None:
    assert render("a ${{ x }}", lambda _: "${{ y }}") == "a ${{ y }}"


def test_evaluate_order_is_left_to_right() -> None:
    seen: list[str] = []

    def ev(island: Island) -> str:
        seen.append(island.source)
        return ""

    render("${{ a }} ${{ b }} ${{ c }}", ev)
    assert seen == ["a", "b", "c"]


def test_walk_strings() -> None:
    doc = {"a": "x", "b": [1, "y", {"c": "z"}], "d": 3, "e": ("t",)}
    assert list(walk_strings(doc)) == [
        (("a",), "x"),
        (("b", 1), "y"),
        (("b", 2, "c"), "z"),
        (("e", 0), "t"),
    ]
    assert list(walk_strings("s", ("root",))) == [(("root",), "s")]


@given(st.text(alphabet="${}\\ ab'\"", max_size=40))
def test_segments_never_crash_and_roundtrip_literals(text: str) -> None:
    try:
        parts = segments(text)
    except NikaError as err:
        assert err.code == "NIKA-VAR-008"
        return
    for part in parts:
        if isinstance(part, Island):
            assert text[part.start : part.end].startswith("${{")
            assert text[part.start : part.end].endswith("}}")
    if "${{" not in text:
        assert "".join(p for p in parts if isinstance(p, str)) == text


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("plain", True),
        ({"a": [1, "two", {"b": None}]}, True),
        ("${{ inputs.x }}", False),
        ({"a": ["ok", {"b": "at ${{ with.y }}"}]}, False),
        (("t", "${{ item }}"), False),
        ({"${{ k }}": "keys are names, not values"}, True),
    ],
)
def test_is_literal_looks_at_every_nested_string(value: Any, literal: bool) -> None:
    assert is_literal(value) is literal
