"""One value rule per verb field resolved at run time (02 §fields).

A field such as `temperature:` or `schema:` is a literal in one workflow and a `${{ }}`
template in the next. Either way its VALUE obeys one rule, stated here once, and three
places hold a value to it with the same words:

- the builder judges a literal before anything runs (`literal_problem` → `NIKA-PARSE-019`);
- the runtime resolves a template and judges what it resolved to (`resolve` →
  `NIKA-VAR-006`, an evaluation error), in the one function every verb resolves through;
- `AgentSpec` holds a library caller's input to the same rule (`refuse` → `NIKA-PARSE-019`).

A rule with a `code` of its own refuses with it in every phase (a malformed `model:` is
`NIKA-PROVIDER-001` whether written or resolved, an empty program `NIKA-EXEC-002`), so the
check and the run agree. `RULES` lists every field a verb resolves: text fields take any
value (a non-string renders as text); `invoke.args` is judged by the tool it calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from nika import codes
from nika.errors import NikaError, task_error
from nika.syntax.template import stringify, walk_strings

Kind = Literal["number", "integer"]
LITERAL: Final = codes.PARSE_019
RESOLVED: Final = codes.VAR_006


class Rule(Protocol):
    """A field's value rule: what is wrong with a value (`"must be …"`), or None."""

    @property
    def code(self) -> str | None:
        """The rule's own code for every phase, or None for the phase's code."""
        ...

    def problem(self, value: Any) -> str | None: ...

    def value(self, resolved: Any) -> Any:
        """The value the verb uses, once it fits (text fields render as text)."""
        ...


@dataclass(frozen=True, slots=True)
class Bounded:
    """A number (never a bool) of `kind` within `low`..`high`."""

    kind: Kind
    low: float
    high: float | None = None
    code: str | None = None

    def problem(self, value: Any) -> str | None:
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

    def value(self, resolved: Any) -> Any:
        return resolved


@dataclass(frozen=True, slots=True)
class Text:
    """Any value, used as text (a non-string renders as text); `program`: not empty."""

    program: bool = False
    code: str | None = None

    def problem(self, value: Any) -> str | None:
        if self.program and not self.value(value).strip():
            return "must name a program (it is empty)"
        return None

    def value(self, resolved: Any) -> Any:
        return resolved if isinstance(resolved, str) else stringify(resolved)


@dataclass(frozen=True, slots=True)
class JsonSchema:
    """A JSON Schema object, valid against its draft's metaschema (`syntax.json_schema`)."""

    code: str | None = None

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, Mapping):
            return "must be a JSON Schema object (a map)"
        from nika.syntax.json_schema import schema_problem

        found = schema_problem(value, resolved=True)
        return None if found is None else f"is not a valid JSON Schema: {found}"

    def value(self, resolved: Any) -> Any:
        return resolved


@dataclass(frozen=True, slots=True)
class ModelName:
    """A `<provider>/<name>` string naming a catalogued provider (`syntax.providers`)."""

    code: str | None = codes.PROVIDER_001

    def problem(self, value: Any) -> str | None:
        from nika.syntax.providers import parse_model

        if not isinstance(value, str):
            return "must be a `<provider>/<name>` string"
        try:
            parse_model(value)
        except NikaError as exc:
            return f"is not a model this engine knows ({exc.detail})"
        return None

    def value(self, resolved: Any) -> Any:
        return resolved


TEMPERATURE: Final = Bounded("number", 0, 2)
POSITIVE: Final = Bounded("integer", 1)
TEXT: Final = Text()
SCHEMA: Final = JsonSchema()
MODEL: Final = ModelName()

RULES: Final[Mapping[str, Mapping[str, Rule]]] = {
    "infer": {
        "model": MODEL, "prompt": TEXT, "system": TEXT, "temperature": TEMPERATURE,
        "max_tokens": POSITIVE, "schema": SCHEMA,
    },
    "agent": {
        "model": MODEL, "prompt": TEXT, "system": TEXT, "temperature": TEMPERATURE,
        "max_turns": POSITIVE, "max_tokens_total": POSITIVE, "max_tokens": POSITIVE,
        "schema": SCHEMA,
    },
    "exec": {
        "command[0]": Text(program=True, code=codes.EXEC_002), "command": TEXT,
        "shell": TEXT, "cwd": TEXT, "env": TEXT, "stdin": TEXT,
    },
}  # fmt: skip
"""verb → field → rule, for every verb field the runtime resolves (`exec.command[0]` is the
program, `exec.command` each other element, `exec.env` each value)."""

SHAPED: Final[Mapping[str, tuple[str, ...]]] = {
    verb: tuple(name for name, rule in rules.items() if isinstance(rule, Bounded))
    for verb, rules in RULES.items()
}
"""The numeric knobs of each verb: the builder judges their literals through `literal_problem`."""


def is_template(value: Any) -> bool:
    """Does `value` (a field as written) hold a `${{ }}` island anywhere, to resolve at run?"""
    return any("${{" in text for _, text in walk_strings(value))


def literal_problem(verb: str, field: str, value: Any) -> str | None:
    """The builder's judgement of a literal field value (None for a template or a fit)."""
    rule = RULES[verb][field]
    return None if value is None or is_template(value) else rule.problem(value)


def resolve(verb: str, field: str, raw: Any, env: Mapping[str, Any], task: str) -> Any:
    """A field's value with its `${{ }}` resolved against `env`, held to the field's rule:
    the one place a verb field is resolved at run time (None stays None).

    Raises the rule's own code, else `NIKA-VAR-006`, naming the task, the field, the value
    and what it must be.
    """
    if raw is None:
        return None
    from nika.syntax.binding import interpolate  # the CEL/jq evaluator: only the run needs it

    rule = RULES[verb][field]
    value = interpolate(raw, env)
    problem = rule.problem(value)
    if problem is not None:
        raise task_error(
            rule.code or RESOLVED, task,
            f"`{verb}.{field}` resolved to {_show(value)}, but it {problem}; "
            "fix the value it is templated from (or write a literal)",
            field=f"{verb}.{field}",
        )
    return rule.value(value)


def refuse(verb: str, field: str, value: Any, task: str) -> None:
    """Hold an already-resolved value to its rule (`AgentSpec`: a library caller's input)."""
    rule = RULES[verb][field]
    problem = None if value is None else rule.problem(value)
    if problem is not None:
        raise NikaError(
            rule.code or LITERAL,
            f"{verb} task {task!r}: {field} is {_show(value)}, but it {problem} (omit it to "
            "use the default)",
            details={"task": task, "field": field},
        )


def _show(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
