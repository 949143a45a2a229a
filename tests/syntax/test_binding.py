from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.errors import NikaError
from nika.syntax.binding import (
    ambient_reads,
    apply_jq,
    compile_jq,
    interpolate,
    parse_binding,
    parse_sites,
)
from nika.syntax.expr import Reference, unparse


def test_expression_binding() -> None:
    b = parse_binding("${{ tasks.research.output }}")
    assert b.kind == "expression"
    assert b.expr is not None and unparse(b.expr) == "tasks.research.output"
    assert b.references == (Reference("tasks", ("research", "output")),)


def test_template_binding() -> None:
    b = parse_binding("Hello ${{ inputs.name }} from ${{ const.org }}")
    assert b.kind == "template"
    assert b.expr is None
    assert [r.dotted for r in b.references] == ["inputs.name", "const.org"]


@pytest.mark.parametrize("value", ["concise", 3, None, True, "\\${{ not.live }}"])
def test_literal_binding(value: Any) -> None:
    b = parse_binding(value)
    assert b.kind == "literal"
    assert b.sites == ()
    assert b.references == ()


def test_nested_literal_carries_sites() -> None:
    b = parse_binding({"a": ["${{ with.x }}", "plain"], "b": {"c": "v=${{ item }}"}})
    assert b.kind == "literal"
    assert [(s.path, s.island.source) for s in b.sites] == [
        (("a", 0), "with.x"),
        (("b", "c"), "item"),
    ]


def test_errors_carry_the_path() -> None:
    with pytest.raises(NikaError) as info:
        parse_sites({"args": {"q": "${{ a < b < c }}"}}, ("invoke",))
    assert info.value.code == "NIKA-VAR-005"
    assert info.value.details["path"] == ["invoke", "args", "q"]
    with pytest.raises(NikaError) as info:
        parse_binding(["ok", "${{ open"])
    assert info.value.code == "NIKA-VAR-008"
    assert info.value.details["path"] == [1]


ENV: dict[str, Any] = {"with": {"obj": {"b": 2, "a": 1}, "n": 3, "s": "x"}, "item": "it"}


def test_interpolate() -> None:
    value = {
        "whole": "${{ with.obj }}",
        "text": "n=${{ with.n }} obj=${{ with.obj }}",
        "list": ["${{ with.n > 2 }}", "${{ item }}", 7, None],
        "escaped": "\\${{ with.n }}",
    }
    assert interpolate(value, ENV) == {
        "whole": {"b": 2, "a": 1},
        "text": 'n=3 obj={"a":1,"b":2}',
        "list": [True, "it", 7, None],
        "escaped": "${{ with.n }}",
    }


def test_interpolate_propagates_evaluation_errors() -> None:
    with pytest.raises(NikaError) as info:
        interpolate("${{ with.missing }}", ENV)
    assert info.value.code == "NIKA-VAR-001"


# -- jq ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "program",
    [".data.users | length", ".data.users[0]", "[.data.users[].email]",
     ". | map(.a) | select(. != null)", "{env: .x}", ".env", "{env}", '"env"',
     ".x as $env | $env", "# env\n.x"],
)
def test_compile_ok(program: str) -> None:
    compile_jq(program)


@pytest.mark.parametrize(
    ("program", "fragment"),
    [
        (".foo | | bad", "does not compile"),
        ("", "empty"),
        ("env.HOME", "'env'"),
        ("$ENV.PATH", "'$ENV'"),
        ("input", "'input'"),
        ("[inputs]", "'inputs'"),
        ("input_filename", "'input_filename'"),
        ('"\\(env.X)"', "'env'"),
        (".a | ${{ inputs.x }}", "never nests"),
    ],
)
def test_compile_refusals(program: str, fragment: str) -> None:
    with pytest.raises(NikaError) as info:
        compile_jq(program)
    assert info.value.code == "NIKA-VAR-005"
    assert info.value.category == "validation_error"
    assert fragment in info.value.detail


def test_ambient_reads_order() -> None:
    assert ambient_reads("input | env") == ("input", "env")


def test_apply_jq() -> None:
    data = {"data": {"users": [{"email": "a"}, {"email": "b"}]}}
    assert apply_jq(".data.users | length", data) == 2
    assert apply_jq("[.data.users[].email]", data) == ["a", "b"]
    assert apply_jq(".missing", data) is None


def test_apply_jq_cardinality_is_var_002() -> None:
    with pytest.raises(NikaError) as info:
        apply_jq(".[]", [1, 2])
    assert info.value.code == "NIKA-VAR-002"
    assert info.value.details["count"] == 2
    with pytest.raises(NikaError) as info:
        apply_jq("empty", 1)
    assert info.value.code == "NIKA-VAR-002"


def test_apply_jq_runtime_error_is_var_004() -> None:
    with pytest.raises(NikaError) as info:
        apply_jq(".a", [1])
    assert info.value.code == "NIKA-VAR-004"


def test_apply_jq_bytes_is_var_007() -> None:
    with pytest.raises(NikaError) as info:
        apply_jq(".", b"\x00")
    assert info.value.code == "NIKA-VAR-007"


@given(st.text(alphabet=".|[]{}()$\"\\ #abenvirput:,", max_size=25))
def test_compile_never_crashes(program: str) -> None:
    try:
        compile_jq(program)
    except NikaError as err:
        assert err.code == "NIKA-VAR-005"
