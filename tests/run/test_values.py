"""Launch inputs (--var), task records and their defined-null projection."""

from __future__ import annotations

import pytest
from tests.run._harness import workflow

from nika.errors import NikaError
from nika.journal.records import TaskRecord
from nika.run.values import bind_inputs, parse_var

WF = workflow("nika: v\ninputs:\n  n: { type: integer, default: 5 }\n  s: { type: string }\n"
              "  req: { type: bool, required: true }\n  tags: { type: { array: string } }\n"
              "tasks:\n  t:\n    invoke: { tool: nika:emit }\n")


def test_vars_coerce_by_declared_type() -> None:
    got = bind_inputs(WF.inputs, dict(parse_var(v) for v in
                                      ["s=5", "req=true", 'tags=["a"]']), {})
    assert got == {"n": 5, "s": "5", "req": True, "tags": ["a"]}


def test_env_spelling_reads_the_declared_variable() -> None:
    got = bind_inputs(WF.inputs, {"req": "true", "s": "@env:WHO"}, {"WHO": "me"})
    assert got["s"] == "me"


@pytest.mark.parametrize(("supplied", "code"), [
    ({}, "NIKA-INPUT-001"),
    ({"req": "true", "typo": "1"}, "NIKA-INPUT-002"),
    ({"req": "maybe"}, "NIKA-INPUT-003"),
])
def test_launch_refusals(supplied: dict[str, str], code: str) -> None:
    with pytest.raises(NikaError) as err:
        bind_inputs(WF.inputs, supplied, {})
    assert err.value.code == code


def test_malformed_var_is_refused() -> None:
    with pytest.raises(NikaError):
        parse_var("novalue")


def test_record_projection_is_defined_null_off_success() -> None:
    error = NikaError("NIKA-CANCEL-001", "dead path")
    cancelled = TaskRecord.settle("t", "cancelled", output="x", error=error,
                                  bindings={"b": 1})
    assert cancelled.view["output"] is None and cancelled.view["b"] is None
    assert cancelled.view["error"] is None  # only failure / preserved skip expose it
    ok = TaskRecord.settle("t", "success", output=[1], started_at=0, ended_at=5_000_000)
    assert ok.view["output"] == [1] and ok.view["duration_ms"] == 5
    assert ok.view["started_at"] == "1970-01-01T00:00:00.000Z"
