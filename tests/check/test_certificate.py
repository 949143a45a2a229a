"""The termination and cost certificate rung (issue 7 · spec 07 §the spend-honesty law)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from textwrap import dedent, indent
from typing import Any

import pytest

from nika.check import check
from nika.check._bounds import Bound
from nika.check.render import render_human

_EXAMPLE_15 = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "nika-spec"
    / "examples"
    / "15-compose-self-check.nika.yaml"
)


def _certificate(tasks: str, *, head: str = "model: mock/echo\n") -> dict[str, Any]:
    text = "nika: cert\n" + head + "permits: {}\ntasks:\n" + indent(dedent(tasks), "  ")
    verdict = check(text)
    assert not [e for e in verdict.errors if e.code == "NIKA-IMPL-001"], verdict.errors
    cert: dict[str, Any] = verdict.to_dict()["certificate"]
    return cert


def test_a_literal_fan_out_of_3_agents_with_max_turns_5_makes_15_model_calls() -> None:
    cert = _certificate(
        """\
        loop:
          for_each: { items: [a, b, c] }
          agent: { prompt: "go ${{ item }}", max_turns: 5, max_tokens_total: 1000 }
        """
    )
    row = cert["tasks"]["loop"]
    assert (row["iterations"], row["attempts"], row["model_calls"]) == (3, 3, 15)
    assert cert["total"]["model_calls"] == {"floor": 15, "ceiling": 15}
    assert row["output_tokens"] == 3000


def test_retries_multiply_attempts_per_iteration() -> None:
    cert = _certificate(
        """\
        t:
          for_each: { items: [1, 2] }
          retry: { max_attempts: 3 }
          infer: { prompt: "p", max_tokens: 10 }
        """
    )
    row = cert["tasks"]["t"]
    assert (row["attempts"], row["model_calls"], row["output_tokens"]) == (6, 6, 60)


def test_an_agent_without_max_turns_is_bounded_by_the_default_10() -> None:
    cert = _certificate("a:\n  agent: { prompt: p, max_tokens_total: 50 }\n")
    assert cert["tasks"]["a"]["model_calls"] == 10
    assert any("a: default 10" in reason for reason in cert["reasons"])


_PRICED = "model: openai/gpt-4o\n"


def test_a_task_without_max_tokens_is_named_unbounded_exactly_once() -> None:
    cert = _certificate(
        """\
        capped:
          infer: { prompt: "p", max_tokens: 1000 }
        open:
          infer: { prompt: "q" }
        """,
        head=_PRICED,
    )
    assert cert["unbounded"] == [{"task": "open", "why": "no max_tokens declared"}]
    assert cert["unpriced"] == []
    row = cert["tasks"]["open"]
    assert (row["spend"], row["output_tokens"], row["cost_usd"]) == ("unbounded", None, None)
    assert row["why"]["output_tokens"] == "no max_tokens declared"
    # The totals never hide it: no ceiling, only the bounded part as a floor.
    assert cert["total"]["output_tokens"] == {"floor": 1000, "ceiling": None}
    assert cert["total"]["cost_usd"] == {"floor": 0.01, "ceiling": None}


def test_an_agent_without_max_tokens_total_is_unbounded_but_still_terminates() -> None:
    cert = _certificate("a:\n  agent: { prompt: p, max_turns: 3 }\n", head=_PRICED)
    assert cert["unbounded"] == [{"task": "a", "why": "no max_tokens_total declared"}]
    assert cert["terminates"] is True and cert["tasks"]["a"]["model_calls"] == 3


def test_a_mock_only_workflow_costs_zero_even_where_tokens_are_unbounded() -> None:
    cert = _certificate(
        """\
        a:
          infer: { prompt: "p", max_tokens: 100 }
        b:
          agent: { prompt: "q", max_turns: 2, max_tokens_total: 500 }
        c:
          infer: { prompt: "r", model: "ollama/qwen3:8b" }
        """
    )
    assert cert["total"]["cost_usd"] == {"floor": 0.0, "ceiling": 0.0}
    assert cert["rates"] == {} and cert["unpriced"] == []
    assert [u["task"] for u in cert["unbounded"]] == ["c"]  # tokens still unbounded


def test_costs_follow_the_sourced_rate_table() -> None:
    cert = _certificate(
        """\
        one:
          retry: { max_attempts: 2 }
          infer: { prompt: "p", max_tokens: 1000 }
        loop:
          agent:
            prompt: "q"
            model: anthropic/claude-sonnet-4-20250514
            max_turns: 4
            max_tokens_total: 10000
        """,
        head=_PRICED,
    )
    # infer: 2 attempts × 1000 output tokens × $10/M; agent: 10000 tokens × max($3, $15)/M.
    assert cert["tasks"]["one"]["cost_usd"] == 0.02
    assert cert["tasks"]["loop"]["cost_usd"] == 0.15
    assert cert["total"]["cost_usd"] == {"floor": 0.17, "ceiling": 0.17}
    rate = cert["rates"]["anthropic/claude-sonnet-4"]
    assert rate["output_usd_per_mtok"] == 15.0 and rate["as_of"] and rate["source"]


def test_a_cycle_free_workflow_with_every_bound_declared_terminates() -> None:
    cert = _certificate(
        """\
        fan:
          for_each: { items: [x, y] }
          retry: { max_attempts: 2 }
          infer: { prompt: "p", max_tokens: 10 }
        loop:
          with: { xs: "${{ tasks.fan.output }}" }
          agent: { prompt: "q ${{ with.xs }}", max_turns: 4, max_tokens_total: 99 }
        """
    )
    assert cert["terminates"] is True
    assert cert["reasons"] == [
        "the precedence graph is acyclic",
        "every for_each iterates a finite collection (fan: 2)",
        "every agent loop stops within max_turns (loop: 4)",
        "every retry stops within max_attempts (fan: 2)",
    ]
    assert cert["unbounded"] == [] and cert["total"]["cost_usd"]["ceiling"] == 0.0


def test_a_cycle_does_not_terminate_and_is_named() -> None:
    cert = _certificate(
        """\
        a:
          with: { x: "${{ tasks.b.output }}" }
          infer: { prompt: "${{ with.x }}", max_tokens: 1 }
        b:
          with: { y: "${{ tasks.a.output }}" }
          infer: { prompt: "${{ with.y }}", max_tokens: 1 }
        """
    )
    assert cert["terminates"] is False and cert["reasons"] == ["cycle a → b → a"]


def test_mutual_recovery_does_not_terminate_and_names_the_recovery_cycle() -> None:
    cert = _certificate(
        """\
        a:
          exec: { command: ["false"] }
          on_error: { recover: "${{ tasks.b.output }}" }
        b:
          exec: { command: ["false"] }
          on_error: { recover: "${{ tasks.a.output }}" }
        """
    )
    assert cert["terminates"] is False
    assert cert["reasons"] == [
        "recovery cycle a → b → a: `a` recovers from `b`, which waits on it, so the recovery "
        "await never ends (1 more recovery edge on it)",
    ]


def test_an_acyclic_recovery_is_a_stated_termination_reason() -> None:
    cert = _certificate(
        """\
        cache: { exec: { command: ["true"] } }
        live:
          exec: { command: ["false"] }
          on_error: { recover: "${{ tasks.cache.output }}" }
        """
    )
    assert cert["terminates"] is True
    assert "no recovery await closes a cycle (G_p ∪ E_r is acyclic)" in cert["reasons"]


def test_a_child_workflow_is_neither_terminating_nor_bounded_here() -> None:
    cert = _certificate("c:\n  invoke: { workflow: ./child.nika.yaml }\n")
    assert cert["terminates"] is False
    assert "child workflow './child.nika.yaml'" in cert["reasons"][0]
    assert [u["task"] for u in cert["unbounded"]] == ["c"]
    assert cert["total"]["model_calls"]["ceiling"] is None


def test_a_fan_out_over_an_input_is_bounded_symbolically_and_says_so() -> None:
    cert = _certificate(
        """\
        fan:
          with: { xs: "${{ inputs.items }}" }
          for_each: { items: "${{ with.xs }}" }
          retry: { max_attempts: 2 }
          infer: { prompt: "${{ item }}", max_tokens: 100 }
        after_fan:
          with: { ys: "${{ tasks.fan.output }}" }
          for_each: { items: "${{ with.ys }}" }
          infer: { prompt: "${{ item }}", max_tokens: 10 }
        """,
        head=_PRICED + "inputs:\n  items: { type: { array: string } }\n",
    )
    fan = cert["tasks"]["fan"]
    assert fan["iterations"] == "|inputs.items|"
    assert (fan["attempts"], fan["model_calls"]) == ("2 × |inputs.items|", "2 × |inputs.items|")
    assert fan["cost_usd"] == "0.002 × |inputs.items|"
    # The downstream fan-out iterates the upstream's positional array: the same bound.
    assert cert["tasks"]["after_fan"]["iterations"] == "|inputs.items|"
    assert cert["symbols"] == {"|inputs.items|": "the length of inputs.items, known at run time"}
    assert cert["total"]["model_calls"]["ceiling"] == "3 × |inputs.items|"
    assert "fan: |inputs.items|" in cert["reasons"][1]


@pytest.mark.parametrize(
    ("items", "extra", "size"),
    [
        ("${{ const.xs }}", "", 4),
        ("${{ with.xs }}", "  with: { xs: [1, 2] }\n", 2),
        ("${{ ['a', 'b', 'c'] }}", "", 3),
    ],
)
def test_a_fan_out_over_a_spelled_out_collection_has_its_length(
    items: str, extra: str, size: int
) -> None:
    cert = _certificate(
        f't:\n{extra}  for_each: {{ items: "{items}" }}\n  infer: {{ prompt: p, max_tokens: 1 }}\n',
        head="model: mock/echo\nconst:\n  xs: [1, 2, 3, 4]\n",
    )
    assert cert["tasks"]["t"]["iterations"] == size and cert["symbols"] == {}


def test_a_templated_cap_is_a_named_symbol() -> None:
    cert = _certificate(
        "a:\n  agent: { prompt: p, max_turns: '${{ inputs.turns }}', max_tokens_total: 10 }\n",
        head="model: mock/echo\ninputs:\n  turns: { type: integer }\n",
    )
    assert cert["tasks"]["a"]["model_calls"] == "inputs.turns"
    assert cert["symbols"] == {"inputs.turns": "the value of inputs.turns, known at run time"}


def test_a_fan_out_over_a_literal_empty_list_never_runs_and_gets_no_row() -> None:
    cert = _certificate(
        """\
        none:
          for_each: { items: [] }
          infer: { prompt: "p" }
        one:
          infer: { prompt: "q", max_tokens: 5 }
        """,
        head=_PRICED,
    )
    assert cert["never_run"] == ["none"] and "none" not in cert["tasks"]
    assert cert["unbounded"] == []
    assert cert["total"]["output_tokens"] == {"floor": 5, "ceiling": 5}


def test_unpriced_tasks_are_listed_with_their_model_and_never_priced_at_zero() -> None:
    cert = _certificate(
        """\
        known:
          infer: { prompt: "p", max_tokens: 100 }
        novel:
          infer: { prompt: "q", model: openai/gpt-novel, max_tokens: 100 }
        """,
        head=_PRICED,
    )
    assert cert["unpriced"] == [
        {
            "task": "novel",
            "model": "openai/gpt-novel",
            "why": "no sourced rate for openai/gpt-novel",
        }
    ]
    assert cert["tasks"]["novel"]["cost_usd"] is None
    assert cert["tasks"]["novel"]["output_tokens"] == 100  # still bounded in tokens
    assert cert["total"]["cost_usd"] == {"floor": 0.001, "ceiling": None}


def test_a_task_both_uncapped_and_unpriced_is_named_once_with_both_whys() -> None:
    cert = _certificate("t:\n  infer: { prompt: p, model: openai/gpt-novel }\n")
    assert cert["unpriced"] == []
    assert cert["unbounded"] == [
        {"task": "t", "why": "no max_tokens declared; and no sourced rate for openai/gpt-novel"}
    ]


def test_a_workflow_without_any_model_is_unpriced_not_free() -> None:
    cert = _certificate("t:\n  infer: { prompt: p, max_tokens: 9 }\n", head="")
    assert cert["unpriced"][0]["model"] is None
    assert "engine's default model" in cert["unpriced"][0]["why"]
    assert cert["total"]["cost_usd"]["ceiling"] is None


def test_tool_calls_are_counted_where_bounded() -> None:
    cert = _certificate(
        """\
        run:
          retry: { max_attempts: 2 }
          exec: { command: [echo, hi] }
        fetch:
          invoke: { tool: "nika:fetch", args: { url: "https://example.com" } }
        closed:
          agent: { prompt: p, tools: ["nika:done", "nika:compose"], max_tokens_total: 5 }
        open:
          agent: { prompt: p, tools: ["nika:fetch"], max_tokens_total: 5 }
        """
    )
    rows = cert["tasks"]
    assert [rows[t]["tool_calls"] for t in ("run", "fetch", "closed", "open")] == [2, 1, 0, None]
    assert "any number" in rows["open"]["why"]["tool_calls"]
    assert cert["total"]["tool_calls"] == {"floor": 3, "ceiling": None}
    assert rows["run"]["spend"] == "none" and rows["run"]["model_calls"] == 0


def test_the_certificate_json_is_deterministic() -> None:
    text = "nika: d\nmodel: openai/gpt-4o-mini\ntasks:\n" + "".join(
        f"  t{i}:\n    infer: {{ prompt: p, max_tokens: {i + 7} }}\n" for i in range(30)
    )
    first, second = check(text).to_json(), check(text).to_json()
    assert first == second
    cert = json.loads(first)["certificate"]
    assert list(cert["tasks"]) == sorted(cert["tasks"])  # canonical JSON sorts keys


def test_money_rounds_ceilings_up_and_floors_down() -> None:
    third = Bound.of(Fraction(1, 3_000_000))
    assert third.render(money=True) == 0.000001
    assert third.render(money=True, floor=True) == 0.0


def test_symbolic_bounds_add_and_multiply_like_polynomials() -> None:
    n, m = Bound.symbol("|n|"), Bound.symbol("m")
    poly = (Bound.of(2) + n) * (n + m) + Bound.of(3)
    assert poly.render() == "3 + 2 × m + m × |n| + 2 × |n| + |n| × |n|"
    assert poly.symbols == ("m", "|n|")
    assert (Bound() * n).is_zero and Bound.of(7).render() == 7


def test_nika_check_prints_the_plan_and_the_certificate() -> None:
    text = dedent(
        """\
        nika: human
        model: openai/gpt-4o
        permits: {}
        tasks:
          capped:
            infer: { prompt: p, max_tokens: 1000 }
          open:
            infer: { prompt: q }
        """
    )
    out = render_human(check(text), "h.yaml")
    assert "plan:\n  wave 1: capped, open\ncertificate:\n  terminates: yes" in out
    assert "output tokens ≥ 1000 (no ceiling: open)" in out
    assert "cost ≥ $0.01 (no ceiling: open)" in out
    assert "  no ceiling for open — no max_tokens declared" in out
    assert out.count("no ceiling for") == 1


def test_the_compose_teaching_example_passes_check_with_its_certificate() -> None:
    verdict = check(_EXAMPLE_15.read_bytes(), path=str(_EXAMPLE_15))
    assert verdict.valid, verdict.errors
    cert = verdict.to_dict()["certificate"]
    assert cert["terminates"] is True
    assert cert["tasks"]["draft"]["model_calls"] == 8
    assert cert["tasks"]["draft"]["tool_calls"] == 0  # done + compose grant no effect
    assert cert["total"]["cost_usd"] == {"floor": 0.0, "ceiling": 0.0}


def test_a_media_provider_of_the_wrong_type_is_a_shape_finding_not_a_crash() -> None:
    # issue 14: `provider: []` once raised TypeError (unhashable list) in this rung.
    verdict = check(
        'nika: c2\npermits: { tools: ["nika:image_generate"], fs: { write: ["out/**"] } }\n'
        "tasks:\n  g:\n    invoke:\n      tool: nika:image_generate\n"
        "      args: { provider: [], prompt: x, output_dir: out }\n"
    )
    assert [e.code for e in verdict.errors] == ["NIKA-BUILTIN-IMAGE_GENERATE-001"]
    assert "`provider: []` is a list" in verdict.errors[0].detail
