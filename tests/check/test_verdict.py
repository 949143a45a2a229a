"""`Verdict`: deterministic order, validity, and the canonical wire shape."""

from __future__ import annotations

import json

from nika.check.verdict import Verdict, refused, sort_findings
from nika.errors import Location, NikaError


def err(code: str, line: int, col: int, detail: str = "d") -> NikaError:
    return NikaError(code, detail, location=Location(line, col))


def test_sorted_by_line_column_code_detail_and_deduplicated() -> None:
    a, b, c = err("NIKA-PARSE-005", 3, 1), err("NIKA-DAG-001", 1, 9), err("NIKA-DAG-001", 1, 2)
    out = sort_findings([a, b, c, err("NIKA-PARSE-005", 3, 1)])
    assert [(e.location.line, e.location.column) for e in out if e.location] == [
        (1, 2),
        (1, 9),
        (3, 1),
    ]


def test_wire_shape() -> None:
    v = refused([err("NIKA-DAG-001", 2, 3, "cycle")])
    wire = json.loads(v.to_json())
    assert wire["valid"] is False and wire["hints"] == [] and wire["plan"] == {"waves": []}
    (e,) = wire["errors"]
    assert e == {
        "code": "NIKA-DAG-001",
        "namespace": "NIKA-DAG",
        "category": "validation_error",
        "transient": False,
        "detail": "cycle",
        "line": 2,
        "column": 3,
    }


def test_json_is_canonical() -> None:
    v = Verdict(sections={"zeta": {"b": 1, "a": 2}, "plan": {"waves": [["a", "b"]]}})
    text = v.to_json()
    assert text == json.dumps(
        json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert v.valid and v.waves == (("a", "b"),)
