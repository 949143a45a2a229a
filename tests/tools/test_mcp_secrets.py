"""Masking registry secrets in text and in structured values."""

from __future__ import annotations

from nika.tools._mcp_secrets import mask, mask_value


def test_mask_replaces_every_occurrence_longest_first() -> None:
    secrets = ("abcdef", "abcdefghij")
    assert mask("x abcdefghij y abcdef", secrets) == "x *** y ***"


def test_short_values_are_not_treated_as_secrets() -> None:
    assert mask("true 1 abc", ("true", "1", "abc")) == "true 1 abc"


def test_mask_value_walks_json_like_values() -> None:
    value = {"token-123456": ["token-123456", 3, {"k": "a token-123456"}], "n": None}
    assert mask_value(value, ("token-123456",)) == {"***": ["***", 3, {"k": "a ***"}], "n": None}
