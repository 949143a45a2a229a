"""AgentConfig refuses values that cannot mean what they say, at construction."""

from __future__ import annotations

from typing import Any

import pytest

from nika.agent import AgentConfig


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"nudge_after": 0}, "AgentConfig.nudge_after must be at least 2, got 0"),
        ({"error_streak": 0}, "AgentConfig.error_streak must be at least 1, got 0"),
        ({"nudge_after": 5, "stall_after": 5}, "must be below stall_after (5)"),
        ({"nudge_after": 6}, "nudge_after (6) must be below stall_after (5)"),
        ({"stall_after": 1}, "AgentConfig.stall_after must be at least 2"),
        ({"guard_window": 1}, "AgentConfig.guard_window must be at least 2"),
        ({"default_max_turns": 0}, "AgentConfig.default_max_turns must be at least 1"),
        ({"default_max_tokens_total": 0}, "None means: no token cap"),
        ({"max_reflections": -1}, "AgentConfig.max_reflections must be at least 0"),
        ({"top_k": 0}, "AgentConfig.top_k must be at least 1"),
        ({"tool_concurrency": 0}, "AgentConfig.tool_concurrency must be at least 1"),
        ({"stall_after": True}, "AgentConfig.stall_after must be an integer, got True"),
        ({"top_k": 2.5}, "AgentConfig.top_k must be an integer, got 2.5"),
    ],
)
def test_nonsense_is_refused_at_construction(fields: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError) as info:
        AgentConfig(**fields)
    assert says in str(info.value)


def test_the_documented_ways_to_switch_parts_off_are_accepted() -> None:
    quiet = AgentConfig(max_reflections=0, stall_after=10**6)
    assert quiet.nudge_after < quiet.stall_after
    assert AgentConfig(error_streak=None, default_max_tokens_total=None).error_streak is None
    assert AgentConfig(error_streak=1).error_streak == 1
