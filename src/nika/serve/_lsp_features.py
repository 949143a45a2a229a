"""What the language server answers about one document, as functions of its text and the
check that judged it: diagnostics, hover, definition, completion and code actions.

Everything reads the checker's products (`Checked`: verdict, model, loaded document with
positions); positions cross the protocol in UTF-16 (`_ranges.Lines`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from lsprotocol import types

from nika import codes
from nika.serve._ranges import Lines

if TYPE_CHECKING:
    from nika.check import Checked
    from nika.errors import NikaError

_CODE: Final = re.compile(r"NIKA-[A-Z]+(?:-[A-Z]+)*-\d{3}")
_BUILTIN: Final = re.compile(r"nika:[a-z][a-z0-9_]*")
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HOIST: Final = re.compile(r"`with: \{ ([a-z_][a-z0-9_]*): (\$\{\{ (.+?) \}\}) \}`")
PERMIT_KEYS: Final = ("fs", "net", "exec", "tools", "env")
_PERMIT_SUBKEYS: Final = {"fs": ("read", "write"), "net": ("http",)}
_PERMIT_CODES: Final = frozenset({codes.SEC_004, codes.AUTH_006})


@dataclass(frozen=True, slots=True)
class Analysis:
    """One version of a document: its text, lines and the check of it."""

    uri: str
    version: int | None
    text: str
    lines: Lines
    checked: Checked

    def task_at(self, line: int) -> str | None:
        """The task whose block holds 0-based `line` (the last task key above it)."""
        best: tuple[int, str] | None = None
        for task, where in self.task_keys().items():
            if where.line - 1 <= line and (best is None or where.line - 1 > best[0]):
                best = (where.line - 1, task)
        return best[1] if best else None

    def task_keys(self) -> dict[str, Any]:
        document = self.checked.document
        tasks = document.node(("tasks",)) if document is not None else None
        if document is None or not isinstance(tasks, dict):
            return {}
        found = {k: document.locate(("tasks", k)) for k in tasks if isinstance(k, str)}
        return {k: v for k, v in found.items() if v is not None}


def _range(lines: Lines, error_location: Any) -> types.Range:
    if error_location is None:
        return types.Range(types.Position(0, 0), types.Position(0, 0))
    span = lines.token_range(error_location.line, error_location.column)
    start, end = span["start"], span["end"]
    if start == end:  # a location on a blank spot still underlines one character
        end = {**end, "character": end["character"] + 1}
    return types.Range(types.Position(start["line"], start["character"]),
                       types.Position(end["line"], end["character"]))


def diagnostics(analysis: Analysis) -> list[types.Diagnostic]:
    """Every finding of `nika check --lint`: errors, hints (information) and lints (warnings),
    each with its code and exact range."""
    verdict = analysis.checked.verdict
    out = [_diagnostic(analysis.lines, e, types.DiagnosticSeverity.Error) for e in verdict.errors]
    out.extend(_diagnostic(analysis.lines, hint, types.DiagnosticSeverity.Information)
               for hint in verdict.hints)
    for lint in verdict.lints or ():
        out.append(types.Diagnostic(
            range=_range(analysis.lines, lint.location), message=f"{lint.message} — {lint.fix}",
            severity=types.DiagnosticSeverity.Warning, code=lint.rule, source="nika"))
    return out


def _diagnostic(lines: Lines, error: NikaError, severity: types.DiagnosticSeverity
                ) -> types.Diagnostic:
    return types.Diagnostic(range=_range(lines, error.location), message=error.detail,
                            severity=severity, code=error.code, source="nika")


def _token_at(lines: Lines, position: types.Position, pattern: re.Pattern[str]
              ) -> tuple[str, int, int] | None:
    text = lines.line(position.line)
    at = lines.chars(position.line, position.character)
    for match in pattern.finditer(text):
        if match.start() <= at <= match.end():
            return match.group(0), match.start(), match.end()
    return None


def hover(analysis: Analysis, position: types.Position) -> types.Hover | None:
    """A code's meaning and fix, or a builtin's argument contract."""
    from nika.errors import NikaError
    from nika.serve._oracle import explain

    found = _token_at(analysis.lines, position, _CODE)
    if found is not None:
        try:
            row = explain(found[0])
        except NikaError:  # an unregistered code has nothing to show
            return None
        text = (f"**{row['code']}** · {row['category']}"
                f"{' · transient' if row['transient'] else ''}\n\n{row['meaning']}\n\n"
                f"Fix: {row['fix']}")
        return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, text))
    found = _token_at(analysis.lines, position, _BUILTIN)
    if found is not None:
        return _builtin_hover(found[0])
    return None


def _builtin_hover(name: str) -> types.Hover | None:
    from nika.stdlib import DECLARATIONS

    if name not in DECLARATIONS:
        return None
    schema = DECLARATIONS[name].schema
    required = set(schema.get("required", ()))
    rows = []
    for arg, spec in schema.get("properties", {}).items():
        kind = spec.get("type", "any") if isinstance(spec, dict) else "any"
        mark = " (required)" if arg in required else ""
        described = isinstance(spec, dict) and spec.get("description")
        note = f" — {spec['description']}" if described else ""
        rows.append(f"- `{arg}`: {kind}{mark}{note}")
    text = f"**{name}** · builtin\n\nargs:\n" + ("\n".join(rows) or "- none")
    return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, text))


def definition(analysis: Analysis, position: types.Position) -> types.Location | None:
    """From `with.X` to the binding, from a task id (`tasks.X`, an `after:` key) to the task."""
    found = _token_at(analysis.lines, position, _WORD)
    if found is None:
        return None
    word, start, _ = found
    prefix = analysis.lines.line(position.line)[:start]
    document = analysis.checked.document
    if document is None:
        return None
    if prefix.endswith("with."):
        task = analysis.task_at(position.line)
        if task is None or document.node(("tasks", task, "with", word)) is None:
            return None
        where = document.locate(("tasks", task, "with", word))
        if where is None:
            return None
        return _location(analysis, where)
    keys = analysis.task_keys()
    where = keys.get(word)
    if where is None or (where.line - 1 == position.line and where.column - 1 == start):
        return None  # not a task, or the declaration itself
    return _location(analysis, where)


def _location(analysis: Analysis, where: Any) -> types.Location:
    span = analysis.lines.token_range(where.line, where.column)
    return types.Location(uri=analysis.uri, range=types.Range(
        types.Position(**span["start"]), types.Position(**span["end"])))


def completion(analysis: Analysis, position: types.Position) -> list[types.CompletionItem]:
    """Task ids after `tasks.`, bindings after `with.`, builtins after `nika:`, else the
    keys the enclosing block takes (task fields, a verb's fields, `permits:` keys)."""
    line = analysis.lines.line(position.line)
    prefix = line[: analysis.lines.chars(position.line, position.character)]
    kind = types.CompletionItemKind
    if re.search(r"tasks\.[a-z0-9_]*$", prefix) or re.search(r"after:\s*\{[^}]*$", prefix):
        return [types.CompletionItem(t, kind=kind.Reference) for t in analysis.task_keys()]
    if re.search(r"with\.[A-Za-z0-9_]*$", prefix):
        task = analysis.task_at(position.line)
        document = analysis.checked.document
        block = document.node(("tasks", task, "with")) if document and task else None
        names = list(block) if isinstance(block, dict) else []
        return [types.CompletionItem(str(n), kind=kind.Variable) for n in names]
    if re.search(r"nika:[a-z0-9_]*$", prefix):
        from nika.stdlib import DECLARATIONS

        return [types.CompletionItem(n, kind=kind.Function, insert_text=n.split(":", 1)[1])
                for n in DECLARATIONS]
    keys = _block_keys(analysis.lines, position.line, len(prefix) - len(prefix.lstrip()))
    if keys is None:  # inside an `after:` block: its keys are task ids
        return [types.CompletionItem(t, kind=kind.Reference) for t in analysis.task_keys()]
    return [types.CompletionItem(k, kind=kind.Property) for k in keys]


def _block_keys(lines: Lines, line: int, indent: int) -> tuple[str, ...] | None:
    """The keys the mapping a line at `indent` sits in may hold, by its parent key (None in
    an `after:` block, whose keys are the workflow's task ids)."""
    from nika.syntax._build_envelope import ENVELOPE_KEYS
    from nika.syntax._build_tasks import TASK_FIELDS
    from nika.syntax._build_verbs import AGENT_FIELDS, EXEC_FIELDS, INFER_FIELDS, INVOKE_FIELDS

    verbs = {"infer": INFER_FIELDS, "exec": EXEC_FIELDS, "invoke": INVOKE_FIELDS,
             "agent": AGENT_FIELDS}
    chain: list[str] = []
    want = indent
    for above in range(line - 1, -1, -1):
        text = lines.line(above)
        stripped = text.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        depth = len(text) - len(stripped)
        if depth < want:
            chain.append(stripped.split(":", 1)[0].strip().strip("'\""))
            want = depth
            if depth == 0:
                break
    if not chain:
        return ENVELOPE_KEYS
    parent = chain[0]
    if parent in verbs:
        return verbs[parent]
    if parent == "permits":
        return PERMIT_KEYS
    if parent == "after":
        return None
    if parent in _PERMIT_SUBKEYS and len(chain) > 1 and chain[1] == "permits":
        return _PERMIT_SUBKEYS[parent]
    if len(chain) == 2 and chain[1] == "tasks":
        return TASK_FIELDS
    return ()


def code_actions(analysis: Analysis, context: types.CodeActionContext) -> list[types.CodeAction]:
    """The fixes a finding's detail spells, as edits: the `with:` hoist of NIKA-VAR-021 and
    the paste-ready `permits:` block of a capability finding."""
    actions: list[types.CodeAction] = []
    for diagnostic in context.diagnostics:
        if diagnostic.code == codes.VAR_021:
            action = _hoist(analysis, diagnostic)
        elif diagnostic.code in _PERMIT_CODES:
            action = _permits(analysis, diagnostic)
        else:
            continue
        if action is not None:
            actions.append(action)
    return actions


def _edit(analysis: Analysis, title: str, diagnostic: types.Diagnostic,
          edits: list[types.TextEdit]) -> types.CodeAction:
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix,
                            diagnostics=[diagnostic], is_preferred=True,
                            edit=types.WorkspaceEdit(changes={analysis.uri: edits}))


