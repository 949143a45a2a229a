"""The evaluation environment of a run (04-variables): inputs, const, secrets, task records.

`bind_inputs` applies the launch contract (01 §inputs): `--var` values parse as JSON when
they parse and fit the declared type, else ride as the raw string; an undeclared key and a
missing required input are refused before the run. `TaskRecord` is one settled task as
`${{ tasks.X.* }}` reads it — the closed projection set of 04 plus the `extract:` bindings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from nika import codes
from nika.check.graph import Status
from nika.errors import NikaError
from nika.syntax.declarations import ConstDecl, InputDecl
from nika.syntax.typefit import conforms
from nika.syntax.types import render

MISSING_INPUT: Final = codes.INPUT_001
UNKNOWN_INPUT: Final = codes.INPUT_002
MISFIT_INPUT: Final = codes.INPUT_003
ENV_PREFIX: Final = "@env:"


def parse_var(text: str) -> tuple[str, str]:
    """Split one `--var key=value` argument; a missing `=` is refused."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        # `--var =3` has a value and no name: the name goes before the `=`.
        example = f"<input>={value}" if sep else f"{text or 'name'}=<value>"
        raise NikaError(
            UNKNOWN_INPUT,
            f"--var {text!r} is not `key=value`; write it as --var {example}",
            details={"var": text},
        )
    return key.strip(), value


def bind_inputs(
    decls: Mapping[str, InputDecl], supplied: Mapping[str, Any], environ: Mapping[str, str]
) -> dict[str, Any]:
    """The `inputs` namespace for a launch; refusals name the declared set and the fix.

    A string is launch text (`--var`: JSON when it parses and fits, else the string); any
    other value (a parent workflow's typed args) must already fit the declared type."""
    unknown = sorted(set(supplied) - set(decls))
    if unknown:
        declared = ", ".join(sorted(decls)) or "(none)"
        raise NikaError(
            UNKNOWN_INPUT,
            f"--var {unknown[0]!r} names no declared input (declared: {declared}); fix the "
            "name, or declare it under `inputs:`",
            details={"unknown": unknown, "declared": sorted(decls)},
        )
    out: dict[str, Any] = {}
    for name, decl in decls.items():
        if name in supplied:
            out[name] = _coerce(decl, supplied[name], environ)
        elif decl.has_default:
            out[name] = decl.default
        elif decl.required:
            raise NikaError(
                MISSING_INPUT,
                f"input {name!r} is required and was not supplied; pass --var {name}=<value> "
                f"(type {render(decl.type)})",
                details={"input": name},
            )
        else:
            out[name] = None
    return out


def _coerce(decl: InputDecl, raw: Any, environ: Mapping[str, str]) -> Any:
    if not isinstance(raw, str):
        if conforms(raw, decl.type):
            return raw
        raise _misfit(decl, raw)
    if raw.startswith(ENV_PREFIX):
        var = raw[len(ENV_PREFIX):]
        if var not in environ:
            raise NikaError(
                MISSING_INPUT,
                f"input {decl.name!r} reads the environment variable {var!r}, which is not set; "
                f"export it or pass the value directly",
                details={"input": decl.name, "env": var},
            )
        raw = environ[var]
    try:
        parsed: Any = json.loads(raw)
    except ValueError:
        parsed = raw
    if conforms(parsed, decl.type):
        return parsed
    if conforms(raw, decl.type):
        return raw
    raise _misfit(decl, raw)


def _misfit(decl: InputDecl, raw: Any) -> NikaError:
    return NikaError(
        MISFIT_INPUT,
        f"input {decl.name!r} is declared {render(decl.type)} but was given "
        f"{str(raw)[:60]!r}; pass a value of the declared type",
        details={"input": decl.name, "type": render(decl.type)},
    )


def const_values(decls: Mapping[str, ConstDecl]) -> dict[str, Any]:
    """The `const` namespace: each constant's value (typed constants already checked)."""
    return {name: decl.value for name, decl in decls.items()}


def rfc3339(ns: int | None) -> str | None:
    """A unix-nanosecond instant as an RFC 3339 UTC timestamp (millisecond precision)."""
    if ns is None:
        return None
    stamp = datetime.fromtimestamp(ns / 1e9, tz=UTC)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def error_record(error: NikaError, task: str, attempt: int) -> dict[str, Any]:
    """A typed error as expressions read it (05 §error structure)."""
    return {
        "code": error.code,
        "category": error.category,
        "message": error.detail,
        "transient": error.transient,
        "details": dict(error.details),
        "task_id": task,
        "attempt": attempt,
    }


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One settled task. `error` survives on `skipped` only through `on_error: skip`."""

    task: str
    status: Status
    output: Any = None
    error: NikaError | None = None
    attempts: int = 0
    started_at: int | None = None
    ended_at: int | None = None
    duration_ms: int = 0
    bindings: Mapping[str, Any] = field(default_factory=dict)
    view: Mapping[str, Any] = field(default_factory=dict, compare=False)
    recovered_from: Mapping[str, Any] | None = None
    """On a success `on_error: recover` settled: the original error (13 §payload), as
    `error_record` shapes it — code, category, message, transient, details, task_id, attempt."""

    @classmethod
    def settle(
        cls,
        task: str,
        status: Status,
        *,
        output: Any = None,
        error: NikaError | None = None,
        attempts: int = 0,
        started_at: int | None = None,
        ended_at: int | None = None,
        bindings: Mapping[str, Any] | None = None,
        recovered_from: Mapping[str, Any] | None = None,
    ) -> TaskRecord:
        """Build the record and its `tasks.X` projection once (reads are then O(1))."""
        duration = (
            max(0, (ended_at - started_at) // 1_000_000)
            if started_at is not None and ended_at is not None
            else 0
        )
        bound = dict(bindings or {})
        value = output if status == "success" else None
        # The projection: defined-null reads (04) — no value unless the task succeeded.
        view: dict[str, Any] = {name: v if status == "success" else None
                                for name, v in bound.items()}
        view.update(
            output=value,
            status=status,
            # Readable on failure, and on the skip that preserved it (05 §Fields); a
            # cancelled task's reason stays in the report, never in expressions (04).
            error=error_record(error, task, attempts)
            if error is not None and status in ("failure", "skipped") else None,
            started_at=rfc3339(started_at),
            ended_at=rfc3339(ended_at),
            duration_ms=duration,
        )
        return cls(task, status, value, error, attempts, started_at, ended_at, duration,
                   bound, view, recovered_from if status == "success" else None)
