"""Data builtins: jq · json_diff · validate · json_merge_patch · convert · uuid · hash
(stdlib/builtins-v0.1 §Data; `nika:date` has its own module)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.errors import NikaError
from nika.stdlib._declare import Declaration, Problem, Rule
from nika.stdlib._shapes import BOOLEAN, OBJECT, anything, choice, obj, text

FORMATS: Final = ("json", "yaml", "toml", "csv")
HASH_OPS: Final[Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "hash": (("content",), ("algo", "encoding")),
    "sign": (("content", "key"), ("encoding",)),
    "verify": (("content", "public_key", "signature"), ("encoding",)),
}
"""`nika:hash`'s ops: the args each requires, and the ones it also takes (besides `op:`)."""

_SECRET_REF: Final = re.compile(r"^\$\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}$")


def jq_rule(arg: str) -> Rule:
    """The jq program in `arg` compiles and reads no ambient (`NIKA-VAR-005`, the code the
    run raises for it)."""
    def test(a: Mapping[str, Any]) -> Problem | None:
        from nika.syntax.binding import compile_jq

        if not isinstance(a.get(arg), str):
            return None
        try:
            compile_jq(a[arg])
        except NikaError as err:
            return Problem(f"`{arg}:`: {err.detail}", arg, err.code)
        return None

    return Rule(f"{arg}-compiles", (arg,), test)


JQ = Declaration("nika:jq", obj({
    "expression": text(minLength=1),
    "input": anything("Any JSON value (default null)."),
}, ("expression",)), rules=(jq_rule("expression"),))  # fmt: skip

JSON_DIFF = Declaration("nika:json_diff", obj({
    "before": anything("Any JSON value."),
    "after": anything("Any JSON value."),
}, ("before", "after")))  # fmt: skip


def read_schema(value: Any) -> tuple[Any, str | None]:
    """`nika:validate`'s `schema:` as data — an object or boolean, or a JSON/YAML string
    parsed — and what is wrong with it as a JSON Schema (None when nothing)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            import yaml

            try:
                value = yaml.safe_load(value)
            except yaml.YAMLError as err:
                return None, ("`schema:` is a string that parses as neither JSON nor YAML "
                              f"({str(err).splitlines()[0]}); pass the schema object")
    if isinstance(value, bool):
        return value, None  # a boolean schema is valid by definition
    if not isinstance(value, dict):
        return None, (f"`schema:` is a {type(value).__name__}; a JSON Schema is an object "
                      "(or a boolean)")
    from nika.syntax.json_schema import schema_problem

    problem = schema_problem(value, resolved=True)
    if problem is not None:
        return None, f"`schema:` is not a valid JSON Schema: {problem}; fix the schema"
    return value, None


def _schema_is_one(a: Mapping[str, Any]) -> Problem | None:
    problem = read_schema(a["schema"])[1]
    return None if problem is None else Problem(problem, "schema")


def _yaml_is_text(a: Mapping[str, Any]) -> Problem | None:
    if a.get("format") == "yaml" and not isinstance(a["data"], str):
        return Problem("`format: yaml` expects `data:` to be a YAML string; pass the text (or "
                       "drop `format:` to validate a value)", "data")
    return None


VALIDATE = Declaration("nika:validate", obj({
    "data": anything("The value to validate (a YAML string with format: yaml)."),
    "schema": {"type": ["object", "boolean", "string"]},
    "format": choice("json", "yaml", default="json"),
}, ("data", "schema")), rules=(
    Rule("schema-is-a-json-schema", ("schema",), _schema_is_one,
         code=codes.BUILTIN_VALIDATE_001),
    Rule("yaml-data-is-text", ("format", "data"), _yaml_is_text,
         code=codes.BUILTIN_VALIDATE_002),
))  # fmt: skip

_MERGE: Final = codes.BUILTIN_JSON_MERGE_PATCH_001
JSON_MERGE_PATCH = Declaration("nika:json_merge_patch", obj({
    "target": {**OBJECT, "description": "The object to patch."},
    "patch": {**OBJECT, "description": "The merge patch (a null value deletes its key)."},
}, ("target", "patch")), codes={"target": _MERGE, "patch": _MERGE})  # fmt: skip


def _not_identity(a: Mapping[str, Any]) -> Problem | None:
    if a["from"] == a["to"]:
        return Problem(f"`from:` and `to:` are both {a['from']}; an identity conversion is an "
                       "authoring bug — drop the task or change `to:`", "to")
    return None


CONVERT = Declaration("nika:convert", obj({
    "input": anything("Text in `from` format, or the structured value."),
    "from": choice(*FORMATS),
    "to": choice(*FORMATS),
    "has_header": {**BOOLEAN, "default": True},
    "formula_guard": {**BOOLEAN, "default": False},
}, ("input", "from", "to")), rules=(
    Rule("not-an-identity", ("from", "to"), _not_identity, code=codes.BUILTIN_CONVERT_001),
))  # fmt: skip

UUID = Declaration("nika:uuid", obj({"version": choice("v4", "v7", default="v7")}))


def _op_takes(a: Mapping[str, Any]) -> Problem | None:
    op = a.get("op", "hash")
    required, optional = HASH_OPS[op]
    extra = [k for k in a if k not in ("op", *required, *optional)]
    if extra:
        return Problem(f"unknown arg `{extra[0]}:` under `op: {op}`; the args are "
                       f"{', '.join(sorted(('op', *required, *optional)))} (remove or rename "
                       "it)", extra[0])
    return None


def _op_needs(a: Mapping[str, Any]) -> Problem | None:
    op = a.get("op", "hash")
    missing = [k for k in HASH_OPS[op][0] if k not in a]
    return Problem(f"`op: {op}` needs `{missing[0]}:`") if missing else None


def _key_is_a_secret(a: Mapping[str, Any]) -> Problem | None:
    key = a.get("key")
    if a.get("op") == "sign" and key is not None and not (
            isinstance(key, str) and _SECRET_REF.match(key)):
        return Problem("`key:` must be exactly a `${{ secrets.NAME }}` reference — a private key "
                       "rides `secrets:`", "key")
    return None


HASH = Declaration("nika:hash", obj({
    "op": choice(*HASH_OPS, default="hash"),
    "content": anything("A string, bytes, or JSON data (hashed as compact JSON)."),
    "algo": choice("blake3", "sha256", "sha512", default="blake3"),
    "encoding": choice("hex", "base64", default="hex"),
    "key": text(),
    "public_key": text(),
    "signature": text(),
}, ("content",)), rules=(
    Rule("op-takes-its-args", ("op",), _op_takes),
    Rule("op-needs-its-args", ("op",), _op_needs),
    Rule("key-is-a-secret", ("op",), _key_is_a_secret, source=True),
), code=codes.BUILTIN_HASH_001)  # fmt: skip

DECLARATIONS: Final = (JQ, JSON_DIFF, VALIDATE, JSON_MERGE_PATCH, CONVERT, UUID, HASH)
