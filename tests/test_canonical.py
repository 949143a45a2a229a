"""THE canonical JSON spelling (`nika.canonical`): one spelling for hashes, frames, reports and
tool results."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.canonical import canonical_bytes, canonical_json, loose_json
from nika.journal.identity import digest
from nika.journal.writer import encode, line_hash

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def test_keys_sorted_at_every_depth_no_whitespace_unicode_kept() -> None:
    value = {"b": {"y": 1, "x": [2, {"d": 1, "c": 0}]}, "a": "é\u2028"}
    assert canonical_json(value) == '{"a":"é\u2028","b":{"x":[2,{"c":0,"d":1}],"y":1}}'
    assert canonical_bytes(value) == canonical_json(value).encode("utf-8")


@given(_JSON)
def test_strict_and_loose_agree_on_json_data_and_read_back(value: Any) -> None:
    text = canonical_json(value)
    assert loose_json(value) == text
    assert json.loads(text) == value
    assert canonical_json(json.loads(text)) == text  # a fixed point: re-spelling is stable


def test_strict_refuses_what_json_cannot_spell_and_loose_writes_it_as_text() -> None:
    with pytest.raises(ValueError):
        canonical_json({"x": math.nan})
    with pytest.raises(TypeError):
        canonical_json({"x": b"raw"})
    assert canonical_json({"x": b"raw"}, default=lambda v: len(v)) == '{"x":3}'
    assert loose_json({"x": math.inf, "y": b"raw"}) == "{\"x\":Infinity,\"y\":\"b'raw'\"}"


def test_the_journal_and_the_task_identity_hash_this_spelling() -> None:
    frame = {"seq": 1, "kind": "task_started", "fields": {"é": [1, 2]}}
    assert encode(frame) == canonical_bytes(frame)
    assert line_hash(encode(frame)) == hashlib.sha256(canonical_bytes(frame)).hexdigest()
    assert digest(b"d", {"b": 1, "a": [True]}) == hashlib.sha256(
        b"d" + canonical_bytes({"a": [True], "b": 1})).hexdigest()
