"""One value rule per verb field that may be written as a `${{ }}` template (02 §fields).

A knob such as `temperature:` is a literal in one workflow and a template in the next. Either
way its VALUE obeys one rule, stated here once: the builder judges a literal before anything
runs (`NIKA-PARSE-019`), the runtime judges the resolved value before the verb uses it
(`NIKA-VAR-006`, an evaluation error), and `AgentSpec` holds a library caller to the same rule
— the same words in all three. Text fields take any value (a non-string renders as text);
only fields whose value has a shape are listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from nika.errors import NikaError

Kind = Literal["number", "integer"]


@dataclass(frozen=True, slots=True)
class Rule:
    """A field's value rule: a number (never a bool) of `kind` within `low`..`high`."""

    kind: Kind
    low: float
    high: float | None = None

    def problem(self, value: Any) -> str | None:
        """What is wrong with `value` under this rule (`"must be …"`), or None."""
        wanted = (int,) if self.kind == "integer" else (int, float)
        fits = (
            not isinstance(value, bool)
            and isinstance(value, wanted)
            and value >= self.low
            and (self.high is None or value <= self.high)
        )
        return None if fits else f"must be {self.describe()}"

    def describe(self) -> str:
        """`a number in 0..2`, `an integer ≥ 1`."""
        noun = "an integer" if self.kind == "integer" else "a number"
        low = int(self.low) if self.kind == "integer" else self.low
        if self.high is None:
            return f"{noun} ≥ {low:g}"
        return f"{noun} in {low:g}..{self.high:g}"


TEMPERATURE: Final = Rule("number", 0, 2)
POSITIVE: Final = Rule("integer", 1)

RULES: Final[Mapping[str, Mapping[str, Rule]]] = {
    "infer": {"temperature": TEMPERATURE, "max_tokens": POSITIVE},
    "agent": {
        "temperature": TEMPERATURE,
        "max_turns": POSITIVE,
        "max_tokens_total": POSITIVE,
        "max_tokens": POSITIVE,
    },
}
"""verb → field → rule, for every shaped field a `${{ }}` may fill."""


def is_template(value: Any) -> bool:
    """Does `value` (a field as written) contain a `${{ }}` island to resolve at run time?"""
    return isinstance(value, str) and "${{" in value


def literal_problem(verb: str, field: str, value: Any) -> str | None:
    """The builder's judgement of a literal field value (None for a template or a fit)."""
    rule = RULES[verb][field]
    return None if value is None or is_template(value) else rule.problem(value)


def resolved(verb: str, field: str, value: Any, task: str) -> Any:
    """A field's value as its `${{ }}` resolved, held to the field's rule (None stays None).

    Raises `NIKA-VAR-006` naming the task, the field, the value and what it must be.
    """
    problem = None if value is None else RULES[verb][field].problem(value)
    if problem is not None:
        raise NikaError(
            "NIKA-VAR-006",
            f"task {task!r}: `{verb}.{field}` resolved to {_show(value)}, but it {problem}; "
            "fix the value it is templated from (or write a literal)",
            details={"task": task, "field": f"{verb}.{field}"},
        )
    return value


def refuse(verb: str, field: str, value: Any, task: str) -> None:
    """Hold an already-resolved value to its rule (`AgentSpec`: a library caller's input)."""
    problem = None if value is None else RULES[verb][field].problem(value)
    if problem is not None:
        raise NikaError(
            "NIKA-PARSE-019",
            f"{verb} task {task!r}: {field} is {_show(value)}, but it {problem} (omit it to "
            "use the default)",
            details={"task": task, "field": field},
        )


def _show(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
