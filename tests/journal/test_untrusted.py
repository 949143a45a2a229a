"""The untrusted-JSON decode step admits exactly what the spec's reference decoder admits
(the shared ruling of issues 28 and 29): a differential over a generated corpus, with the
reference `proof_core.decode_untrusted` loaded from the spec checkout as an independent
judge — never copied — and the probe documents on which the two once disagreed."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from nika.journal.untrusted import (
    ID_FIELDS,
    MAX_ARTIFACT_BYTES,
    MAX_ID_BYTES,
    MAX_JSON_DEPTH,
    MAX_PROOF_NODES,
    PROOF_FIELDS,
    DecodeRefused,
    decode_untrusted,
)

_HERE = Path(__file__).resolve()
# the spec checkout sits beside the clone (CI, /work/main) or beside the worktrees' directory
_CANDIDATES = [_HERE.parents[n] / "shared" / "nika-spec" / "conformance" / "proof_core.py"
               for n in (3, 4)]


def _reference() -> ModuleType:
    found = next((p for p in _CANDIDATES if p.is_file()), None)
    assert found is not None, f"the reference decoder is missing: looked at {_CANDIDATES}"
    spec = importlib.util.spec_from_file_location("proof_core_judge", found)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REFERENCE = _reference()


def _theirs(text: str) -> tuple[str, Any]:
    """The reference's verdict: `admit` and the value, the refusal class, or `defect:` when
    the reference itself raises (a 5,000-digit integer, a lone surrogate in an identifier
    field: its own bugs, on which ours must still answer)."""
    try:
        return "admit", REFERENCE.decode_untrusted(text)
    except REFERENCE.DecodeRefusal as refusal:
        return refusal.cls, None
    except (ValueError, UnicodeError, RecursionError) as exc:
        return f"defect:{type(exc).__name__}", None


def _ours(text: str) -> tuple[str, Any]:
    try:
        decoded = decode_untrusted(text.encode("utf-8"))
    except DecodeRefused as refused:
        return refused.kind, None
    return "admit", decoded


def _spelled(value: Any) -> str:
    return json.dumps(value, allow_nan=True)  # NaN spells itself: comparable where NaN != NaN


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    return isinstance(value, list) and any(_non_finite(v) for v in value)


def _lone(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_lone(k) or _lone(v) for k, v in value.items())
    return isinstance(value, list) and any(_lone(v) for v in value)


def _judge(text: str) -> None:
    theirs, value = _theirs(text)
    ours, decoded = _ours(text)
    event(f"reference: {theirs}")
    if theirs.startswith("defect:"):
        # the reference has no verdict here; ours must still reach one (never an exception)
        assert ours in ("admit", "Oversized", "TooDeep", "Malformed", "ProofFlood",
                        "IdOverflow"), (text[:200], ours)
        return
    assert ours == theirs, (text[:200], ours, theirs)
    if theirs == "admit":
        assert _spelled(decoded.value) == _spelled(value)
        assert decoded.non_finite == _non_finite(value)
        assert decoded.lone_surrogate == _lone(value)


_KEYS = st.sampled_from(sorted(PROOF_FIELDS | ID_FIELDS | {"task", "a", "k" * 300}))
_STRINGS = (st.text(max_size=6)
            | st.text(st.characters(categories=["Cs"]), min_size=1, max_size=2)
            | st.integers(MAX_ID_BYTES - 2, MAX_ID_BYTES + 2).map(lambda n: "x" * n)
            | st.integers(125, 128).map(lambda n: "é" * n + "\u20ac"))  # bytes, not characters
_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
            | st.sampled_from([10**400, 1e308 * 10]) | _STRINGS)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3)
    | st.integers(MAX_PROOF_NODES - 1, MAX_PROOF_NODES + 1).map(lambda n: [0] * n)
    | st.dictionaries(_KEYS | st.text(max_size=4), inner, max_size=4),
    max_leaves=12)


@st.composite
def _documents(draw: st.DrawFn) -> str:
    value = draw(_VALUES)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()) or _lone(value),
                      allow_nan=True)
    mutation = draw(st.sampled_from(["none", "field", "nest", "strays", "duplicate", "cut",
                                     "noise"]))
    if mutation == "field":  # a bounded field at a bound, somewhere inside
        if draw(st.booleans()):
            key = draw(st.sampled_from(sorted(PROOF_FIELDS)))
            bounded: Any = [0] * draw(st.integers(MAX_PROOF_NODES - 1, MAX_PROOF_NODES + 1))
        else:
            key = draw(st.sampled_from(sorted(ID_FIELDS)))
            bounded = draw(st.integers(MAX_ID_BYTES - 1, MAX_ID_BYTES + 1).map(
                lambda n: "x" * n) | _STRINGS)
        text = json.dumps({"outer": [value, {key: bounded}]}, allow_nan=True)
    elif mutation == "nest":  # around the depth bound
        n = draw(st.integers(MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH + 1))
        text = "[" * n + text + "]" * n
    elif mutation == "strays":  # a close below zero saturates: the opens after still count
        n = draw(st.integers(MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH + 1))
        text = "]" * draw(st.integers(1, 5)) + "[" * n + text
    elif mutation == "duplicate":  # one key twice, ahead of the value's own members
        key = json.dumps(draw(_KEYS))
        rest = ", " + text[1:] if text.startswith("{") and text != "{}" else "}"
        text = "{" + f"{key}: 1, {key}: {text if not text.startswith('{') else 2}" + rest
    elif mutation == "cut" and text:
        text = text[:draw(st.integers(0, len(text) - 1))]
    elif mutation == "noise":
        text = draw(st.text(st.sampled_from('[]{}"\\:,0 1eE-.aNnItruefls'), max_size=40))
    return text


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_documents())
@example('{"digest": "a", "digest": "b"}')
@example("[1, 2]")
@example('{"assertions": [' + ",".join(["{}"] * 65) + "]}")
@example('{"outer": {"proof": [' + ",".join(["1"] * 65) + "]}}")
@example(json.dumps({"k" * 300: 1}))
@example(json.dumps({"lock_digest": "d" * 300}))
@example(json.dumps({"task": "t" * 300}))
@example('{"a": NaN, "b": Infinity, "c": -Infinity}')
@example('{"n": 1e999}')
@example('{"s": "\\ud800", "\\udfff": 1}')
@example('{"proves": "\\ud800"}')
@example("]]]" + "[" * 33)
@example("1" * 5000)
@example("\ufeff{}")
def test_one_verdict_with_the_reference_decoder(text: str) -> None:
    _judge(text)


def test_the_bounds_fire_in_the_spec_s_order() -> None:
    big_and_deep = "[" * 40 + " " * MAX_ARTIFACT_BYTES + "]" * 40
    assert _ours(big_and_deep)[0] == _theirs(big_and_deep)[0] == "Oversized"
    deep_and_broken = "[" * 40 + "nonsense"
    assert _ours(deep_and_broken)[0] == "TooDeep"
    flood_and_overflow = json.dumps({"proves": "p" * 300, "assertions": [0] * 65})
    assert _ours(flood_and_overflow)[0] == _theirs(flood_and_overflow)[0]


@pytest.mark.parametrize(("text", "flag"), [
    ('{"a": NaN}', "non_finite"), ('[Infinity]', "non_finite"), ('{"n": -1e999}', "non_finite"),
    ('["\\ud800"]', "lone_surrogate"), ('{"\\udc00": 0}', "lone_surrogate"),
])
def test_what_the_decode_admits_it_says_so(text: str, flag: str) -> None:
    decoded = decode_untrusted(text.encode())
    assert getattr(decoded, flag) is True
    assert decode_untrusted(b'{"a": 1, "b": 2, "a": 3, "a": 4}').duplicate_keys == ("a",)
    assert decode_untrusted(b'{"a": 1, "b": 2, "a": 3}').value == {"a": 3, "b": 2}


def test_bytes_that_are_not_utf8_are_malformed_never_an_exception() -> None:
    for data in (b"\xff\xfe{}", b'{"a": "\xc3"}', b"\x80"):
        with pytest.raises(DecodeRefused) as refused:
            decode_untrusted(data)
        assert refused.value.kind == "Malformed"
