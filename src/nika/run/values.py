"""The evaluation environment of a run (04-variables): inputs, const, secrets, task records.

`bind_inputs` applies the launch contract (01 §inputs): `--var` values parse as JSON when
they parse and fit the declared type, else ride as the raw string; an undeclared key and a
missing required input are refused before the run. `TaskRecord` is one settled task as
`${{ tasks.X.* }}` reads it (`nika.journal.records`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from nika import codes
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