def _hoist(analysis: Analysis, diagnostic: types.Diagnostic) -> types.CodeAction | None:
    match = _HOIST.search(diagnostic.message)
    task = analysis.task_at(diagnostic.range.start.line)
    document = analysis.checked.document
    if match is None or task is None or document is None:
        return None
    name, template, expr = match.groups()
    if document.node(("tasks", task, "with")) is not None:
        return None  # a `with:` already written: its style is the author's; the detail says it
    key = analysis.task_keys()[task]
    row = diagnostic.range.start.line
    line = analysis.lines.line(row)
    if expr not in line:
        return None
    body = analysis.lines.line(key.line)
    indent = " " * (len(body) - len(body.lstrip()))
    lines = analysis.lines
    replace = types.TextEdit(
        range=types.Range(types.Position(row, 0), types.Position(row, lines.utf16(row, len(line)))),
        new_text=line.replace(expr, f"with.{name}"))
    insert = types.TextEdit(range=types.Range(types.Position(key.line, 0),
                                              types.Position(key.line, 0)),
                            new_text=f"{indent}with: {{ {name}: \"{template}\" }}\n")
    return _edit(analysis, f"Hoist `{expr}` into `with: {{ {name} }}`", diagnostic,
                 [insert, replace])


def _permits(analysis: Analysis, diagnostic: types.Diagnostic) -> types.CodeAction | None:
    from nika.check.authority import infer_permits

    workflow = analysis.checked.workflow
    document = analysis.checked.document
    if workflow is None or document is None:
        return None
    block = infer_permits(workflow)[1]
    if not block.endswith("\n"):
        block += "\n"
    start = document.locate(("permits",)) if "permits" in document.root else None
    if start is None:  # no block yet: it goes right after the `nika:` line
        mark = document.locate(("nika",))
        row = mark.line if mark is not None else 0
        span = types.Range(types.Position(row, 0), types.Position(row, 0))
    else:
        end = start.line
        while end < len(analysis.lines.lines) and (
                not analysis.lines.line(end).strip() or analysis.lines.line(end)[:1] in " \t#"):
            end += 1
        span = types.Range(types.Position(start.line - 1, 0), types.Position(end, 0))
    edit = types.TextEdit(range=span, new_text=block)
    return _edit(analysis, "Write the permits: block this workflow needs", diagnostic, [edit])
