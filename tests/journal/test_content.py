"""A run's content in the journal: whole under the cap, else head + size + digest, masked
before it is cut or hashed, and read back by `Captured.from_wire`."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given
from hypothesis import strategies as st
from tests.run._harness import FixedClock, Recorder, wire_fields

from nika.agent.observe import ModelCalled, RunStarted
from nika.journal.bus import EventBus
from nika.journal.content import CONTENT_CAP, Captured, captured
from nika.journal.frames import AgentStep, CostIncurred, TaskEnded, UnitAttempt
from nika.journal.wire import wire
from nika.masking import MASK, Masker


def _line_bytes(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def test_a_value_under_the_cap_is_written_as_itself() -> None:
    assert captured("short") == "short"
    assert captured({"a": [1, 2]}) == {"a": [1, 2]}
    exact = "x" * CONTENT_CAP  # exactly the cap: still whole
    assert captured(exact) is exact


def test_a_long_value_keeps_its_head_its_size_and_its_digest() -> None:
    text = "é" * CONTENT_CAP  # two UTF-8 bytes a character: over the cap by half
    held = captured(text)
    data = text.encode("utf-8")
    assert held == {"truncated": "é" * (CONTENT_CAP // 2), "bytes": len(data),
                    "sha256": hashlib.sha256(data).hexdigest()}
    back = Captured.from_wire(held)
    assert back == Captured("é" * (CONTENT_CAP // 2), True, len(data),
                            hashlib.sha256(data).hexdigest())


def test_the_cut_counts_escaped_bytes_and_falls_on_a_character() -> None:
    text = "\x01" * CONTENT_CAP  # six escaped bytes a character (`\\u0001`)
    held = captured(text)
    assert held["truncated"] == "\x01" * (CONTENT_CAP // 6)
    assert _line_bytes(held["truncated"]) - 2 <= CONTENT_CAP
    emoji = "😀" * CONTENT_CAP  # four bytes each: the head never splits one
    assert captured(emoji)["truncated"] == "😀" * (CONTENT_CAP // 4)


def test_a_long_structured_value_is_cut_as_its_json_text() -> None:
    value = {"rows": ["r" * 100] * 1000}
    held = captured(value)
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert held["bytes"] == len(text.encode())
    assert held["truncated"] == text[:len(held["truncated"])]
    assert Captured.from_wire(held) is not None and Captured.from_wire(value) == Captured.of(value)


def test_the_bus_masks_a_secret_before_the_cut_and_the_digest() -> None:
    secret = "hunter2-hunter2"
    recorder = Recorder()
    bus = EventBus(sinks=[recorder], clock=FixedClock(), mask=Masker([secret]))
    prompt = "p" * (CONTENT_CAP - 3) + secret + "q" * 100
    bus.emit(CostIncurred(task="t", model="mock/echo", input_tokens=1, output_tokens=1,
                          prompt=prompt, reply=secret))
    fields = wire_fields(recorder.events[0])
    shown = prompt.replace(secret, MASK).encode("utf-8")
    assert fields["prompt"]["sha256"] == hashlib.sha256(shown).hexdigest()
    assert fields["prompt"]["bytes"] == len(shown)
    # the head ends inside the mask (one 3-byte glyph fits), never inside the secret
    assert fields["prompt"]["truncated"] == "p" * (CONTENT_CAP - 3) + MASK[0]
    assert fields["reply"] == MASK and "hunter" not in json.dumps(fields)


def test_content_fields_are_absent_when_unset_and_agent_content_is_captured() -> None:
    plain = dict(wire(CostIncurred(task="t", model="m", input_tokens=1, output_tokens=2)))
    assert "prompt" not in plain and "reply" not in plain  # an older frame's shape
    ended = dict(wire(TaskEnded(task="t", status="success", duration_ms=1, attempts=1,
                                inputs={"big": "b" * (CONTENT_CAP + 1)}, outcome="{}")))
    assert set(ended["inputs"]) == {"truncated", "bytes", "sha256"}
    unit = UnitAttempt("t")
    started = dict(wire(AgentStep(task="t", unit=unit, event=RunStarted(
        seq=1, turn=0, task="t", model="m", universe=0, prompt="go", system="be brief"))))
    assert (started["prompt"], started["system"]) == ("go", "be brief")
    called = dict(wire(AgentStep(task="t", unit=unit, event=ModelCalled(
        seq=2, turn=1, model="m", input_tokens=1, output_tokens=1, duration_ms=1.0,
        finish_reason="end_turn", reply="r" * (CONTENT_CAP * 2)))))
    assert called["reply"]["bytes"] == CONTENT_CAP * 2
    no_reply = dict(wire(AgentStep(task="t", unit=unit, event=ModelCalled(
        seq=2, turn=1, model="m", input_tokens=1, output_tokens=1, duration_ms=1.0,
        finish_reason="end_turn"))))
    assert "reply" not in no_reply


def test_an_untrusted_wire_value_reads_as_text() -> None:
    assert Captured.from_wire(None) is None
    assert Captured.from_wire("hi") == Captured("hi", False, 2, None)
    odd = {"truncated": 3, "bytes": "x", "sha256": None}  # the shape, not the types
    assert Captured.from_wire(odd) == Captured.of(odd) and not Captured.of(odd).truncated
    assert Captured.from_wire(["a", 1]) == Captured('["a",1]', False, 7, None)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@given(value=_JSON.filter(lambda v: v is not None), cap=st.integers(min_value=1, max_value=64))
def test_round_trip_whole_or_head_with_size_and_digest(value: object, cap: int) -> None:
    held = json.loads(json.dumps(captured(value, cap)))  # through a journal line
    back = Captured.from_wire(held)
    whole = Captured.of(value)
    assert back is not None
    if back.truncated:
        data = whole.text.encode("utf-8")
        assert whole.text.startswith(back.text) and len(back.text) < len(whole.text)
        assert _line_bytes(back.text) - 2 <= cap
        assert (back.bytes, back.sha256) == (len(data), hashlib.sha256(data).hexdigest())
    else:
        assert back == whole
