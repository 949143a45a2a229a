"""Is a `schema:` block a JSON Schema at all? One judgment for check and run.

A `schema:` (the `infer:`/`agent:` structured-output hatch, `nika:validate`'s `schema:`)
is JSON Schema 2020-12 unless it names another draft in `$schema`. It is judged against
its draft's metaschema, and the refusal quotes the metaschema's own error and where it
sits (`'objet' is not valid under any of the given schemas` at `/type`). A block that
carries a `${{ }}` island is only known at run time, and is left to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nika.syntax.template import walk_strings


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """The metaschema's most relevant complaint and its JSON pointer in the schema."""

    message: str
    pointer: str

    def __str__(self) -> str:
        return f"{self.message} (at {self.pointer})"


def schema_problem(schema: Mapping[str, Any], *, resolved: bool = False) -> SchemaProblem | None:
    """Why `schema` is not a valid JSON Schema of its draft, or None when it is — or when,
    not yet `resolved` (the check), it carries a `${{ }}` island only the run can fill."""
    if not resolved and any("${{" in text for _, text in walk_strings(schema)):
        return None
    # Imported on use: most workflows carry no schema, and jsonschema is not a light import.
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import best_match

    try:
        cls = validators.validator_for(dict(schema), default=Draft202012Validator)
        error = best_match(cls(cls.META_SCHEMA).iter_errors(dict(schema)))
    except Exception as exc:  # a metaschema walk that breaks on odd input is still a refusal
        return SchemaProblem(f"the schema cannot be read ({type(exc).__name__}: {exc})", "/")
    if error is None:
        return None
    pointer = "".join(
        "/" + str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path
    )
    return SchemaProblem(error.message, pointer or "/")
