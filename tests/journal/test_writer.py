"""The run journal (spec 17): written by every `nika run`, chained, verifiable, masked."""

from __future__ import annotations

import functools
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nika.journal.bus import EventBus
from nika.journal.verify import verify
from nika.journal.writer import GENESIS_CHAIN, SPEC_PIN, JournalSink, Uuid7, encode, line_hash
from nika.masking import MASK
from nika.run.launch import RunOptions, Streams, run_command
from nika.view.console import Console

WORKFLOW = """\
nika: journal-demo
model: mock/echo
permits:
  tools: ["nika:done"]
tasks:
  plan:
    infer:
      prompt: "Name one topic."
  research:
    after: { plan: success }
    with: { topic: "${{ tasks.plan.output }}" }
    agent:
      tools: ["nika:done"]
      max_turns: 3
      prompt: "Research ${{ with.topic }}"
outputs:
  brief: ${{ tasks.research.output }}
"""


def _run(tmp: Path, text: str = WORKFLOW, *, trace_dir: Path | None = None,
         environ: dict[str, str] | None = None) -> tuple[int, str, str, Path | None]:
    tmp.mkdir(parents=True, exist_ok=True)
    source = tmp / "flow.nika.yaml"
    source.write_text(text, encoding="utf-8")
    traces = trace_dir or tmp / "traces"
    out, err = io.StringIO(), io.StringIO()
    code = run_command(RunOptions(file=source, trace_dir=traces), Streams(out, err),
                       Console(out=out), environ=environ or {})
    files = sorted(traces.glob("*.ndjson")) if traces.is_dir() else []
    return code, out.getvalue(), err.getvalue(), files[0] if files else None


