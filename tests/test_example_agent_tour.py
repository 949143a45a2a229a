"""`make tour` (examples/agent_tour.py) runs offline and shows each mechanism doing what it says.

The tour checks its own claims (a step whose engine behaviour differs exits 1); this test runs
it the way `make tour` does and reads the screen for the facts a newcomer is told.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@cache
def _tour() -> str:
    env = {**os.environ, "COLUMNS": "100"}
    done = subprocess.run([sys.executable, "examples/agent_tour.py"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return re.sub(r"\n +", " ", done.stdout)  # unwrap the tour's wrapped lines


def test_every_step_names_its_model_and_the_tour_completes() -> None:
    out = _tour()
    for letter in "abcde":
        assert f"({letter}) " in out
    assert out.count("model: scripted model (nika.agent.fakes.ScriptedProvider") == 4
    assert "model: mock/echo, the spec's deterministic test model" in out
    assert out.rstrip().endswith("behaved as shown")


def test_routing_prints_the_offer_and_the_scores_of_two_turns() -> None:
    out = _tour()
    assert len(re.findall(r"turn [12]: offered 13 of 41 \(ranked\)", out)) == 2
    ranked = re.findall(r"ranked, best first: ((?:[a-z_/]+ \d+\.\d\d(?:, )?)+)", out)
    assert len(ranked) == 2 and all(len(r.split(", ")) == 12 for r in ranked)
    assert "not offered: 28 tools" in out


def test_the_guard_nudges_once_then_a_looping_model_is_stopped_with_evidence() -> None:
    out = _tour()
    assert "nudged (cycle, period 2, 3 repeats)" in out and "Progress check:" in out
    assert "nika:done → '2026-11-30'" in out
    assert re.search(r"NIKA-AGENT-006 \(budget_error, transient=False\) after 10 model calls "
                     r"of max_turns 20", out)
    assert re.search(r"signatures [0-9a-f]{16}, [0-9a-f]{16}", out)


def test_compose_finds_the_secret_flow_then_the_repair_is_valid_with_no_dispatch() -> None:
    out = _tour()
    assert "NIKA-SEC-006 security_error" in out and "output tokens ≤ unbounded" in out
    assert "valid: True" in out and "output tokens ≤ 400" in out
    assert "executor dispatches: 0" in out


def test_the_real_run_is_journaled_shown_and_rendered() -> None:
    out = _tour()
    assert "$ nika run examples/agent-tour.nika.yaml" in out
    assert re.search(r"offered 1\d of 26 \(ranked\)", out)
    assert "stalled period 1 · ×5" in out and "nudge cycle · period 1 · ×3" in out
    page = ROOT / "build" / "tour" / "agent-tour.html"
    assert page.is_file() and "class='turn" in page.read_text(encoding="utf-8")
