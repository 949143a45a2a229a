from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.errors import NikaError
from nika.syntax.globs import (
    Whitelist,
    glob_match,
    glob_to_regex,
    path_glob_match,
)

SINGLE = [
    ("nika:read", "nika:read", True),
    ("nika:read", "nika:reads", False),
    ("nika:read", "nika:rea", False),
    ("nika:*", "nika:read", True),
    ("nika:*", "mcp:x/y", False),
    ("nika:*", "nika:", True),
    ("*", "nika:read", False),
    ("**", "nika:read", False),
    ("*:read", "nika:read", True),
    ("mcp:browser/*", "mcp:browser/navigate", True),
    ("mcp:browser/*", "mcp:browser/tab/open", False),
    ("mcp:browser/**", "mcp:browser/tab/open", True),
    ("mcp:**", "mcp:browser/tab/open", True),
    ("mcp:**/open", "mcp:open", True),
    ("mcp:**/open", "mcp:browser/tab/open", True),
    ("mcp:browser/**/open", "mcp:browser/open", True),
    ("mcp:browser/**/open", "mcp:browser/tab/x/open", True),
    ("mcp:browser/**/open", "mcp:browser/tab/opener", False),
    ("mcp:*/query", "mcp:postgres/query", True),
    ("mcp:*/query", "mcp:a/b/query", False),
    ("mcp:postgres/query", "mcp:postgres/query", True),
    ("nika:re?d", "nika:read", True),
    ("nika:re?d", "nika:re/d", False),
    ("nika:[rw]*", "nika:write", True),
    ("nika:[!rw]*", "nika:write", False),
    ("nika:[a-c]*", "nika:bash", True),
    ("nika:\\*", "nika:*", True),
    ("nika:\\*", "nika:read", False),
    ("nika:read.*", "nika:readXfoo", False),
]


@pytest.mark.parametrize(("pattern", "name", "expected"), SINGLE)
def test_single_pattern(pattern: str, name: str, expected: bool) -> None:
    assert glob_match(pattern, name) is expected


LISTS = [
    ([], "nika:read", False),
    (["nika:*"], "nika:read", True),
    (["mcp:browser/*", "!mcp:browser/navigate"], "mcp:browser/navigate", False),
    (["mcp:browser/*", "!mcp:browser/navigate"], "mcp:browser/click", True),
    (["!mcp:browser/navigate", "mcp:browser/*"], "mcp:browser/navigate", True),
    (["nika:*", "!nika:exec", "nika:exec"], "nika:exec", True),
    (["!nika:read"], "nika:read", False),
    (["nika:read", "mcp:postgres/query"], "mcp:postgres/drop", False),
]


@pytest.mark.parametrize(("patterns", "name", "expected"), LISTS)
def test_whitelist_order_and_negation(patterns: list[str], name: str, expected: bool) -> None:
    wl = Whitelist.compile(patterns)
    assert wl.allows(name) is expected
    assert wl.patterns == tuple(patterns)


@pytest.mark.parametrize(
    "bad", ["", "!", "nika:***", "nika:[ab", "nika:\\", "nika:[z-a]"]
)
def test_malformed_patterns_are_refused(bad: str) -> None:
    with pytest.raises(NikaError) as info:
        Whitelist.compile([bad])
    assert info.value.code == "NIKA-PARSE-019"
    assert "glob" in info.value.detail


def test_bare_string_rule_list_is_refused() -> None:
    with pytest.raises(NikaError):
        Whitelist.compile("nika:*")


def test_non_string_entry_is_refused() -> None:
    with pytest.raises(NikaError):
        Whitelist.compile([3])  # type: ignore[list-item]


PATHS = [
    ("./data/**", "./data/a/b.csv", True),
    ("./data/**", "./out/a.csv", False),
    ("./data/*", "./data/a/b.csv", False),
    ("./data/*.csv", "./data/a.csv", True),
    ("**/*.md", "docs/x/readme.md", True),
    ("**/*.md", "readme.md", True),
    ("src/**/test_*.py", "src/test_a.py", True),
    ("a:b/*", "a:b/c", True),
    ("*", "a:b", True),
]


@pytest.mark.parametrize(("pattern", "path", "expected"), PATHS)
def test_path_dialect(pattern: str, path: str, expected: bool) -> None:
    assert path_glob_match(pattern, path) is expected


def test_path_whitelist() -> None:
    wl = Whitelist.compile_paths(["./out/**", "!./out/secret/**"])
    assert wl.allows("./out/a.txt")
    assert not wl.allows("./out/secret/key")


def test_regex_is_anchored_and_cached() -> None:
    assert glob_to_regex("nika:*") is glob_to_regex("nika:*")
    assert glob_to_regex("nika:read").match("nika:read\n") is None


@given(st.text(max_size=30), st.text(max_size=30))
def test_arbitrary_patterns_never_crash(pattern: str, name: str) -> None:
    try:
        result = glob_match(pattern, name)
    except NikaError as err:
        assert err.code == "NIKA-PARSE-019"
    else:
        assert isinstance(result, bool)


@given(st.text(alphabet="abc:/.-_", min_size=1, max_size=20))
def test_literal_pattern_matches_itself_only(name: str) -> None:
    assert glob_match(name, name)
    assert not glob_match(name, name + "x")


_GLOB_BITS = st.sampled_from(["a", "b", ":", "/", "*", "**", "?", "[ab]", "[!a]", "\\*", "]", "."])


def _scan(wl: Whitelist, name: str) -> bool:
    """The definition: the last rule matching decides, none denies."""
    for rule in reversed(wl.rules):
        if rule.regex.match(name) is not None:
            return not rule.negated
    return False


@given(
    st.lists(
        st.tuples(st.booleans(), st.lists(_GLOB_BITS, min_size=1, max_size=5).map("".join)),
        max_size=8,
    ),
    st.lists(st.sampled_from(["a", "b", ":", "/", "*", "]", ".", "ab"]), max_size=6).map("".join),
    st.booleans(),
)
def test_the_rule_index_decides_like_the_scan(
    rules: list[tuple[bool, str]], name: str, paths: bool
) -> None:
    patterns = [("!" if negated else "") + body for negated, body in rules]
    try:
        wl = Whitelist.compile_paths(patterns) if paths else Whitelist.compile(patterns)
    except NikaError:
        return
    assert wl.allows(name) is _scan(wl, name)
    deciding = wl.deciding(name)
    matching = [i for i, r in enumerate(wl.rules) if r.regex.match(name) is not None]
    assert deciding == (matching[-1] if matching else -1)


def test_a_long_rule_list_is_not_scanned_per_name() -> None:
    wl = Whitelist.compile_paths([f"d{i}/**" for i in range(5000)] + ["**/*.md", "!d7/x"])
    tried: list[int] = []

    def matches(index: int, name: str) -> bool:
        tried.append(index)
        return wl.rules[index].regex.match(name) is not None

    assert wl.index.deciding("d4999/f", matches) == 4999
    assert wl.index.deciding("d7/x", matches) == 5001
    assert wl.index.deciding("d7/y.md", matches) == 5000
    assert wl.index.deciding("e/f", matches) == -1
    assert len(tried) <= 8
