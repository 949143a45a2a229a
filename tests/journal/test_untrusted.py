"""Two decoders, one verdict (spec 15 §the verifier is a fortress, law 5): ours against the
reference's `decode_untrusted`, run as an independent judge over a generated corpus."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.journal._reference import proof_core, reference_verdict

from nika.journal.untrusted import (
    ID_FIELDS,
    MAX_ARTIFACT_BYTES,
    MAX_ID_BYTES,
    MAX_JSON_DEPTH,
    MAX_PROOF_NODES,
    PROOF_FIELDS,
    REFUSAL_ORDER,
    DecodeRefused,
    decode_document,
    decode_untrusted,
)


def verdict(data: bytes) -> str:
    """Our decoder's verdict on `data`: `admit` or its refusal class."""
    try:
        decode_untrusted(data)
    except DecodeRefused as refused:
        return refused.cls
    return "admit"


def _nest(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _pad(size: int) -> bytes:
    """A valid document of exactly `size` bytes."""
    head = b'{"pad": "'
    return head + b"x" * (size - len(head) - 2) + b'"}'


CORPUS: dict[str, tuple[bytes, str]] = {
    "a receipt": (b'{"receipt_format": 1, "proves": "ab", "assertions": []}', "admit"),
    "exactly the size bound": (_pad(MAX_ARTIFACT_BYTES), "admit"),
    "one byte past it": (_pad(MAX_ARTIFACT_BYTES + 1), "Oversized"),
    "exactly the depth bound": (_nest(MAX_JSON_DEPTH), "admit"),
    "one level past it": (_nest(MAX_JSON_DEPTH + 1), "TooDeep"),
    "brackets in a string": (json.dumps({"s": "[" * 40}).encode(), "admit"),
    "an escaped quote keeps the string open": (b'{"s": "\\"[[[[' + b"[" * 40 + b'"}', "admit"),
    "closes saturate at zero": (b"]" * 5 + _nest(MAX_JSON_DEPTH), "Malformed"),
    "deep inside an object": (b'{"a": ' + _nest(MAX_JSON_DEPTH) + b"}", "TooDeep"),
    "truncated": (b'{"a": 1', "Malformed"),
    "trailing garbage": (b'{"a": 1} trailing', "Malformed"),
    "empty": (b"", "Malformed"),
    "a BOM": (b'\xef\xbb\xbf{"a": 1}', "Malformed"),
    "a top-level array": (b"[1, 2]", "admit"),
    "a scalar": (b"3", "admit"),
    "a duplicate key": (b'{"digest": "a", "digest": "b"}', "admit"),
    "NaN and Infinity": (b'{"a": NaN, "b": -Infinity, "c": Infinity}', "admit"),
    "an overflowing float": (b'{"a": 1e999}', "admit"),
    "a lone surrogate escape": (b'{"s": "\\ud800"}', "admit"),
    "an escape sequence for the terminal": (b'{"s": "a\\u001b]52;;x"}', "admit"),
    "exactly the proof-node bound": (json.dumps({"assertions": [1] * 64}).encode(), "admit"),
    "one proof node past it": (json.dumps({"assertions": [1] * 65}).encode(), "ProofFlood"),
    "a nested flood": (json.dumps({"o": {"i": [{"covers": [0] * 70}]}}).encode(),
                       "ProofFlood"),
    "a flood under another key": (json.dumps({"items": [0] * 500}).encode(), "admit"),
    "a proof field that is no list": (json.dumps({"proof": "x" * 500}).encode(), "admit"),
    "exactly the identifier bound": (json.dumps({"digest": "a" * 256}).encode(), "admit"),
    "one identifier byte past it": (json.dumps({"digest": "a" * 257}).encode(), "IdOverflow"),
    "bytes, not characters": (json.dumps({"proves": "é" * 129}, ensure_ascii=False).encode(),
                              "IdOverflow"),
    "a 300-byte lock_digest": (json.dumps({"lock_digest": "l" * 300}).encode(), "IdOverflow"),
    "a 300-byte workflow_semantic": (json.dumps({"x": {"workflow_semantic": "w" * 300}}).encode(),
                                     "IdOverflow"),
    "a 300-byte key": (json.dumps({"k" * 300: 1}).encode(), "admit"),
    "a 300-byte task id": (json.dumps({"task": "t" * 300}).encode(), "admit"),
    "size before depth": (b"[" * 40 + b" " * MAX_ARTIFACT_BYTES + b"]" * 40, "Oversized"),
    "depth before parse": (b"[" * 40 + b"garbage", "TooDeep"),
    "flood and overflow, the walk's order": (
        json.dumps({"a": {"proves": "p" * 300}, "b": {"covers": [0] * 70}}).encode(),
        "ProofFlood"),
    "overflow and flood, the walk's order": (
        json.dumps({"b": {"covers": [0] * 70}, "a": {"proves": "p" * 300}}).encode(),
        "IdOverflow"),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus_has_one_verdict(name: str) -> None:
    data, expected = CORPUS[name]
    assert verdict(data) == expected
    assert reference_verdict(data) == expected


def test_the_corpus_crosses_every_bound_and_names_every_class() -> None:
    assert {c for _, c in CORPUS.values()} == {"admit", *REFUSAL_ORDER}


def test_the_constants_are_the_references() -> None:
    core = proof_core()
    assert (MAX_ARTIFACT_BYTES, MAX_JSON_DEPTH, MAX_PROOF_NODES, MAX_ID_BYTES) == (
        core.MAX_ARTIFACT_BYTES, core.MAX_JSON_DEPTH, core.MAX_PROOF_NODES, core.MAX_ID_BYTES)
    assert set(core._PROOF_FIELDS) == PROOF_FIELDS and set(core._ID_FIELDS) == ID_FIELDS


def test_bytes_that_are_not_utf8_are_malformed() -> None:
    # The reference takes text, so it is never handed these: a verdict is ours alone.
    assert verdict(b'{"a": "\xff"}') == "Malformed"
    assert verdict(b'{"a": "\xed\xa0\x80"}') == "Malformed"  # a surrogate encoded raw


def test_duplicates_are_admitted_and_reported_for_the_layer_above() -> None:
    value, duplicates = decode_document(b'{"a": 1, "b": {"c": 1, "c": 2}, "a": 3}')
    assert value == {"a": 3, "b": {"c": 2}} and duplicates == ("c", "a")


# -- generated: structures near every bound ------------------------------------------------------

_KEYS = st.sampled_from(sorted(PROOF_FIELDS | ID_FIELDS | {"task", "k", "items"}))
_TEXT = st.text(alphabet=st.sampled_from("aé[]{}\"\\€"), max_size=8)


def _bounded_string(draw: Any) -> str:
    unit = draw(st.sampled_from(["a", "é", "€", "[", '"']))
    width = len(unit.encode("utf-8"))
    count = draw(st.integers(MAX_ID_BYTES // width - 2, MAX_ID_BYTES // width + 2))
    return str(unit * count)


@st.composite
def _node(draw: Any, depth: int = 0) -> Any:
    kind = draw(st.sampled_from(["scalar", "list", "map", "near"]) if depth < 4
                else st.just("scalar"))
    if kind == "scalar":
        return draw(st.none() | st.booleans() | st.integers() | _TEXT
                    | st.floats(allow_nan=False))
    if kind == "list":
        return draw(st.lists(_node(depth + 1), max_size=3))
    if kind == "near":
        key = draw(_KEYS)
        if key in PROOF_FIELDS:
            return {key: [0] * draw(st.integers(MAX_PROOF_NODES - 2, MAX_PROOF_NODES + 2))}
        return {key: _bounded_string(draw)}
    return draw(st.dictionaries(_KEYS | _TEXT, _node(depth + 1), max_size=3))


@st.composite
def _document(draw: Any) -> bytes:
    text = json.dumps(draw(_node()), ensure_ascii=draw(st.booleans()))
    wrap = draw(st.integers(0, 3))  # push the whole document toward the depth bound
    extra = draw(st.integers(MAX_JSON_DEPTH - 6, MAX_JSON_DEPTH + 2)) if wrap == 3 else 0
    text = "[" * extra + text + "]" * extra
    tail = draw(st.sampled_from(["", "", "", " x", "]", "}", '"']))
    return (text + tail).encode("utf-8")


@settings(max_examples=400, deadline=None)
@given(_document())
def test_generated_artifacts_have_one_verdict(data: bytes) -> None:
    assert verdict(data) == reference_verdict(data)
