"""The locked regex dialect of refined strings (spec 09 §the regex dialect)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.syntax.regex_dialect import dialect_violation


@pytest.mark.parametrize(
    "pattern", ["^[a-z0-9-]+$", r"\d{3}-\d{4}", "(?:ab)+|c?", r"[\w.]+@\w+\.com", r"\x41", "a{2,}"]
)
def test_admitted(pattern: str) -> None:
    assert dialect_violation(pattern) is None


@pytest.mark.parametrize(
    ("pattern", "names"),
    [
        (r"(a)\1", "backreference"),
        ("(?=a)", "lookaround"),
        ("(?<!a)b", "lookaround"),
        ("(?P<x>a)", "named group"),
        ("(?i)abc", "inline flag"),
        ("a+?", "lazy"),
        ("a*+", "lazy or possessive"),
        (r"\bword", "word boundary"),
        (r"\p{L}", "unicode property"),
        ("[abc", "unterminated"),
        ("*a", "nothing to repeat"),
        ("(a", "does not compile"),
        ("[[]", "unescaped '[' inside a character class"),
        ("[0||]", "doubled '||' inside a character class"),
        ("[a-z&&[^aeiou]]", "doubled '&&'"),
        ("[a--z]", "doubled '--'"),
        ("[x~~y]", "doubled '~~'"),
        ("[a&&b]", "doubled '&&'"),
    ],
)
def test_refused_with_the_construct_named(pattern: str, names: str) -> None:
    problem = dialect_violation(pattern)
    assert problem is not None and names in problem


@given(st.text(alphabet="ab()[]{}?*+|^$.\\dwsbpP1x=!<:,0123&-~", max_size=16))
def test_never_raises(pattern: str) -> None:
    dialect_violation(pattern)
