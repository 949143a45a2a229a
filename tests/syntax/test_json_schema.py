"""`schema_problem`: a `schema:` block judged against its draft's metaschema."""

from __future__ import annotations

import pytest

from nika.check import check
from nika.syntax.json_schema import schema_problem


@pytest.mark.parametrize(
    ("schema", "message", "pointer"),
    [
        ({"type": "objet"}, "'objet' is not valid under any of the given schemas", "/type"),
        ({"type": "object", "required": "a"}, "'a' is not of type 'array'", "/required"),
        (
            {"properties": {"n": {"type": "integer", "minimum": "zero"}}},
            "'zero' is not of type 'number'",
            "/properties/n/minimum",
        ),
    ],
)
def test_the_metaschemas_own_error_and_where(schema: dict, message: str, pointer: str) -> None:
    problem = schema_problem(schema)
    assert problem is not None
    assert (problem.message, problem.pointer) == (message, pointer)


def test_valid_templated_and_other_draft_schemas_pass() -> None:
    assert schema_problem({"type": "object", "properties": {"a": {"type": "string"}}}) is None
    assert schema_problem({"enum": "${{ const.levels }}"}) is None  # only the run can tell
    assert schema_problem({"enum": "${{ const.levels }}"}, resolved=True) is not None
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}
    assert schema_problem(draft7) is None


@pytest.mark.parametrize("verb", ["infer", "agent"])
def test_check_refuses_an_invalid_schema_block_with_its_error(verb: str) -> None:
    src = f"nika: w\ntasks:\n  t:\n    {verb}:\n      prompt: hi\n      schema: {{ type: objet }}\n"
    verdict = check(src)
    (error,) = verdict.errors
    assert error.code == "NIKA-PARSE-019" and error.category == "validation_error"
    assert "'objet' is not valid under any of the given schemas (at /type)" in error.detail
    assert error.location is not None and error.location.line == 6


def test_check_refuses_an_invalid_literal_schema_given_to_nika_validate() -> None:
    src = (
        "nika: w\ntasks:\n  t:\n    invoke:\n      tool: nika:validate\n"
        "      args: { data: 1, schema: { type: [integer, bogus] } }\n"
    )
    codes = {e.code for e in check(src).errors}
    assert "NIKA-BUILTIN-VALIDATE-001" in codes
