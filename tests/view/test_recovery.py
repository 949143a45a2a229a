"""How a task ended, as its (untrusted) terminal frame records it: the frame's own field,
else the `outcome` record's payload; anything else is unrecorded, never guessed."""

from __future__ import annotations

import json

from nika.journal.decoded import ReadTaskEnded
from nika.view.recovery import recovered_from, recovery_text, task_error


def test_the_frames_own_error_wins_over_the_outcome_records() -> None:
    outcome = json.dumps({"payload": {"error": {"code": "NIKA-X-002"}}})
    assert task_error(ReadTaskEnded(error={"code": "NIKA-X-001"}, outcome=outcome)) == {
        "code": "NIKA-X-001"}
    assert task_error(ReadTaskEnded(outcome=outcome)) == {"code": "NIKA-X-002"}
    assert task_error(ReadTaskEnded(outcome={"payload": {"error": {"code": "M"}}})) == {
        "code": "M"}  # a mapping outcome is tolerated


def test_an_unreadable_outcome_is_no_error() -> None:
    for outcome in ("{not json", json.dumps({"payload": {"error": "boom"}}), 7, None):
        assert task_error(ReadTaskEnded(outcome=outcome)) is None


def test_a_recovery_is_its_cause_an_empty_one_or_none() -> None:
    cause = {"code": "NIKA-EXEC-001", "attempt": 1}
    assert recovered_from(ReadTaskEnded(recovered_from=cause)) == cause
    old = json.dumps({"cause": "recovered", "class": "success"}, separators=(",", ":"))
    assert recovered_from(ReadTaskEnded(outcome=old)) == {}  # recovered, cause unrecorded
    assert recovered_from(ReadTaskEnded(outcome=json.dumps({"class": "success"}))) is None


def test_the_recovery_line_names_code_attempt_and_item() -> None:
    assert recovery_text({"code": "NIKA-AGENT-006", "attempt": 2,
                          "details": {"iteration": 3}}) == "NIKA-AGENT-006 · attempt 2 · item 3"
    assert recovery_text({"code": "NIKA-X-001", "attempt": "2"}) == "NIKA-X-001"
    assert recovery_text({"attempt": 2}) == "unrecorded"
