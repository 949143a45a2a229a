"""The quoted Go-duration contract (spec 03 §timeout)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.syntax.durations import MAX_NS, DurationError, parse_duration


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("500ms", 500_000_000),
        ("30s", 30 * 10**9),
        ("2.5s", 2_500_000_000),
        ("1h30m", 5400 * 10**9),
        ("24h", MAX_NS),
    ],
)
def test_parses(text: str, ns: int) -> None:
    assert parse_duration(text).nanoseconds == ns


@pytest.mark.parametrize("text", ["", "30", "30m1h", "1s1s", "0s", "25h", "2d", "1.s", " 5s", "5S"])
def test_refuses(text: str) -> None:
    with pytest.raises(DurationError):
        parse_duration(text)


def test_cap_is_configurable() -> None:
    assert parse_duration("48h", max_ns=10**20).seconds == 48 * 3600


@given(st.text(max_size=12))
def test_never_raises_anything_else(text: str) -> None:
    try:
        d = parse_duration(text)
    except DurationError:
        return
    assert 0 < d.nanoseconds <= MAX_NS
