"""The check's mirror of the builtins' argument shapes agrees with their JSON Schemas.

The run validates every builtin call against the builtin's JSON Schema; the check reads
`nika.check._builtin_args` (it may not import the tools layer). Any drift between the two
would let `check` pass what `run` refuses, or refuse what `run` accepts.
"""

from __future__ import annotations

from typing import Any

import pytest

from nika.check._builtin_args import ARGS, OPEN, json_type
from nika.check._builtin_contracts import BUILTINS as CHECKED
from nika.tools.builtins import BUILTINS

_ENUM_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _types(prop: dict[str, Any]) -> tuple[str, ...] | None:
    kind = prop.get("type")
    if kind is None and "enum" in prop:
        return tuple(sorted({_ENUM_TYPES[type(v)] for v in prop["enum"]}))
    if kind is None:
        return None
    return tuple(sorted(kind)) if isinstance(kind, list) else (kind,)


def test_both_sides_know_the_same_builtins() -> None:
    assert set(ARGS) == set(CHECKED) == set(BUILTINS) | {"nika:compose", "nika:done"}


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_argument_names_and_types_match_the_runtime_schema(name: str) -> None:
    schema = BUILTINS[name].schema
    if name in OPEN:  # served by no plane here: the runtime schema is open
        assert "properties" not in schema and schema.get("additionalProperties") is not False
        return
    assert schema.get("additionalProperties") is False
    props = schema["properties"]
    assert set(ARGS[name]) == set(props)
    for arg, prop in props.items():
        mine = ARGS[name][arg]
        assert (tuple(sorted(mine)) if mine else None) == _types(prop), (name, arg)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, "null"),
        (True, "boolean"),
        (3, "integer"),
        (1.5, "number"),
        ("x", "string"),
        ("a ${{ inputs.x }}", "string"),
        ("${{ inputs.x }}", None),
        (" ${{ inputs.x }} ", None),
        ("${{ a }}${{ b }}", "string"),
        ("${{ x == '${{' }}", None),
        ("${{ )", None),
        ({}, "object"),
        ([], "array"),
    ],
)
def test_json_type_of_a_literal(value: Any, kind: str | None) -> None:
    assert json_type(value) == kind
