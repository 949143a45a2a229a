"""Build the four verb bodies (spec 02): required fields, closed field sets, value shapes."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Final

from nika import codes
from nika.errors import NikaError
from nika.syntax import fields
from nika.syntax._shape import Shape, show
from nika.syntax.keypath import KeyPath
from nika.syntax.model import AgentBody, Body, ExecBody, InferBody, InvokeBody, TaskId, Verb

INFER_FIELDS: Final = (
    "prompt",
    "system",
    "model",
    "temperature",
    "max_tokens",
    "schema",
    "thinking",
    "vision",
)
EXEC_FIELDS: Final = ("command", "shell", "cwd", "env", "stdin", "capture", "decode")
INVOKE_FIELDS: Final = ("tool", "args", "workflow")
AGENT_FIELDS: Final = (
    "prompt",
    "system",
    "model",
    "tools",
    "skills",
    "max_turns",
    "max_tokens_total",
    "temperature",
    "schema",
)
CAPTURES: Final = ("stdout", "stderr", "combined", "structured")
DECODES: Final = ("text", "json", "jsonl", "bytes")
_NIKA_TOOL: Final = re.compile(r"^nika:[a-z][a-z0-9_]*(/[a-z][a-z0-9_]*)*$")


@cache
def _mcp_tool() -> re.Pattern[str]:
    """`mcp:<server>/<tool>`, from the tool-ref grammar (loaded with the first `mcp:` ref)."""
    from nika.syntax.toolref import MCP_SERVER, MCP_TOOL

    return re.compile(rf"^mcp:{MCP_SERVER.pattern}/{MCP_TOOL.pattern}(/{MCP_TOOL.pattern})*$")


def build_body(shape: Shape, verb: Verb, raw: Any, at: KeyPath, tid: TaskId) -> Body | None:
    """The verb body of task `tid`, or None when it is refused."""
    if isinstance(raw, str):  # `exec: "echo hi"`: say which mapping was meant
        shape.report(codes.PARSE_019, f"`{verb}:` of task `{tid}` must be a mapping, got "
                     f"{show(raw)}; write it as {_SHORTHAND[verb](raw)}", at)
        return None
    if verb == "exec" and isinstance(raw, list) and all(isinstance(w, str) for w in raw):
        argv = ", ".join(show(w) for w in raw) or '"prog", "arg"'
        shape.report(codes.PARSE_019, f"`exec:` of task `{tid}` must be a mapping, got "
                     f"{show(raw)}; an argv list goes under `command:`: "
                     f"`exec: {{ command: [{argv}] }}`", at)
        return None
    if not shape.mapping(raw, at, f"`{verb}:` of task `{tid}`"):
        return None
    before = len(shape.errors)
    body: Body | None
    if verb == "infer":
        body = _infer(shape, raw, at, tid)
    elif verb == "exec":
        body = _exec(shape, raw, at, tid)
    elif verb == "invoke":
        body = _invoke(shape, raw, at, tid)
    else:
        body = _agent(shape, raw, at, tid)
    return body if len(shape.errors) == before else None


def _argv(line: str) -> str:
    import json
    import shlex

    try:
        words = shlex.split(line)
    except ValueError:
        words = []
    argv = ", ".join(json.dumps(w, ensure_ascii=False) for w in words) or '"prog", "arg"'
    return f"`exec: {{ command: [{argv}] }}` (argv, no shell) or `exec: {{ shell: {show(line)} }}`"


_SHORTHAND: Final[Mapping[str, Callable[[str], str]]] = {
    "exec": _argv,
    "infer": lambda text: f"`infer: {{ prompt: {show(text)} }}`",
    "agent": lambda text: f"`agent: {{ prompt: {show(text)} }}`",
    "invoke": lambda text: f"`invoke: {{ tool: {show(text)}, args: {{ … }} }}`",
}
"""What a bare string under a verb most likely meant, as the mapping to write."""


def _require(
    shape: Shape, raw: Mapping[str, Any], key: str, at: KeyPath, what: str, example: str
) -> bool:
    if key in raw:
        return True
    if shape.misspelt(at, key):  # `promt:` is one mistake, reported once (as the typo)
        return False
    shape.report(
        codes.PARSE_018,
        f"{what} is missing its required `{key}:`; add e.g. `{key}: {example}`",
        at,
    )
    return False


def _prompt(shape: Shape, raw: Mapping[str, Any], at: KeyPath, what: str) -> Any:
    if _require(shape, raw, "prompt", at, what, '"…"'):
        shape.string(raw["prompt"], (*at, "prompt"), f"`prompt:` of {what}")
    if "system" in raw:
        shape.string(raw["system"], (*at, "system"), f"`system:` of {what}")
    return raw.get("prompt")


def _model(shape: Shape, raw: Mapping[str, Any], at: KeyPath, what: str) -> str | None:
    if "model" not in raw:
        return None
    return shape.string(
        raw["model"], (*at, "model"), f"`model:` of {what} (a `<provider>/<name>` string)"
    )


def _schema(
    shape: Shape, raw: Mapping[str, Any], at: KeyPath, what: str, verb: str
) -> Mapping[str, Any] | None:
    if "schema" not in raw:
        return None
    value = raw["schema"]
    if not shape.mapping(value, (*at, "schema"), f"`schema:` of {what} (a JSON Schema object)"):
        return None
    problem = fields.literal_problem(verb, "schema", value)
    if problem is not None:
        shape.report(
            _code(verb, "schema"),
            f"`schema:` of {what} {problem}; fix the schema "
            "(JSON Schema 2020-12 unless `$schema` names another draft)",
            (*at, "schema"),
        )
        return None
    return value if isinstance(value, Mapping) else None


def _code(verb: str, field: str) -> str:
    return fields.RULES[verb][field].code or fields.LITERAL


def _knobs(shape: Shape, raw: Mapping[str, Any], at: KeyPath, verb: str) -> None:
    """Judge each numeric knob written as a literal by its one rule (`nika.syntax.fields`);
    a `${{ }}` template is judged by the same rule once it resolves, at run time."""
    for name in fields.SHAPED[verb]:
        problem = fields.literal_problem(verb, name, raw.get(name))
        if problem is not None:
            shape.report(
                _code(verb, name), f"`{verb}.{name}` {problem}, got {show(raw[name])}", (*at, name)
            )


def _infer(shape: Shape, raw: Mapping[str, Any], at: KeyPath, tid: TaskId) -> InferBody:
    what = f"`infer:` of task `{tid}`"
    shape.closed(raw, INFER_FIELDS, at, what)
    prompt = _prompt(shape, raw, at, what)
    _knobs(shape, raw, at, "infer")
    thinking = raw.get("thinking")
    if thinking is not None and shape.mapping(thinking, (*at, "thinking"), "`infer.thinking`"):
        shape.closed(thinking, ("enabled", "budget_tokens"), (*at, "thinking"), "`infer.thinking`")
    vision = raw.get("vision", [])
    if not isinstance(vision, list) or not all(isinstance(v, Mapping) for v in vision):
        shape.report(
            codes.PARSE_019,
            f"`infer.vision` is a list of `{{ source, path|url }}` maps, got {show(vision)}",
            (*at, "vision"),
        )
        vision = []
    return InferBody(
        prompt=prompt,
        system=raw.get("system"),
        model=_model(shape, raw, at, what),
        temperature=raw.get("temperature"),
        max_tokens=raw.get("max_tokens"),
        schema=_schema(shape, raw, at, what, "infer"),
        thinking=thinking if isinstance(thinking, Mapping) else None,
        vision=tuple(vision),
    )


def _exactly_one(
    shape: Shape, raw: Mapping[str, Any], pair: tuple[str, str], at: KeyPath, *, both: str,
    neither: str
) -> str | None:
    """Which of two exclusive fields `raw` declares; both is NIKA-PARSE-019, neither (a
    required field missing) NIKA-PARSE-018 — each reported with its message, then None."""
    present = [name for name in pair if name in raw]
    if len(present) == 1:
        return present[0]
    if present:
        shape.report(codes.PARSE_019, both, at)
    elif not shape.misspelt(at, *pair):
        shape.report(codes.PARSE_018, neither, at)
    return None


def _exec(shape: Shape, raw: Mapping[str, Any], at: KeyPath, tid: TaskId) -> ExecBody | None:
    what = f"`exec:` of task `{tid}`"
    shape.closed(raw, EXEC_FIELDS, at, what)
    chosen = _exactly_one(
        shape, raw, ("command", "shell"), at,
        both=f"{what} declares both `command:` and `shell:`; keep exactly one — argv "
        '`command: [prog, arg]` (no shell) or one `shell: "…"` line',
        neither=f'{what} needs `command: ["prog", "arg"]` (argv) or `shell: "…"`',
    )
    if chosen is None:
        return None
    has_cmd = chosen == "command"
    command: tuple[Any, ...] | None = None
    shell: str | None = None
    if has_cmd:
        value = raw["command"]
        if isinstance(value, str):
            shape.report(
                codes.PARSE_019,
                f"`command:` of task `{tid}` is a string ({show(value)}); "
                'a shell line is `shell: "…"`, '
                'argv is a list `command: ["prog", "arg"]`',
                (*at, "command"),
            )
        elif (
            not isinstance(value, list)
            or not value
            or not all(isinstance(a, (str, int, float)) for a in value)
        ):
            shape.misfit(codes.PARSE_019, "`command:`", "a non-empty argv list of strings",
                         value, (*at, "command"))
        else:
            command = tuple(value)
            problem = fields.literal_problem("exec", "command[0]", value[0])
            if problem is not None:
                shape.report(
                    _code("exec", "command[0]"),
                    f"the program of task `{tid}` (`command[0]`) {problem}; name the program "
                    'as the first element, e.g. `command: ["echo", "hi"]`',
                    (*at, "command"),
                )
    else:
        value = raw["shell"]
        if not isinstance(value, str) or not value.strip():
            shape.misfit(codes.PARSE_019, "`shell:`", "a non-empty command line", value,
                         (*at, "shell"))
        else:
            shell = value
    env = raw.get("env", {})
    if not isinstance(env, Mapping):
        shape.report(
            codes.PARSE_019, f"`exec.env` is a map NAME → value, got {show(env)}", (*at, "env")
        )
        env = {}
    capture = raw.get("capture", "stdout")
    if capture not in CAPTURES:
        shape.report(
            codes.PARSE_019,
            f"`capture:` {show(capture)} is not one of {', '.join(CAPTURES)}",
            (*at, "capture"),
        )
        capture = "stdout"
    decode = raw.get("decode")
    if decode is not None and decode not in DECODES:
        shape.report(
            codes.PARSE_019,
            f"`decode:` {show(decode)} is not one of {', '.join(DECODES)}",
            (*at, "decode"),
        )
        decode = None
    if decode is not None and capture == "structured":
        shape.report(
            codes.PARSE_025,
            f"task `{tid}` declares `decode: {decode}` with `capture: structured`, which "
            "already is an object "
            "{stdout, stderr, exit_code}; drop `decode:` and type the object with `returns:`",
            (*at, "decode"),
        )
    if command is None and shell is None:
        return None
    return ExecBody(command, shell, raw.get("cwd"), dict(env), raw.get("stdin"), capture, decode)


def _invoke(shape: Shape, raw: Mapping[str, Any], at: KeyPath, tid: TaskId) -> InvokeBody | None:
    what = f"`invoke:` of task `{tid}`"
    shape.closed(raw, INVOKE_FIELDS, at, what)
    chosen = _exactly_one(
        shape, raw, ("tool", "workflow"), at,
        both=f"{what} names both `tool:` and `workflow:`; an invoke calls exactly one",
        neither=f"{what} is missing its required `tool:`; add e.g. `tool: nika:read` (or "
        "`workflow: ./child.nika.yaml`)",
    )
    if chosen is None:
        return None
    has_wf = chosen == "workflow"
    args = raw.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        shape.misfit(codes.PARSE_019, f"`args:` of task `{tid}`", "a map of argument → value",
                     args, (*at, "args"))
        return None
    if has_wf:
        target = shape.string(
            raw["workflow"], (*at, "workflow"), f"`workflow:` of task `{tid}` (a path)"
        )
        return InvokeBody(workflow=target, args=dict(args)) if target is not None else None
    tool = shape.string(raw["tool"], (*at, "tool"), f"`tool:` of task `{tid}`")
    if tool is None or not _tool_ref_ok(shape, tool, (*at, "tool")):
        return None
    return InvokeBody(tool=tool, args=dict(args))


def _tool_ref_ok(shape: Shape, tool: str, at: KeyPath) -> bool:
    if _NIKA_TOOL.match(tool) or (tool.startswith("mcp:") and _mcp_tool().match(tool)):
        return True
    if tool.startswith("mcp:") and "/" not in tool:
        detail = f"tool {tool!r} names an MCP server without a tool; write `mcp:<server>/<tool>`"
    elif tool.startswith(("nika:", "mcp:")):
        detail = (
            f"tool {tool!r} is malformed; builtins are `nika:<name>`, MCP tools "
            "`mcp:<server>/<tool>`"
        )
    else:
        detail = (
            f"tool {tool!r} is outside the closed namespace set; a tool id is "
            "`nika:<name>` (builtin) "
            "or `mcp:<server>/<tool>` (an MCP server's tool)"
        )
    shape.report(codes.PARSE_019, detail, at)
    return False


def _tool_globs(shape: Shape, tools: tuple[str, ...], at: KeyPath, tid: TaskId) -> None:
    """Each `agent.tools` entry compiled here, as the loop will: a malformed glob is this
    builder's PARSE finding, never a rung's crash nor a run-time surprise."""
    from nika.syntax.globs import Whitelist  # the glob engine, only for a task with tools

    for i, entry in enumerate(tools):
        try:
            Whitelist.compile([entry])
        except NikaError as exc:
            shape.report(exc.code, f"`agent.tools` of task `{tid}`: {exc.detail}", (*at, i))


def _agent(shape: Shape, raw: Mapping[str, Any], at: KeyPath, tid: TaskId) -> AgentBody:
    what = f"`agent:` of task `{tid}`"
    shape.closed(raw, AGENT_FIELDS, at, what)
    prompt = _prompt(shape, raw, at, what)
    tools = (
        shape.strings(raw["tools"], (*at, "tools"), "`agent.tools` (a whitelist of tool globs)")
        if "tools" in raw
        else ()
    )
    _tool_globs(shape, tools or (), (*at, "tools"), tid)
    skills = (
        shape.strings(raw["skills"], (*at, "skills"), "`agent.skills` (SKILL.md paths)")
        if "skills" in raw
        else ()
    )
    _knobs(shape, raw, at, "agent")
    return AgentBody(
        prompt=prompt,
        system=raw.get("system"),
        model=_model(shape, raw, at, what),
        tools=tools or (),
        skills=skills or (),
        max_turns=raw.get("max_turns"),
        max_tokens_total=raw.get("max_tokens_total"),
        temperature=raw.get("temperature"),
        schema=_schema(shape, raw, at, what, "agent"),
    )
