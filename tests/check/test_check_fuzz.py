"""Bad input never escapes `check()`: random and mutated YAML always yields a Verdict.

Mutations start from the spec's example workflows and the conformance sample; a crash
inside the engine would surface as `NIKA-IMPL-001`, which these tests also refuse (a crash
is a bug), and every code a verdict carries must be in the registry. The seeded structural
mutator (`_mutator.py`, also behind `bench/fuzz_check.py` for 100,000+ cases) puts values
of the wrong YAML type where the rungs read them.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.check._mutator import SHARED, case

from nika.check import check
from nika.check.verdict import Verdict
from nika.codes import CODES

_EXAMPLES = SHARED / "nika-spec" / "examples"
_SEEDS = sorted(
    p.read_text(encoding="utf-8") for p in _EXAMPLES.glob("*.nika.yaml") if p.stat().st_size < 6000
)
_SEEDS = _SEEDS or ["nika: hello\ntasks:\n  greet:\n    infer: { prompt: hi }\n"]
_TOKENS = [
    "nika:",
    "tasks:",
    "infer:",
    "exec:",
    "invoke:",
    "agent:",
    "with:",
    "after:",
    "when:",
    "for_each:",
    "retry:",
    "on_error:",
    "timeout:",
    "returns:",
    "${{",
    "}}",
    "${{ tasks.a.output }}",
    "&a",
    "*a",
    "<<:",
    "!!str",
    "- ",
    ": ",
    "{",
    "}",
    "[",
    "]",
    "'",
    '"',
    "\t",
    "\n",
    "  ",
    "#",
    "null",
    "~",
    "1e999",
    ".nan",
    "\ufeff",
    "é",
    "\u0301",
]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(_SEEDS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.integers(0, 5))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == 0 and len(lines) > 1:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[draw(st.integers(0, len(lines) - 1))])
        elif op == 2:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            line = lines[i]
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k] + draw(st.sampled_from(_TOKENS)) + line[k:]
        elif op == 4:
            lines[i] = " " * draw(st.integers(0, 6)) + lines[i].lstrip()
        else:
            lines = lines[: i + 1]
    return "\n".join(lines)


_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=10), st.sampled_from(_TOKENS)
)
_data = st.recursive(
    _scalar,
    lambda kids: st.one_of(
        st.lists(kids, max_size=3),
        st.dictionaries(st.sampled_from(_TOKENS + ["a", "b"]), kids, max_size=4),
    ),
    max_leaves=15,
)
_random = st.one_of(
    st.text(max_size=200),
    _data.map(lambda d: json.dumps({"nika": "x", "tasks": d})),
    st.lists(st.sampled_from(_TOKENS + ["a", "b", "x"]), max_size=40).map("".join),
    st.binary(max_size=60),
)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated(), _random))
def test_every_input_yields_a_verdict(source: str | bytes) -> None:
    verdict = check(source)
    assert isinstance(verdict, Verdict)
    assert verdict.valid == (not verdict.errors)
    _sound(verdict)


def _sound(verdict: Verdict) -> None:
    assert isinstance(verdict, Verdict)
    assert verdict.valid == (not verdict.errors)
    crashes = [e.detail for e in verdict.errors if e.code == "NIKA-IMPL-001"]
    assert not crashes, crashes
    unregistered = {e.code for e in [*verdict.errors, *verdict.hints]} - set(CODES)
    assert not unregistered, unregistered
    verdict.to_json()


MUTATIONS = 2_000
"""The budget in `make test` (a few seconds); `bench/fuzz_check.py` runs 100,000+."""


def test_seeded_mutations_of_real_workflows_never_crash_a_rung() -> None:
    rng = random.Random(14)
    for _ in range(MUTATIONS):
        name, source = case(rng)
        try:
            verdict = check(source, path=str(SHARED / name))
        except Exception as exc:  # the contract: check() never raises
            raise AssertionError(f"check() raised on a mutation of {name}:\n{source}") from exc
        _sound(verdict)
