"""The lint door: task-ordered, deterministic, explicit when clean (Contract 3)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable

from nika.check import check
from nika.check.lint import PRECEDENCE, RULES, headline
from nika.check.lint._text import lint_lines

Lints = Callable[..., list[tuple[str, str]]]

MIXED = """
nika: w
tasks:
  zeta:
    exec: { command: ["./z.sh"] }
    on_error: { skip: true }
  alpha:
    with: { v: "${{ tasks.zeta.output }}" }
    for_each: { items: [1, 2] }
    exec: { command: ["timeout", "5", "curl", "https://x.test"] }
  mid:
    exec: { command: ["cat", "notes.txt"] }
"""


def test_lints_follow_task_declaration_order_not_ids(lints: Lints) -> None:
    assert lints(MIXED) == [
        ("one-obvious-way/002", "zeta"),
        ("one-obvious-way/006", "alpha"),
        ("native-first/002", "mid"),
    ]


def test_same_file_same_bytes() -> None:
    first = check(textwrap.dedent(MIXED), lint=True).to_json()
    assert all(check(textwrap.dedent(MIXED), lint=True).to_json() == first for _ in range(3))


def test_clean_is_an_explicit_empty_list_and_absent_without_the_flag() -> None:
    clean = 'nika: w\npermits: {}\ntasks:\n  t:\n    invoke: { tool: "nika:uuid" }\n'
    assert json.loads(check(clean, lint=True).to_json())["lints"] == []
    assert "lints" not in json.loads(check(clean).to_json())


def test_a_document_refused_before_the_model_still_answers_the_door() -> None:
    verdict = check("nika: [unclosed\n", lint=True)
    assert not verdict.valid
    assert json.loads(verdict.to_json())["lints"] == []


def test_lints_never_touch_validity() -> None:
    src = 'nika: w\npermits: { exec: ["cat"] }\ntasks:\n  t:\n    exec: { command: ["cat", "a"] }\n'
    verdict = check(src, lint=True)
    assert verdict.valid and verdict.lints and verdict.lints[0].rule == "native-first/002"


def test_every_rule_id_is_ranked_once() -> None:
    assert len(PRECEDENCE) == len(set(PRECEDENCE)) == 18
    assert len(RULES) == 13


def test_headline_keeps_the_most_specific_rule_per_task_and_family() -> None:
    src = """
    nika: w
    tasks:
      a:
        exec: { command: ["./a.sh"] }
      b:
        with: { v: "${{ tasks.a.output }}" }
        after: { a: terminal }
        on_error: { skip: true }
        exec: { command: ["./b.sh", "${{ with.v }}"] }
      c:
        with: { w: "${{ tasks.b.output }}" }
        exec: { command: ["./c.sh", "${{ with.w }}"] }
    """
    verdict = check(textwrap.dedent(src), lint=True)
    assert [f.rule for f in verdict.lints or ()] == ["one-obvious-way/002", "one-obvious-way/010"]
    ((first, others),) = headline(verdict.lints or ())
    assert first.rule == "one-obvious-way/010"  # 03's table puts /010 first
    assert [o.rule for o in others] == ["one-obvious-way/002"]
    (line,) = lint_lines(verdict.lints or (), "w.yaml")
    assert line.endswith("(also one-obvious-way/002)")


def test_the_human_line_escapes_control_characters() -> None:
    src = 'nika: w\ntasks:\n  t:\n    exec: { command: ["cat", "a"] }\n'
    (line,) = lint_lines(check(src, lint=True).lints or (), "evil\x1b[2Jname")
    assert "\x1b" not in line and "\\x1b" in line
    assert line.startswith("warning evil") and "native-first/002 · task `t`" in line
