"""The run list and ADR-100 retention: what `trace ls` reads from each journal's two ends, and
what a collection removes — never a paused run, never a workflow's newest, never the journal
being resumed."""

from __future__ import annotations

import json
from pathlib import Path

from nika.journal.runs import Policy, RunEntry, collect, read_entry, runs, sweep

DAY = 86_400 * 10**9
NOW = 100 * DAY


def _journal(directory: Path, name: str, workflow: str, started: int, state: str | None,
             size: int = 0, paused: tuple[str, ...] = (), cost: float | None = None,
             calls: tuple[tuple[int, int], ...] = (),
             totals: dict[str, int] | None = None) -> Path:
    first: dict[str, object] = {"chain": "c", "fields": [{"key": "workflow", "value": workflow}],
             "kind": "workflow_started", "timestamp": started}
    lines = [json.dumps(first), json.dumps({"kind": "task_started", "fields": [],
                                            "pad": "x" * size})]
    lines += [json.dumps({"kind": "cost_incurred", "task": "t", "fields": [
        {"key": "model", "value": "mock/echo"}, {"key": "input_tokens", "value": i},
        {"key": "output_tokens", "value": o}]}) for i, o in calls]
    if state is not None:
        fields: list[dict[str, object]] = [{"key": "workflow", "value": workflow},
                                           {"key": "state", "value": state}]
        if paused:
            fields.append({"key": "paused", "value": list(paused)})
        if cost is not None:
            fields.append({"key": "total_cost_usd", "value": cost})
        fields += [{"key": k, "value": v} for k, v in (totals or {}).items()]
        lines.append(json.dumps({"kind": f"workflow_{state}", "fields": fields,
                                 "timestamp": started + 2_500_000_000}))
    path = directory / f"{name}.ndjson"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_entry_is_read_from_the_two_ends(tmp_path: Path) -> None:
    path = _journal(tmp_path, "a", "hello", NOW, "failed", size=200_000, cost=0.25)
    entry = read_entry(path, tokens=True)
    assert entry == RunEntry(path, path.stat().st_size, "hello", NOW, NOW + 2_500_000_000,
                             "failed", 0.25, input_tokens=0, output_tokens=0)
    assert entry.duration_ms == 2500
    crashed = read_entry(_journal(tmp_path, "b", "hello", NOW, None))
    assert crashed is not None and crashed.state == "incomplete" and crashed.ended_ns is None
    assert read_entry(tmp_path / "absent.ndjson") is None


def test_the_totals_come_from_the_end_and_an_older_journal_is_folded(tmp_path: Path) -> None:
    # The end's totals win: the calls in between are not re-read (they would sum to 12→2).
    ended = read_entry(_journal(tmp_path, "new", "w", NOW, "completed", calls=((12, 2),),
                                totals={"input_tokens": 30, "output_tokens": 11,
                                        "duration_ms": 46}))
    assert ended is not None
    assert (ended.input_tokens, ended.output_tokens, ended.duration_ms) == (30, 11, 46)
    older = read_entry(_journal(tmp_path, "old", "w", NOW, "completed",
                                calls=((10, 5), (20, 6))), tokens=True)
    assert older is not None and (older.input_tokens, older.output_tokens) == (30, 11)
    assert older.duration_ms == 2500  # no recorded duration: the span of the two ends
    crashed = read_entry(_journal(tmp_path, "cut", "w", NOW, None, calls=((7, 1),)),
                         tokens=True)
    assert crashed is not None and (crashed.input_tokens, crashed.output_tokens) == (7, 1)


def test_only_the_listing_folds_tokens_and_an_over_long_line_is_skipped(
        tmp_path: Path) -> None:
    path = _journal(tmp_path, "cut", "w", NOW, None, calls=((7, 1), (3, 2)))
    unfolded = read_entry(path)  # the sweep at a run's start reads the two ends, no more
    assert unfolded is not None and (unfolded.input_tokens, unfolded.output_tokens) == (None, None)
    [swept] = runs(tmp_path)
    assert swept.input_tokens is None
    # A cost frame past the line bound is skipped whole; the calls after it still count.
    lines = path.read_bytes().split(b"\n")
    huge = json.dumps({"kind": "cost_incurred", "fields": [
        {"key": "input_tokens", "value": 1000}], "pad": "x" * (1 << 20)}).encode()
    path.write_bytes(b"\n".join([*lines[:2], huge, *lines[2:]]))
    folded = read_entry(path, tokens=True)
    assert folded is not None and (folded.input_tokens, folded.output_tokens) == (10, 3)


def test_collection_spares_the_newest_the_paused_and_the_resumed(tmp_path: Path) -> None:
    old = [_journal(tmp_path, f"w{i:02d}", "w", NOW - (40 - i) * DAY, "completed")
           for i in range(14)]
    paused = _journal(tmp_path, "p", "w", NOW - 90 * DAY, "paused", paused=("approve",))
    resumed = old[0]
    other = _journal(tmp_path, "z", "other", NOW - 80 * DAY, "failed")
    entries = runs(tmp_path)
    assert entries[0].path == old[-1]  # newest first
    doomed = collect(entries, Policy(keep=10, max_age_days=30), NOW, keep=[resumed])
    assert paused not in doomed and other not in doomed  # paused; the newest of its workflow
    assert resumed not in doomed and old[-1] not in doomed
    assert {doomed[p] for p in old[1:4]} == {"count"}  # ranks 10-13: over the count
    assert all(doomed[p] == "aged" for p in old[4:10])  # 31 to 36 days old
    assert all(p not in doomed for p in old[10:])  # 30 days or younger, within the ten
    budget = collect(entries, Policy(keep=100, max_age_days=1000, budget_bytes=0), NOW)
    assert paused not in budget and other not in budget and old[-1] not in budget
    assert set(budget) == set(old[:-1]) and set(budget.values()) == {"over-budget"}


def test_a_sweep_says_what_it_removed_in_one_line(tmp_path: Path) -> None:
    for i in range(3):
        _journal(tmp_path, f"r{i}", "w", NOW - (3 - i) * DAY, "completed")
    assert sweep(tmp_path, Policy(keep=1), NOW) == "trace gc · removed 2 (2 count) · kept 1 · 0KB"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r2.ndjson"]
    assert sweep(tmp_path, Policy(keep=1), NOW) is None  # nothing to remove: silent


def test_policy_knobs_come_from_the_environment_and_fail_open() -> None:
    policy = Policy.from_env({"NIKA_TRACE_KEEP": "3", "NIKA_TRACE_MAX_AGE_DAYS": "1.5",
                              "NIKA_TRACE_BUDGET_MB": "oops"})
    assert policy == Policy(keep=3, max_age_days=1.5, budget_bytes=256 << 20)
