"""`nika:validate` — JSON Schema validation of JSON or YAML data (VALIDATE-001..002).

Invalid DATA is a report (`{valid: false, errors}`), never a failure; only an invalid SCHEMA
(001) or unparseable YAML input (002) fails the task.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jsonschema
import yaml

from nika.syntax.json_schema import schema_problem
from nika.tools.builtins._base import Builtin, Context, fail, obj

VALIDATE_001 = "NIKA-BUILTIN-VALIDATE-001"
VALIDATE_002 = "NIKA-BUILTIN-VALIDATE-002"


def _pointer(parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _schema(value: Any) -> Any:
    """`schema:` as data: an object, or a JSON/YAML string (a nika:read of a schema file)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        pass
    try:
        return yaml.safe_load(value)
    except yaml.YAMLError as err:
        raise fail(
            VALIDATE_001,
            f"`schema:` is a string that parses as neither JSON nor YAML "
            f"({str(err).splitlines()[0]}); pass the schema object",
        ) from None


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """`{valid, errors: [{path, message}]}` with errors sorted by path then message."""
    schema = _schema(args["schema"])
    if not isinstance(schema, dict | bool):
        raise fail(
            VALIDATE_001,
            f"`schema:` is a {type(schema).__name__}; a JSON Schema is an object (or a boolean)",
        )
    cls = jsonschema.validators.validator_for(schema)
    # a boolean schema is valid by definition; an object is judged as the check judges it
    problem = schema_problem(schema, resolved=True) if isinstance(schema, dict) else None
    if problem is not None:
        raise fail(VALIDATE_001, f"`schema:` is not a valid JSON Schema: {problem}; fix the schema")
    data = args["data"]
    if args.get("format", "json") == "yaml":
        if not isinstance(data, str):
            raise fail(
                VALIDATE_002,
                "`format: yaml` expects `data:` to be a YAML string; pass "
                "the text (or drop `format:` to validate a value)",
            )
        try:
            data = yaml.safe_load(data)
        except yaml.YAMLError as err:
            raise fail(
                VALIDATE_002, f"`data:` does not parse as YAML: {str(err).splitlines()[0]}"
            ) from None
    errors = sorted(
        (
            {"path": _pointer(e.absolute_path), "message": e.message}
            for e in cls(schema).iter_errors(data)
        ),
        key=lambda e: (e["path"], e["message"]),
    )
    return {"valid": not errors, "errors": errors}


BUILTIN = Builtin(
    name="nika:validate",
    description=(
        "Validate `data` against a JSON Schema (`schema`: an object, or a JSON/YAML string). "
        "`format: yaml` parses a YAML string first. Returns {valid, errors: [{path, message}]}; "
        "invalid data is a report, not a failure."
    ),
    schema=obj(
        {
            "data": {"description": "The value to validate (a YAML string with format: yaml)."},
            "schema": {"type": ["object", "boolean", "string"]},
            "format": {"enum": ["json", "yaml"], "default": "json"},
        },
        ("data", "schema"),
    ),
    run=run,
)
