"""The shape of each builtin's `args:` — names and JSON types — as the builtins' JSON Schemas
declare them.

The run validates a call against the builtin's JSON Schema; the check cannot import the
tools layer, so it reads this mirror (`tests/check/test_builtin_args.py` pins the two
together). A literal value of the wrong YAML type is a shape finding here, before any
contract judges its value — so no judge ever meets a list where it expects a string. A
value that is one whole `${{ … }}` island may evaluate to any type: the run judges it.
The builtins this engine does not serve have an open runtime schema; their rows follow
stdlib/builtins-v0.1.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from nika.errors import NikaError
from nika.syntax.template import is_whole_island

ANY: Final = None
"""An argument the schema lists with no type constraint."""

STRING: Final = ("string",)
BOOLEAN: Final = ("boolean",)
INTEGER: Final = ("integer",)
OBJECT: Final = ("object",)
ARRAY: Final = ("array",)

Types = tuple[str, ...] | None

ARGS: Final[Mapping[str, Mapping[str, Types]]] = {
    "nika:assert": {"condition": BOOLEAN, "message": STRING},
    "nika:chart": {"data": ANY, "out": STRING, "chart": OBJECT},
    "nika:compose": {"workflow_yaml": STRING},
    "nika:convert": {
        "input": ANY,
        "from": STRING,
        "to": STRING,
        "has_header": BOOLEAN,
        "formula_guard": BOOLEAN,
    },
    "nika:date": {
        "op": STRING,
        "tz": STRING,
        "base": STRING,
        "duration": STRING,
        "input": STRING,
        "format": STRING,
        "start": STRING,
        "end": STRING,
        "unit": STRING,
    },
    "nika:decide": {"bundle": ("string", "object"), "evidence": ANY},
    "nika:done": {"result": ANY},
    "nika:edit": {"path": STRING, "find": STRING, "replace": STRING, "count": INTEGER},
    "nika:emit": {"event_type": STRING, "payload": ANY},
    "nika:fetch": {
        "url": STRING,
        "method": STRING,
        "headers": OBJECT,
        "body": ANY,
        "form": OBJECT,
        "multipart": ARRAY,
        "mode": STRING,
        "jq": STRING,
        "selector": STRING,
        "traverse": OBJECT,
    },
    "nika:glob": {"pattern": STRING, "exclude": ANY},
    "nika:grep": {"pattern": STRING, "path": STRING, "case_insensitive": BOOLEAN},
    "nika:hash": {
        "op": STRING,
        "content": ANY,
        "algo": STRING,
        "encoding": STRING,
        "key": STRING,
        "public_key": STRING,
        "signature": STRING,
    },
    "nika:image_fx": {"input": STRING, "out": STRING, "ops": ARRAY, "seed": INTEGER},
    "nika:image_generate": {
        "prompt": STRING,
        "output_dir": STRING,
        "provider": STRING,
        "model": STRING,
        "mode": STRING,
        "aspect_ratio": STRING,
        "quality": STRING,
        "format": STRING,
        "background": STRING,
        "n": INTEGER,
        "compression": INTEGER,
        "save": BOOLEAN,
        "image": STRING,
        "images": ARRAY,
        "mask": STRING,
        "reference_images": ANY,
    },
    "nika:inspect": {"view": STRING},
    "nika:jq": {"expression": STRING, "input": ANY},
    "nika:json_diff": {"before": ANY, "after": ANY},
    "nika:json_merge_patch": {"target": ANY, "patch": ANY},
    "nika:log": {"level": STRING, "message": ANY, "data": ANY},
    "nika:notify": {
        "channel": STRING,
        "target": STRING,
        "message": STRING,
        "severity": STRING,
        "data": ANY,
    },
    "nika:prompt": {"message": STRING, "mode": STRING, "default": ANY, "choices": ARRAY},
    "nika:read": {"path": STRING, "encoding": STRING, "binary": BOOLEAN},
    "nika:tts_generate": {
        "text": STRING,
        "provider": STRING,
        "model": STRING,
        "voice": STRING,
        "format": STRING,
        "speed": ("number",),
        "output_dir": STRING,
        "filename_prefix": STRING,
        "metadata": OBJECT,
        "manifest": BOOLEAN,
        "timeout_ms": INTEGER,
    },
    "nika:uuid": {"version": STRING},
    "nika:validate": {"data": ANY, "schema": ("object", "boolean", "string"), "format": STRING},
    "nika:wait": {"duration": STRING, "until": STRING, "timeout": STRING},
    "nika:write": {"path": STRING, "content": ANY, "create_dirs": BOOLEAN, "overwrite": BOOLEAN},
}

OPEN: Final = frozenset({"nika:chart", "nika:decide", "nika:image_fx", "nika:image_generate"})
"""Builtins whose argument list this engine does not close (it serves none of them)."""


def json_type(value: Any) -> str | None:
    """The JSON type of a literal YAML value; None when it is one whole `${{ … }}` island
    (its type is the run's to know)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        if "${{" not in value:
            return "string"
        try:
            return None if is_whole_island(value.strip()) else "string"
        except NikaError:
            return None  # malformed: the variables rung names it
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


_SPOKEN: Final = {
    "null": "null",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "object": "a map",
    "array": "a list",
}


def misfits(tool: str, args: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """`(arg, why)` for every unknown argument and every literal value of the wrong type."""
    declared = ARGS.get(tool)
    if declared is None:
        return
    names = ", ".join(sorted(declared))
    for key, value in args.items():
        if key not in declared:
            if tool not in OPEN:
                yield key, f"unknown arg `{key}:`; the args are {names} (remove or rename it)"
            continue
        want = declared[key]
        got = json_type(value)
        if want is None or got is None or got in want or (got == "integer" and "number" in want):
            continue
        spoken = " or ".join(_SPOKEN.get(w, w) for w in want)
        yield key, (
            f"`{key}: {_shown(value)}` is {_SPOKEN.get(got, got)}; `{key}:` of `{tool}` is "
            f"{spoken}"
        )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
