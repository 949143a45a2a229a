"""The static argument contracts of the 28 builtins, as small judge functions.

Each contract receives the literal `args:` mapping and a `report(code, detail, key)`
callback. Values carrying a `${{ … }}` island are skipped: only what the file states
literally is judged here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from nika.syntax import date_args, fetch_args
from nika.syntax.durations import DurationError, parse_duration
from nika.syntax.json_schema import schema_problem

Report = Callable[[str, str, str | None], None]
Contract = Callable[[Mapping[str, Any], Report], None]

BUILTINS: Final = frozenset(
    {
        "nika:assert",
        "nika:chart",
        "nika:compose",
        "nika:convert",
        "nika:date",
        "nika:decide",
        "nika:done",
        "nika:edit",
        "nika:emit",
        "nika:fetch",
        "nika:glob",
        "nika:grep",
        "nika:hash",
        "nika:image_fx",
        "nika:image_generate",
        "nika:inspect",
        "nika:jq",
        "nika:json_diff",
        "nika:json_merge_patch",
        "nika:log",
        "nika:notify",
        "nika:prompt",
        "nika:read",
        "nika:tts_generate",
        "nika:uuid",
        "nika:validate",
        "nika:wait",
        "nika:write",
    }
)
"""The closed v0.1 builtin set (stdlib/builtins-v0.1.md)."""

EFFECTFUL: Final = frozenset(
    {
        "nika:chart", "nika:edit", "nika:fetch", "nika:glob", "nika:grep", "nika:image_fx",
        "nika:image_generate", "nika:notify", "nika:read", "nika:tts_generate", "nika:write",
    }
)  # fmt: skip
"""Builtins whose catalog row declares an fs/net/tools requirement (canon/builtins.yaml)."""

B = "NIKA-BUILTIN-001"
_SECRET_REF: Final = re.compile(r"^\$\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}$")
_NO_CAP: Final = 10**30  # the 24h ceiling is `timeout:`'s; a wait may legitimately span days
_EVENT_TYPE: Final = re.compile(r"^[a-z][a-z0-9_.-]*$")


def _literal(value: Any) -> bool:
    """True when nothing in `value` is a `${{ … }}` island (so it can be judged now)."""
    if isinstance(value, str):
        return "${{" not in value
    if isinstance(value, Mapping):
        return all(_literal(v) for v in value.values())
    if isinstance(value, list):
        return all(_literal(v) for v in value)
    return True


def _required(args: Mapping[str, Any], names: Iterable[str], report: Report, code: str = B) -> None:
    for name in names:
        if name not in args:
            report(code, f"missing required arg `{name}:`", None)


def _closed(
    args: Mapping[str, Any], allowed: Iterable[str], report: Report, code: str = B, scope: str = ""
) -> None:
    allowed = frozenset(allowed)
    names = ", ".join(sorted(allowed))
    for key in args:
        if key not in allowed:
            report(
                code,
                f"unknown arg `{key}:`{scope}; the args are {names} (remove or rename it)",
                key,
            )


def _enum(
    args: Mapping[str, Any], key: str, values: Iterable[Any], report: Report, code: str = B
) -> None:
    if key in args and _literal(args[key]) and args[key] not in tuple(values):
        report(code, f"`{key}: {args[key]!r}` is not one of {', '.join(map(str, values))}", key)


def _int_range(args: Mapping[str, Any], key: str, lo: int, hi: int | None, report: Report) -> None:
    value = args.get(key)
    if key not in args or not _literal(value):
        return
    ok = (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= lo
        and (hi is None or value <= hi)
    )
    if not ok:
        span = f"{lo}..={hi}" if hi is not None else f"≥ {lo}"
        report(B, f"`{key}: {value!r}` must be an integer in {span}", key)


def _bool(args: Mapping[str, Any], key: str, report: Report) -> None:
    if key in args and _literal(args[key]) and not isinstance(args[key], bool):
        report(B, f"`{key}: {args[key]!r}` must be true or false", key)


def _log(a: Mapping[str, Any], r: Report) -> None:
    _required(a, ("message",), r)
    _enum(a, "level", ("debug", "info", "warn", "error"), r)


def _emit(a: Mapping[str, Any], r: Report) -> None:
    _required(a, ("event_type",), r)
    _closed(a, ("event_type", "payload"), r)
    et = a.get("event_type")
    if isinstance(et, str) and _literal(et) and not _EVENT_TYPE.match(et):
        r(B, f"`event_type: {et!r}` must match ^[a-z][a-z0-9_.-]*$", "event_type")


def _assert(a: Mapping[str, Any], r: Report) -> None:
    _required(a, ("condition",), r)
    _closed(a, ("condition", "message"), r)


def _prompt(a: Mapping[str, Any], r: Report) -> None:
    _required(a, ("message",), r)
    _closed(a, ("message", "mode", "default", "choices"), r)
    _enum(a, "mode", ("confirm", "input", "choice"), r)
    if a.get("mode") != "choice":
        return
    choices = a.get("choices")
    if not isinstance(choices, list) or not choices:
        r(B, "`mode: choice` needs a non-empty `choices:` list", "choices")
    elif (
        "default" in a
        and _literal(choices)
        and _literal(a["default"])
        and a["default"] not in choices
    ):
        r(
            "NIKA-BUILTIN-PROMPT-002",
            f"`default: {a['default']!r}` is not one of `choices:`",
            "default",
        )


def _done(a: Mapping[str, Any], r: Report) -> None:
    _closed(a, ("result",), r)


def _wait(a: Mapping[str, Any], r: Report) -> None:
    _closed(a, ("duration", "until", "timeout"), r)
    modes = [k for k in ("duration", "until") if k in a]
    if len(modes) != 1:
        r(
            "NIKA-BUILTIN-WAIT-003",
            "exactly one of `duration:` (relative) or `until:` (absolute) is required"
            + (" — both are set" if modes else ""),
            None,
        )
    if "timeout" in a and "until" not in a:
        r(B, "`timeout:` caps an absolute wait and needs `until:`", "timeout")
    for key in ("duration", "timeout"):
        value = a.get(key)
        if isinstance(value, str) and _literal(value):
            try:
                parse_duration(value, max_ns=_NO_CAP)
            except DurationError as exc:
                r(B, f"`{key}:` {exc}", key)


def _fetch(a: Mapping[str, Any], r: Report) -> None:
    _required(a, ("url",), r)
    _closed(
        a,
        (
            "url",
            "method",
            "headers",
            "body",
            "form",
            "multipart",
            "mode",
            "jq",
            "selector",
            "traverse",
        ),
        r,
    )
    _enum(a, "method", fetch_args.METHODS, r)
    _enum(a, "mode", fetch_args.EXTRACT_MODES, r)
    method = a.get("method", "GET")
    payloads = [k for k in fetch_args.PAYLOADS if k in a]
    if len(payloads) > 1:
        r(B, f"at most one of body/form/multipart, got {' and '.join(payloads)}", payloads[1])
    for key in payloads:
        if key != "body" and _literal(method) and method not in fetch_args.BODY_METHODS:
            r(
                B,
                f"`{key}:` needs a body-bearing method (POST, PUT, PATCH); the method is {method}",
                key,
            )
    mode = a.get("mode", "markdown")
    if "jq" in a and mode != "jq":
        r(B, f"`jq:` applies only with `mode: jq` (the mode is {mode})", "jq")
    if mode == "jq" and "jq" not in a and "traverse" not in a:
        r(B, "`mode: jq` needs a `jq:` expression", "mode")
    if mode == "selector" and "selector" not in a:
        r(B, "`mode: selector` needs a `selector:` CSS selector", "mode")
    if "selector" in a and _literal(mode) and mode != "selector":
        r(B, f"`selector:` applies only with `mode: selector` (the mode is {mode})", "selector")
    if "multipart" in a:
        _multipart(a["multipart"], r)
    if "traverse" in a:
        _traverse(a, method, r)


def _multipart(parts: Any, r: Report) -> None:
    """Each part is text `{name, value}` XOR file `{name, path, filename?, content_type?}`."""
    if isinstance(parts, str) and not _literal(parts):
        return  # one `${{ }}` for the whole list: judged at run
    most = fetch_args.MAX_PARTS
    if not isinstance(parts, list):
        r(B, "`multipart:` is a list of `{name, value}` or `{name, path}` parts", "multipart")
        return
    if len(parts) > most:
        r(B, f"`multipart:` has {len(parts)} parts; the cap is {most}", "multipart")
    for i, part in enumerate(parts):
        where = f"`multipart[{i}]`"
        if isinstance(part, str) and not _literal(part):
            continue
        if not isinstance(part, Mapping):
            r(B, f"{where} is a `{{name, value}}` or `{{name, path}}` map", "multipart")
            continue
        kinds = [k for k in ("value", "path") if k in part]
        if len(kinds) != 1:
            fix = "split it into two parts" if kinds else "add the one it carries"
            got = "both `value:` and `path:`" if kinds else "neither `value:` nor `path:`"
            r(
                B,
                f"{where} has {got}; a part is text (`value:`) XOR a file (`path:`) — {fix}",
                "multipart",
            )
            continue
        kind = "file" if kinds == ["path"] else "text"
        allowed = fetch_args.MULTIPART_FILE if kind == "file" else fetch_args.MULTIPART_TEXT
        extra = sorted(str(k) for k in part if k not in allowed)
        if extra:
            r(
                B,
                f"{where}: unknown key(s) {', '.join(extra)} for a {kind} part; its keys are "
                f"{', '.join(allowed)}",
                "multipart",
            )
        if "name" not in part:
            r(B, f"{where} needs a `name:` (the form field)", "multipart")


def _traverse(a: Mapping[str, Any], method: Any, r: Report) -> None:
    t, most = a["traverse"], fetch_args.MAX_PAGES
    if not isinstance(t, Mapping):
        r(B, f"`traverse:` is `{{ max_pages: 1..={most}, respect_robots?: bool }}`", "traverse")
        return
    _closed(t, ("max_pages", "respect_robots"), r)
    if "max_pages" not in t:
        r(B, f"`traverse.max_pages` is required (1..={most})", "traverse")
    else:
        _int_range(t, "max_pages", 1, most, lambda c, d, k: r(c, "traverse " + d, "traverse"))
    _bool(t, "respect_robots", r)
    clash = [k for k in fetch_args.TRAVERSE_EXCLUDES if k in a]
    if clash:
        r(B, f"`traverse:` excludes {', '.join(clash)}", "traverse")
    if method != "GET":
        r(B, f"`traverse:` crawls with GET only (method is {method})", "method")


def _date(a: Mapping[str, Any], r: Report) -> None:
    # Every literal the run's `nika:date` would refuse, with its code (DATE-001).
    d = date_args.CODE
    op = a.get("op", "now")
    if not _literal(op):
        return
    if not isinstance(op, str) or op not in date_args.OP_ARGS:
        r(d, f"`op: {op!r}` is not one of {', '.join(date_args.OP_ARGS)}", "op")
        return
    allowed = date_args.OP_ARGS[op]
    _closed(a, ("op", *allowed), r, d, f" under `op: {op}`")
    _required(a, date_args.OP_REQUIRED.get(op, ()), r, d)
    _enum(a, "unit", tuple(date_args.UNIT_NAMES), r, d)
    value = a.get("duration")
    if "duration" in allowed and isinstance(value, str) and _literal(value):
        try:
            date_args.step(value)
        except DurationError as exc:
            r(d, f"`duration:` {exc}", "duration")
    stamps = [k for k in ("base", "input", "start", "end") if k in allowed and op != "parse"]
    for key in stamps:
        stamp = a.get(key)
        if isinstance(stamp, str) and _literal(stamp) and not _iso_timestamp(stamp):
            r(
                d,
                f'`{key}: {stamp!r}` is not an ISO 8601 timestamp; write e.g. '
                '"2026-05-23T09:00:00Z"',
                key,
            )


def _iso_timestamp(text: str) -> bool:
    from datetime import datetime  # only a workflow with a literal date pays for it

    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _hash(a: Mapping[str, Any], r: Report) -> None:
    h = "NIKA-BUILTIN-HASH-001"
    op = a.get("op", "hash")
    if not _literal(op):
        return
    per_op = {
        "hash": ("content", "algo", "encoding"),
        "sign": ("content", "encoding", "key"),
        "verify": ("content", "encoding", "public_key", "signature"),
    }
    if not isinstance(op, str) or op not in per_op:
        r(h, f"`op: {op!r}` is not one of hash, sign, verify", "op")
        return
    _closed(a, ("op", *per_op[op]), r, h, f" under `op: {op}`")
    need = {
        "hash": ("content",),
        "sign": ("content", "key"),
        "verify": ("content", "public_key", "signature"),
    }[op]
    _required(a, need, r, h)
    _enum(a, "algo", ("blake3", "sha256", "sha512"), r, h)
    _enum(a, "encoding", ("hex", "base64"), r, h)
    key = a.get("key")
    if op == "sign" and key is not None and not (isinstance(key, str) and _SECRET_REF.match(key)):
        r(
            h,
            "`key:` must be exactly a `${{ secrets.NAME }}` reference — a private key "
            "rides `secrets:`",
            "key",
        )


def _convert(a: Mapping[str, Any], r: Report) -> None:
    formats = ("json", "yaml", "toml", "csv")
    _required(a, ("input", "from", "to"), r)
    _closed(a, ("input", "from", "to", "has_header", "formula_guard"), r)
    _enum(a, "from", formats, r)
    _enum(a, "to", formats, r)
    if "from" in a and a.get("from") == a.get("to") and _literal(a["from"]):
        r(
            B,
            f"`from:` and `to:` are both {a['from']}; an identity conversion is an authoring bug",
            "to",
        )
    _bool(a, "has_header", r)
    _bool(a, "formula_guard", r)


def _image_generate(a: Mapping[str, Any], r: Report) -> None:
    _required(a, ("prompt", "output_dir"), r)
    _enum(a, "provider", ("local", "openai", "gemini", "xai", "mock"), r)
    _enum(a, "mode", ("generate", "edit"), r)
    _enum(a, "aspect_ratio", ("1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "21:9"), r)
    _enum(a, "quality", ("auto", "low", "medium", "high", "ultra"), r)
    _enum(a, "format", ("png", "jpeg", "webp"), r)
    _enum(a, "background", ("auto", "transparent", "opaque"), r)
    _int_range(a, "n", 1, 10, r)
    _int_range(a, "compression", 0, 100, r)
    if a.get("save") is False:
        r(B, "`save: false` is reserved in v0.1; images are always saved to `output_dir:`", "save")
    if "reference_images" in a:
        r(B, "`reference_images:` is reserved in v0.1", "reference_images")
    sources = [k for k in ("image", "images") if k in a]
    if a.get("mode", "generate") == "edit":
        if len(sources) != 1:
            r(
                B,
                "`mode: edit` needs exactly one source: `image:` (one path) XOR `images:` (paths)",
                "mode",
            )
    elif sources or "mask" in a:
        r(
            B,
            "`image:`/`images:`/`mask:` apply only with `mode: edit`",
            sources[0] if sources else "mask",
        )


def _tts(a: Mapping[str, Any], r: Report) -> None:
    t = "NIKA-BUILTIN-TTS_GENERATE-001"
    _required(a, ("text", "output_dir"), r, t)
    _enum(a, "provider", ("local", "openai", "elevenlabs", "mock"), r, t)
    _enum(a, "format", ("mp3", "wav", "auto"), r, t)
    text = a.get("text")
    if isinstance(text, str) and _literal(text) and not (0 < len(text) <= 4096):
        r(t, "`text:` must be non-empty and at most 4096 characters", "text")


def _chart(a: Mapping[str, Any], r: Report) -> None:
    _required(a, ("data", "out"), r)
    out = a.get("out")
    if isinstance(out, str) and _literal(out) and not out.endswith(".svg"):
        r(B, f"`out: {out!r}` must end in .svg (SVG is the attestation surface)", "out")
    chart = a.get("chart")
    if isinstance(chart, Mapping):
        _enum(
            chart,
            "type",
            ("bar", "line", "area_band", "scatter", "heatmap"),
            lambda c, d, k: r(c, "chart " + d, "chart"),
        )


def _image_fx(a: Mapping[str, Any], r: Report) -> None:
    _required(a, ("input", "out", "ops"), r)
    ops = a.get("ops")
    if "ops" in a and _literal(ops) and not (isinstance(ops, list) and 1 <= len(ops) <= 32):
        r(B, "`ops:` is an ordered list of 1..=32 single-key operations", "ops")


def _inspect(a: Mapping[str, Any], r: Report) -> None:
    code = "NIKA-BUILTIN-INSPECT-001"
    _required(a, ("view",), r, code)
    _enum(a, "view", ("cost", "records", "dag_info", "threads"), r, code)


def _validate(a: Mapping[str, Any], r: Report) -> None:
    _fixed(("data", "schema"), format=("json", "yaml"))(a, r)
    schema = a.get("schema")
    problem = schema_problem(schema) if isinstance(schema, Mapping) else None
    if problem is not None:
        r(
            "NIKA-BUILTIN-VALIDATE-001",
            f"`schema:` is not a valid JSON Schema: {problem}; fix the schema",
            "schema",
        )


def _fixed(
    required: tuple[str, ...], allowed: tuple[str, ...] | None = None, **enums: tuple[Any, ...]
) -> Contract:
    def judge(a: Mapping[str, Any], r: Report) -> None:
        _required(a, required, r)
        if allowed is not None:
            _closed(a, allowed, r)
        for key, values in enums.items():
            _enum(a, key, values, r)

    return judge


CONTRACTS: Final[Mapping[str, Contract]] = {
    "nika:log": _log,
    "nika:emit": _emit,
    "nika:assert": _assert,
    "nika:prompt": _prompt,
    "nika:done": _done,
    "nika:wait": _wait,
    "nika:read": _fixed(("path",)),
    "nika:write": _fixed(("path", "content")),
    "nika:edit": _fixed(("path", "find", "replace")),
    "nika:glob": _fixed(("pattern",)),
    "nika:grep": _fixed(("pattern",)),
    "nika:jq": _fixed(("expression",), ("expression", "input")),
    "nika:json_diff": _fixed(("before", "after")),
    "nika:validate": _validate,
    "nika:json_merge_patch": _fixed(("target", "patch")),
    "nika:convert": _convert,
    "nika:uuid": _fixed((), ("version",), version=("v4", "v7")),
    "nika:decide": _fixed(("bundle", "evidence")),
    "nika:date": _date,
    "nika:hash": _hash,
    "nika:fetch": _fetch,
    "nika:notify": _fixed(
        ("channel", "message"), channel=("webhook", "slack", "email", "discord", "sms")
    ),
    "nika:compose": _fixed(("workflow_yaml",), ("workflow_yaml",)),
    "nika:inspect": _inspect,
    "nika:chart": _chart,
    "nika:image_generate": _image_generate,
    "nika:image_fx": _image_fx,
    "nika:tts_generate": _tts,
}
