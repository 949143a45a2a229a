"""Human rendering of a verdict."""

from __future__ import annotations

from nika.check.render import render_human
from nika.check.verdict import Verdict, refused
from nika.errors import Location, NikaError


def test_ok_then_the_plan() -> None:
    text = render_human(Verdict(sections={"plan": {"waves": [["a", "b"], ["c"]]}}), "wf.nika.yaml")
    assert text.splitlines() == ["ok wf.nika.yaml", "plan:", "  wave 1: a, b", "  wave 2: c"]


def test_each_finding_on_its_own_line() -> None:
    v = refused(
        [
            NikaError("NIKA-PARSE-010", "bad timeout", location=Location(4, 5)),
            NikaError("NIKA-DAG-001", "x"),
        ]
    )
    lines = render_human(v, "f.yaml").splitlines()
    assert lines[0] == "f.yaml NIKA-DAG-001 validation_error — x"
    assert lines[1] == "f.yaml:4:5 NIKA-PARSE-010 validation_error — bad timeout"
    assert lines[-1] == "refused f.yaml: 2 findings"
