"""`NIKA-DRIFT-001` asked from the targets' side agrees with asking each entry in turn."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nika.check._drift import _used
from nika.check.judge import PathGrant
from nika.errors import NikaError
from nika.syntax.globs import Whitelist

_PATH_BITS = st.sampled_from(["a", "b", "/", "*", "**", "?", "..", ".", "[ab]", "x.md", "\\*"])
_TOOL_BITS = st.sampled_from(["nika:", "mcp:", "s", "/", "t", "*", "**", "read", "?", "[rs]"])


def _naive(kind: str, entries: dict[int, str], targets: list[str]) -> set[int]:
    used: set[int] = set()
    for i, entry in entries.items():
        try:
            admits = (
                PathGrant.compile([entry]).admits
                if kind.startswith("fs.")
                else Whitelist.compile([entry]).allows
            )
        except NikaError:
            used.add(i)  # a malformed entry is the bounds' finding, never a drift hint
            continue
        if any(admits(t) for t in targets):
            used.add(i)
    return used


@given(
    st.lists(st.lists(_PATH_BITS, min_size=1, max_size=5).map("".join), max_size=6),
    st.lists(st.lists(_PATH_BITS, min_size=1, max_size=5).map("".join), max_size=6),
)
def test_path_drift_matches_asking_each_entry(globs: list[str], targets: list[str]) -> None:
    entries = dict(enumerate(globs))
    assert _used("fs.read", entries, targets) == _naive("fs.read", entries, targets)


@given(
    st.lists(st.lists(_TOOL_BITS, min_size=1, max_size=5).map("".join), max_size=6),
    st.lists(st.lists(_TOOL_BITS, min_size=1, max_size=5).map("".join), max_size=6),
)
def test_tool_drift_matches_asking_each_entry(globs: list[str], targets: list[str]) -> None:
    entries = dict(enumerate(globs))
    assert _used("tool", entries, targets) == _naive("tool", entries, targets)
