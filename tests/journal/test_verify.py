"""The verify walk (17 §the chain · §the end of the run · NEP-0007 · 15 §the verifier):
clean · finding · incomplete · forged · refused, on the spec's reference journals and on
journals built here frame by frame."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nika.journal.verify import MAX_LINE, verify
from nika.journal.writer import GENESIS_CHAIN, encode, line_hash
from nika.prices import table_pin
from nika.view.verify_report import report

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "tests" / "runtime"


def _chain(*frames: tuple[str, dict[str, Any]]) -> bytes:
    """A journal whose every line chains to the last: (kind, fields) per frame."""
    out, chain = [], GENESIS_CHAIN
    for n, (kind, fields) in enumerate(frames):
        line = encode({"chain": chain, "correlation": None, "id": {"uuid": f"id-{n}"},
                       "kind": kind, "run": None, "timestamp": n,
                       "fields": [{"key": k, "value": v} for k, v in fields.items()]})
        out.append(line)
        chain = line_hash(line)
    return b"".join(line + b"\n" for line in out)


START = ("workflow_started", {"workflow": "w", "trace_format": 2})
EXEC = ("task_started", {"task": "a", "verb": "exec", "note": "exec · echo"})
PERMIT = ("permit_checked", {"task": "a", "plane": "exec", "gate": "echo", "decision": "allow",
                             "why": "permits.exec grants it"})
DONE = ("task_completed", {"task": "a", "note": "exec · echo"})
END = ("workflow_completed", {"workflow": "w"})


def _fixtures() -> list[Path]:
    return sorted(p.parent for p in CORPUS.glob("trace/*/expected-verify.json"))


@pytest.mark.parametrize("fixture", _fixtures(), ids=lambda p: p.name)
def test_every_reference_journal_reaches_its_expected_verdict(fixture: Path) -> None:
    expected = json.loads((fixture / "expected-verify.json").read_text(encoding="utf-8"))
    data = (fixture / "trace.ndjson").read_bytes()
    verdict, lines = report(data)
    assert verdict.status == expected["verdict"], lines[0]
    if "cost_replay" in expected:
        assert any(line.startswith(f"cost-replay: {expected['cost_replay']} ")
                   for line in lines)
    if not verdict.walks and verdict.line and verdict.line > 1:
        # locality: the lines before the offending one are intact, so they walk
        prefix = b"".join(line + b"\n" for line in data.split(b"\n")[:verdict.line - 1])
        assert verify(prefix).walks


def test_the_resume_corpus_journals_chain_intact() -> None:
    for journal in sorted(CORPUS.glob("resume/*/trace.ndjson")):
        assert verify(journal.read_bytes()).status == "clean", journal


def test_effects_without_a_witness_are_a_finding_never_forged() -> None:
    verdict = verify(_chain(START, EXEC, DONE, END))
    assert verdict.status == "finding" and verdict.walks
    assert "exec" in verdict.findings[0] and "permit_checked" in verdict.findings[0]
    assert verify(_chain(START, EXEC, PERMIT, DONE, END)).status == "clean"


def test_a_pure_run_needs_no_witness_and_granted_tools_do() -> None:
    infer = ("task_started", {"task": "t", "verb": "infer", "note": "infer · mock/echo"})
    pure = ("tool_invoked", {"task": "t", "tool": "nika:log"})
    done = ("tool_invoked", {"task": "t", "name": "nika:done", "agent_event": "tool_completed"})
    assert verify(_chain(START, infer, pure, done, END)).status == "clean"
    fetch = ("tool_invoked", {"task": "t", "tool": "nika:fetch"})
    assert verify(_chain(START, infer, fetch, END)).status == "finding"


def test_a_served_task_is_not_an_effect_of_this_run() -> None:
    hit = ("task_cache_hit", {"task": "a", "def_hash": "d", "input_hash": "i"})
    assert verify(_chain(START, hit, DONE, END)).status == "clean"


def test_no_terminal_frame_is_incomplete_and_a_torn_tail_is_named() -> None:
    whole = _chain(START, EXEC, PERMIT, DONE, END)
    cut = whole[:whole.rindex(b"\n", 0, len(whole) - 1) + 1]  # the terminal frame is gone
    assert verify(cut).status == "incomplete" and not verify(cut).torn
    torn = verify(cut + whole[len(cut):len(cut) + 40])
    assert (torn.status, torn.torn, torn.line, torn.frames) == ("incomplete", True, 5, 4)
    assert "torn tail: line 5" in torn.render()


def test_a_torn_line_after_the_end_leaves_the_run_clean_but_named() -> None:
    whole = _chain(START, EXEC, PERMIT, DONE, END)
    verdict = verify(whole + b'{"chain":"ab')
    assert (verdict.status, verdict.torn) == ("clean", True)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_journal_cut_at_any_byte_never_reads_forged(data: st.DataObject) -> None:
    whole = _chain(START, EXEC, PERMIT, DONE, END)
    at = data.draw(st.integers(0, len(whole)))
    verdict = verify(whole[:at])
    assert verdict.status != "forged", verdict.render()
    assert verdict.status in ("incomplete", "clean")


def test_a_non_json_line_inside_the_journal_is_forged_there() -> None:
    lines = _chain(START, EXEC, PERMIT, DONE, END).split(b"\n")
    lines[2] = lines[2][:30]
    verdict = verify(b"\n".join(lines))
    assert (verdict.status, verdict.line) == ("forged", 3)


def test_a_line_over_the_bound_is_refused_before_parsing() -> None:
    head = _chain(START)
    verdict = verify(head + b"x" * (MAX_LINE + 1) + b"\n")
    assert (verdict.status, verdict.line, verdict.walks) == ("refused", 2, False)
    assert "Oversized" in verdict.reason
    assert verify(head).walks  # the lines before it are intact


def test_unknown_kinds_members_and_fields_are_tolerated() -> None:
    odd = ("frobnicated", {"task": "a", "wibble": [1, 2]})
    data = _chain(START, odd, END)
    lines = data.split(b"\n")
    frame = json.loads(lines[0])
    assert verify(data).status == "clean"
    frame["extra_member"] = {"x": 1}  # an unknown member changes the bytes: a new journal
    rebuilt = encode(frame)
    assert verify(rebuilt + b"\n").status == "incomplete"


def test_the_manifest_reports_unrecorded_fields_and_never_guesses() -> None:
    _, lines = report(_chain(START, END))
    assert "  workflow: w" in lines and "  trace_format: 2" in lines
    assert "  seed: unrecorded" in lines and "  spec_pin: unrecorded" in lines


def _priced(total: float | None) -> bytes:
    pin = json.dumps(table_pin().to_dict())
    call = ("cost_incurred", {"task": "t", "model": "openai/gpt-4o", "input_tokens": 1000,
                              "output_tokens": 2000})
    end = ("workflow_completed", {} if total is None else {"total_cost_usd": total})
    return _chain(("workflow_started", {"workflow": "w", "pricing": pin}), call, end)


def test_cost_replay_reprices_at_the_pinned_table_and_compares_the_total() -> None:
    from nika.prices import call_cost

    expected = call_cost("openai/gpt-4o", 1000, 2000)
    assert not isinstance(expected, str)
    _, agree = report(_priced(float(expected)))
    assert any(line.startswith("cost-replay: replayed ") and "agrees" in line for line in agree)
    _, diverge = report(_priced(float(expected) + 1))
    assert any("DIVERGES" in line for line in diverge)


def test_cost_replay_refuses_a_table_this_engine_does_not_hold() -> None:
    foreign = json.dumps({"schema": "nika/model-pricing@9", "as_of": "2031-01-15",
                          "sha256_16": "deadbeefdeadbeef"})
    verdict, lines = report(_chain(("workflow_started", {"workflow": "w", "pricing": foreign}),
                                   END))
    assert verdict.status == "clean"  # the leg never moves the chain verdict
    assert any(line.startswith("cost-replay: refused ") for line in lines)