@functools.cache
def _journal() -> bytes:
    """One real run's journal, shared by the property tests (they only read it)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        _, _, _, path = _run(Path(tmp))
        assert path is not None
        return path.read_bytes()


def _lines() -> list[bytes]:
    return _journal().rstrip(b"\n").split(b"\n")


def _join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def test_every_run_writes_a_journal_that_verifies_and_says_where(tmp_path: Path) -> None:
    code, out, err, path = _run(tmp_path)
    assert code == 0 and json.loads(out) == {"brief": "mock(echo) · Research mock(echo) · "
                                                       "Name one topic."}
    assert path is not None and path.parent == tmp_path / "traces"
    assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{8}\.ndjson", path.name)
    verdict = verify(path.read_bytes())
    assert verdict.status == "clean" and f"head {verdict.head}" in err and path.name in err


def test_frames_have_the_normative_shape_and_the_prologue_is_the_manifest() -> None:
    frames = [json.loads(line) for line in _lines()]
    assert all(set(f) == {"chain", "id", "timestamp", "kind", "fields", "run", "correlation"}
               for f in frames)
    assert frames[0]["chain"] == GENESIS_CHAIN and frames[0]["kind"] == "workflow_started"
    assert all(encode(f) == line for f, line in zip(frames, _lines(), strict=True))
    prologue = {p["key"]: p["value"] for p in frames[0]["fields"]}
    assert prologue["trace_format"] == 2 and prologue["workflow"] == "journal-demo"
    assert prologue["permits_json"] == '{"tools":["nika:done"]}'
    assert {"workflow_sha256", "workflow_sha256_lf", "engine_version", "platform", "sandbox",
            "stamper_kind", "clock", "semantic_hash", "pricing"} <= set(prologue)
    assert prologue["spec_pin"] == SPEC_PIN  # the spec commit this engine implements
    assert "seed" not in prologue  # an ambient run: absent, never faked
    assert list(prologue)[:4] == ["workflow", "permits", "permits_json", "workflow_sha256"]
    assert len({f["run"] for f in frames}) == 1 and frames[-1]["kind"] == "workflow_completed"
    ids = [f["id"]["uuid"] for f in frames]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_the_agent_decisions_are_frames_with_their_fields() -> None:
    frames = [json.loads(line) for line in _lines()]
    kinds = [f["kind"] for f in frames]
    assert {"agent_tools_selected", "agent_budget_checkpoint", "tool_invoked"} <= set(kinds)
    selected = next(f for f in frames if f["kind"] == "agent_tools_selected")
    fields = {p["key"]: p["value"] for p in selected["fields"]}
    assert (fields["offered"], fields["universe"], fields["mode"], fields["turn"]) == \
        (["nika:done"], 1, "passthrough", 1)
    assert fields["reason"] == "below_threshold"


Mutation = tuple[str, int]


def _mutate(lines: list[bytes], kind: str, i: int) -> tuple[list[bytes], int]:
    """Apply one mutation at 0-based line `i`; return the lines and the 1-based line the walk
    (with the original head pinned) must name as the first broken link."""
    n = len(lines)
    out = list(lines)
    if kind == "edit":  # a parse-preserving change of the frame's payload
        frame = json.loads(out[i])
        frame["timestamp"] += 1
        out[i] = encode(frame)
        return out, min(i + 2, n)
    if kind == "insert":  # a well-formed frame chained to its predecessor: the best forgery
        chain = line_hash(out[i - 1]) if i else GENESIS_CHAIN
        out.insert(i, encode({**json.loads(out[i]), "chain": chain, "kind": "lift"}))
        return out, i + 2
    if kind == "delete":
        del out[i]
        return out, i + 1 if i < n - 1 else n - 1
    j = (i + 1) % n  # reorder: swap with the next line (the last swaps with the first)
    out[i], out[j] = out[j], out[i]
    return out, min(i, j) + 1


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["edit", "insert", "delete", "reorder"]), where=st.floats(0, 1,
       exclude_max=True))
def test_any_edit_insert_delete_or_reorder_is_forged_at_the_first_broken_link(
        kind: str, where: float) -> None:
    lines = _lines()
    head = line_hash(lines[-1])
    mutated, expected = _mutate(lines, kind, int(where * len(lines)))
    verdict = verify(_join(mutated), head=head)
    assert (verdict.status, verdict.line) == ("forged", expected), verdict.render()


def test_a_line_that_is_not_json_is_forged_there() -> None:
    lines = _lines()
    lines[3] = lines[3][:-1]
    assert (verify(_join(lines)).status, verify(_join(lines)).line) == ("forged", 4)


def test_a_truncated_journal_is_incomplete_never_ok_nor_forged() -> None:
    lines = _lines()
    at_boundary = verify(_join(lines[:-1]))
    mid_line = verify(_join(lines[:-1]) + lines[-1][:20])
    assert at_boundary.status == mid_line.status == "incomplete"
    assert at_boundary.frames == mid_line.frames == len(lines) - 1
    assert verify(b"").status == "incomplete"


def test_an_appended_line_is_caught_by_the_pinned_head() -> None:
    lines = _lines()
    extra = encode({**json.loads(lines[-1]), "chain": line_hash(lines[-1])})
    assert verify(_join([*lines, extra])).status == "clean"  # the chain alone cannot see it
    verdict = verify(_join([*lines, extra]), head=line_hash(lines[-1]))
    assert (verdict.status, verdict.line) == ("forged", len(lines) + 1)


def test_an_oversized_line_is_refused_before_parsing() -> None:
    verdict = verify(b"[" * (1 << 20 + 1) + b"\n")
    assert verdict.status == "refused" and "Oversized" in verdict.reason


def _normalised(data: bytes) -> list[Any]:
    frames = [json.loads(line) for line in data.rstrip(b"\n").split(b"\n")]
    for frame in frames:
        for key in ("chain", "id", "timestamp", "run"):
            frame[key] = key
        for pair in frame["fields"]:
            if pair["key"] == "duration_ms":  # a measured time, like the timestamps
                pair["value"] = "duration"
    return frames


def test_two_runs_differ_only_in_ids_timestamps_and_chain(tmp_path: Path) -> None:
    _, _, _, first = _run(tmp_path / "a")
    _, _, _, second = _run(tmp_path / "b")
    assert first is not None and second is not None
    a, b = first.read_bytes(), second.read_bytes()
    assert a != b and _normalised(a) == _normalised(b)


def test_journal_io_failure_never_changes_the_run(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the trace directory should be")
    ok_code, ok_out, _, _ = _run(tmp_path / "ok")
    code, out, err, path = _run(tmp_path / "broken", trace_dir=blocked / "traces")
    assert (code, out) == (ok_code, ok_out) == (0, ok_out)
    assert path is None and "sink JournalSink failed at emit" in err
    assert "journal " not in err.replace("sink JournalSink", "")


def test_a_secret_never_reaches_the_journal(tmp_path: Path) -> None:
    secret = "s3cr3t-journal-value"
    text = ("nika: secret-demo\nmodel: mock/echo\n"
            "secrets:\n  token: { source: env, key: TW_TOKEN, egress: [{ to: agent }] }\n"
            "permits:\n  tools: [\"nika:done\"]\n"
            "tasks:\n  echo:\n    agent:\n      tools: [\"nika:done\"]\n"
            "      prompt: \"use ${{ secrets.token }}\"\n"
            "outputs:\n  said: ${{ tasks.echo.output }}\n")
    code, _, _, path = _run(tmp_path, text, environ={"TW_TOKEN": secret})
    assert code == 0 and path is not None
    data = path.read_bytes().decode()
    assert secret not in data and f"use {MASK}" in data  # it flowed, and was masked


def test_lazy_open_no_frame_no_file(tmp_path: Path) -> None:
    sink = JournalSink(tmp_path / "traces")
    EventBus(sinks=[sink]).close()
    assert sink.path is None and not (tmp_path / "traces").exists()


def test_uuid7_layout_and_order_within_one_millisecond() -> None:
    bits = iter([5, 9])
    stamper = Uuid7(rng=lambda n: next(bits))
    first = stamper.stamp(1_700_000_000_123_456_789)
    second = stamper.stamp(1_700_000_000_123_999_999)
    assert first == "018bcfe5-687b-7000-8000-000000000005"
    assert second == "018bcfe5-687b-7000-8000-000000000006"  # same ms: the next value, in order
    third = stamper.stamp(1_700_000_000_124_000_000)
    assert third[:13] == "018bcfe5-687c" and third[14] == "7" and third[19] in "89ab"


def test_task_boundaries_are_synced_off_the_loop_and_once_more_at_close(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from nika.journal import _sync

    synced: list[str] = []
    monkeypatch.setattr(_sync, "fdatasync",
                        lambda fd: synced.append(threading.current_thread().name))
    code, _, _, path = _run(tmp_path)
    assert code == 0 and path is not None
    assert synced and synced[-1] == threading.current_thread().name  # the closing sync
    assert set(synced[:-1]) <= {"nika-journal-sync"}  # every boundary sync ran off the loop
    assert not [t for t in threading.enumerate() if t.name == "nika-journal-sync"]


def test_a_failing_sync_is_reported_and_never_changes_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nika.journal import _sync

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(_sync, "fdatasync", broken)
    code, out, err, path = _run(tmp_path)
    assert code == 0 and json.loads(out)["brief"]
    assert path is not None and "sink JournalSink failed at close" in err
    assert "INCOMPLETE: a write failed" in err
