"""Build a task's failure armor (spec 03/05): `retry:`, `on_error:` and the `timeout:` duration."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, cast

from nika import codes
from nika.errors import CODE_RE
from nika.syntax._shape import Shape, show
from nika.syntax.keypath import KeyPath
from nika.syntax.model import TaskId
from nika.syntax.task_blocks import OnError, Retry

if TYPE_CHECKING:
    from nika.syntax.durations import Duration

_DEAD_ON_ERROR: Final = {
    "fallback": (
        codes.PARSE_012,
        "`fallback:` merged into `recover:` (a `${{ }}` ref or a literal)",
    ),
    "value": (codes.PARSE_012, "`value:` merged into `recover:` (a `${{ }}` ref or a literal)"),
    "fail_workflow": (
        codes.PARSE_012,
        "failing is the default: omit `on_error:` (a `#` comment can say so)",
    ),
}
_STRATEGIES: Final = ("fixed", "linear", "exponential")


def _codes(shape: Shape, raw: Any, at: KeyPath, what: str, code: str) -> tuple[str, ...]:
    if (
        not isinstance(raw, list)
        or not raw
        or not all(isinstance(c, str) and CODE_RE.match(c) for c in raw)
    ):
        shape.misfit(code, what, "a non-empty list of NIKA-<NS>-<NNN> codes", raw, at)
        return ()
    return tuple(raw)


def build_retry(shape: Shape, raw: Any, at: KeyPath, tid: TaskId) -> Retry | None:
    code = codes.PARSE_011
    if not shape.mapping(raw, at, f"`retry:` of task `{tid}`", code):
        return None
    before = len(shape.errors)
    fields = (
        "max_attempts",
        "backoff_ms",
        "backoff_strategy",
        "backoff_max_ms",
        "jitter",
        "on_codes",
    )
    shape.closed(raw, fields, at, f"`retry:` of task `{tid}`")
    if "max_attempts" not in raw:
        shape.report(code, f"`retry:` of task `{tid}` needs `max_attempts:` (an integer ≥ 1)", at)
        return None
    attempts = shape.integer(
        raw["max_attempts"], (*at, "max_attempts"), "`retry.max_attempts`", code, 1
    )
    backoff = shape.integer(
        raw.get("backoff_ms", 1000), (*at, "backoff_ms"), "`retry.backoff_ms`", code, 0
    )
    cap = shape.integer(
        raw.get("backoff_max_ms", 60000), (*at, "backoff_max_ms"), "`retry.backoff_max_ms`", code, 0
    )
    jitter = shape.boolean(raw.get("jitter", True), (*at, "jitter"), "`retry.jitter`", code)
    strategy = raw.get("backoff_strategy", "exponential")
    if strategy not in _STRATEGIES:
        shape.report(
            code,
            f"`retry.backoff_strategy` {show(strategy)} is not one of fixed, linear, exponential",
            (*at, "backoff_strategy"),
        )
    on_codes = (
        _codes(shape, raw["on_codes"], (*at, "on_codes"), "`retry.on_codes`", code)
        if "on_codes" in raw
        else ()
    )
    if (
        len(shape.errors) > before
        or attempts is None
        or backoff is None
        or cap is None
        or jitter is None
    ):
        return None
    return Retry(attempts, backoff, strategy, cap, jitter, on_codes)


def build_on_error(shape: Shape, raw: Any, at: KeyPath, tid: TaskId) -> OnError | None:
    code = codes.PARSE_012
    if not shape.mapping(raw, at, f"`on_error:` of task `{tid}`", code):
        return None
    if not shape.closed(
        raw,
        ("recover", "skip", "on_codes"),
        at,
        f"`on_error:` of task `{tid}`",
        dead=_DEAD_ON_ERROR,
    ):
        return None
    actions = [a for a in ("recover", "skip") if a in raw]
    if len(actions) != 1:
        shape.report(
            code,
            f"`on_error:` of task `{tid}` declares "
            f"{' and '.join(actions) or 'no action'}; exactly one of "
            "`recover: <value>` or `skip: true` is required",
            at,
        )
        return None
    if "skip" in raw and raw["skip"] is not True:
        shape.report(
            code,
            f"`on_error.skip` is {show(raw['skip'])}; write `skip: true` or remove `on_error:`",
            (*at, "skip"),
        )
        return None
    on_codes = (
        _codes(shape, raw["on_codes"], (*at, "on_codes"), "`on_error.on_codes`", code)
        if "on_codes" in raw
        else ()
    )
    if "on_codes" in raw and not on_codes:
        return None
    action = cast("Any", actions[0])
    return OnError(action, raw.get("recover"), on_codes)


def build_timeout(shape: Shape, raw: Any, at: KeyPath, tid: TaskId) -> Duration | None:
    if not isinstance(raw, str):
        shape.report(
            codes.PARSE_010,
            f"`timeout:` of task `{tid}` is {show(raw)}; "
            'it is a quoted Go duration such as "30s" or "1h30m"',
            at,
        )
        return None
    from nika.syntax.durations import DurationError, parse_duration  # with the first timeout

    try:
        return parse_duration(raw)
    except DurationError as exc:
        shape.report(codes.PARSE_010, f"`timeout:` of task `{tid}`: {exc}", at)
        return None
