"""Core and introspection builtins: log · emit · assert · prompt · done · wait · compose ·
inspect (stdlib/builtins-v0.1 §Core, §Introspection)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.stdlib._declare import Declaration, Problem, Rule
from nika.stdlib._shapes import BOOLEAN, anything, choice, obj, text

LOOP_ARGS: Final = codes.INVOKE_002
"""A loop-served builtin's args come from the model, never from the file (a standalone
`invoke:` of one is refused whatever its args): a misfit is the generic tool-args code."""

NO_CAP: Final = 10**30
"""`timeout:`'s 24h ceiling is not a wait's: a wait may span days."""

EVENT_TYPE: Final = "^[a-z][a-z0-9_.-]*$"
VIEWS: Final = ("cost", "records", "dag_info", "threads")

LOG = Declaration("nika:log", obj({
    "level": choice("debug", "info", "warn", "error", default="info"),
    "message": anything("The log line (non-strings are rendered as JSON)."),
    "data": anything("Optional structured context (any JSON value)."),
}, ("message",)))  # fmt: skip

EMIT = Declaration("nika:emit", obj({
    "event_type": text(pattern=EVENT_TYPE),
    "payload": anything("Any JSON value."),
}, ("event_type",)), code=codes.BUILTIN_EMIT_001)  # fmt: skip

ASSERT = Declaration("nika:assert", obj({
    "condition": BOOLEAN,
    "message": text(),
}, ("condition",)))  # fmt: skip


def _choices_given(a: Mapping[str, Any]) -> Problem | None:
    choices = a.get("choices")
    if a.get("mode") == "choice" and not isinstance(choices, str) and not choices:
        return Problem("`mode: choice` needs a non-empty `choices:` list", "choices")
    return None  # a string here is a template (or the schema's finding)


def _default_chosen(a: Mapping[str, Any]) -> Problem | None:
    choices = a.get("choices")
    if a.get("mode") == "choice" and "default" in a and isinstance(choices, list) \
            and choices and a["default"] not in choices:
        return Problem(f"`default: {a['default']!r}` is not one of `choices:`; pick a default "
                       "from the list", "default")
    return None


def _default_fits(a: Mapping[str, Any]) -> Problem | None:
    mode, default = a.get("mode", "confirm"), a.get("default")
    if "default" not in a or mode == "choice":
        return None
    if mode == "confirm" and not isinstance(default, bool):
        return Problem(f"`default: {default!r}` of a confirm prompt must be true or false",
                       "default")
    if mode == "input" and not isinstance(default, str):
        return Problem(f"`default: {default!r}` of an input prompt must be a string", "default")
    return None


PROMPT = Declaration("nika:prompt", obj({
    "message": text(minLength=1),
    "mode": choice("confirm", "input", "choice", default="confirm"),
    "default": anything("The answer when no human can answer."),
    "choices": {"type": "array", "minItems": 1},
}, ("message",)), rules=(
    Rule("choice-needs-choices", ("mode",), _choices_given),
    Rule("default-among-choices", ("mode", "choices", "default"), _default_chosen,
         code=codes.BUILTIN_PROMPT_002),
    Rule("default-fits-the-mode", ("mode", "default"), _default_fits),
))  # fmt: skip

DONE = Declaration("nika:done", obj({
    "result": anything("The task's final answer (optional)."),
}), code=LOOP_ARGS)  # fmt: skip

COMPOSE = Declaration("nika:compose", obj({
    "workflow_yaml": text(description="The complete workflow YAML draft."),
}, ("workflow_yaml",)), code=LOOP_ARGS)  # fmt: skip

INSPECT = Declaration("nika:inspect", obj({"view": choice(*VIEWS)}, ("view",)),
                      code=codes.BUILTIN_INSPECT_001)


def _one_mode(a: Mapping[str, Any]) -> Problem | None:
    modes = [k for k in ("duration", "until") if k in a]
    if len(modes) == 1:
        return None
    return Problem('set exactly one of `duration:` (relative, e.g. "30s") or `until:` (an ISO '
                   "8601 timestamp)" + (" — both are set" if modes else ""))


def _timeout_caps_until(a: Mapping[str, Any]) -> Problem | None:
    if "timeout" in a and "until" not in a:
        return Problem("`timeout:` caps an absolute wait and needs `until:`", "timeout")
    return None


def _duration(key: str) -> Rule:
    def test(a: Mapping[str, Any]) -> Problem | None:
        from nika.syntax.durations import DurationError, parse_duration

        if key not in a:
            return None
        try:
            parse_duration(a[key], max_ns=NO_CAP)
        except DurationError as exc:
            return Problem(f"`{key}:` {exc}", key)
        return None

    return Rule(f"{key}-parses", (key,), test)


def _until_is_an_instant(a: Mapping[str, Any]) -> Problem | None:
    if "until" in a and not iso_instant(a["until"]):
        return Problem(f'`until: {a["until"]!r}` is not an ISO 8601 timestamp; write e.g. '
                       '"2026-05-23T09:00:00Z"', "until")
    return None


def iso_instant(text: str) -> bool:
    """Does `text` parse as an ISO 8601 timestamp (`datetime.fromisoformat`)?"""
    from datetime import datetime  # only a workflow with a literal timestamp pays for it

    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


WAIT = Declaration("nika:wait", obj({
    "duration": text(description='A Go duration, e.g. "30s" or "1h30m".'),
    "until": text(description="An ISO 8601 timestamp."),
    "timeout": text(description="A Go duration capping an absolute wait."),
}), rules=(
    Rule("exactly-one-mode", (), _one_mode, code=codes.BUILTIN_WAIT_003),
    Rule("timeout-caps-until", (), _timeout_caps_until),
    _duration("duration"),
    _duration("timeout"),
    Rule("until-is-an-instant", ("until",), _until_is_an_instant),
))  # fmt: skip

DECLARATIONS: Final = (LOG, EMIT, ASSERT, PROMPT, DONE, WAIT, COMPOSE, INSPECT)
