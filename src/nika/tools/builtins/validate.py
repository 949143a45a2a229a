"""`nika:validate` — JSON Schema validation of JSON or YAML data (VALIDATE-001..002).

Invalid DATA is a report (`{valid: false, errors}`), never a failure; only an invalid SCHEMA
(001, judged by the declaration) or unparseable YAML input (002) fails the task.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema
import yaml

from nika import codes
from nika.stdlib.data import VALIDATE, read_schema
from nika.tools.builtins._base import Builtin, Context, fail


def _pointer(parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """`{valid, errors: [{path, message}]}` with errors sorted by path then message."""
    schema = read_schema(args["schema"])[0]  # a valid one: its declaration judged it
    cls = jsonschema.validators.validator_for(schema)
    data = args["data"]
    if args.get("format", "json") == "yaml":  # then `data:` is text (its declaration's rule)
        try:
            data = yaml.safe_load(data)
        except yaml.YAMLError as err:
            raise fail(
                codes.BUILTIN_VALIDATE_002,
                f"`data:` does not parse as YAML: {str(err).splitlines()[0]}",
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
    VALIDATE,
    description=(
        "Validate `data` against a JSON Schema (`schema`: an object, or a JSON/YAML string). "
        "`format: yaml` parses a YAML string first. Returns {valid, errors: [{path, message}]}; "
        "invalid data is a report, not a failure."
    ),
    run=run,
)
