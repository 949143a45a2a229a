"""Which registry values count as secrets, masked by the one `Masker`."""

from __future__ import annotations

from nika.masking import MASK
from nika.tools._mcp_secrets import registry_masker


def test_every_occurrence_is_masked_longest_first() -> None:
    mask = registry_masker(("abcdef", "abcdefghij"))
    assert mask.text("x abcdefghij y abcdef") == f"x {MASK} y {MASK}"


def test_short_values_are_not_treated_as_secrets() -> None:
    assert registry_masker(("true", "1", "abc")).text("true 1 abc") == "true 1 abc"


def test_json_like_values_are_walked_keys_included() -> None:
    value = {"token-123456": ["token-123456", 3, {"k": "a token-123456"}], "n": None}
    masked = registry_masker(("token-123456",))(value)
    assert masked == {MASK: [MASK, 3, {"k": f"a {MASK}"}], "n": None}
