"""Human rendering of a `Verdict` (the JSON rendering is `Verdict.to_json`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from nika._term import printable
from nika.check._certificate_text import certificate_lines, energy_lines
from nika.check.verdict import Verdict
from nika.errors import NikaError


def _line(name: str, e: NikaError) -> str:
    loc = f":{e.location.line}:{e.location.column}" if e.location else ""
    # A detail may quote the document; its own line breaks (a paste-ready block) stay.
    return f"{name}{loc} {e.code} {e.category} — {printable(e.detail, keep_newlines=True)}"


def render_terminal(verdict: Verdict, name: str, source: bytes, *, strict: bool = False) -> str:
    """The view for a person at a terminal (rustc/actionlint style): each finding and hint as
    its code and message, `--> path:line:col`, the offending line of `source` with a caret
    span under what it names, and the fix as `= help:`. The rest (lint warnings, the plan,
    the certificate, the verdict line) is `render_human`'s."""
    lines = source.decode("utf-8", "replace").splitlines()
    shown = printable(name)
    out: list[str] = []
    for e in verdict.errors:
        out.extend(_block("error", e, shown, lines))
    for h in verdict.hints:
        out.extend(_block("hint", h, shown, lines))
    rest = render_human(verdict, name, strict=strict, findings=False)
    return "".join(f"{line}\n" for line in out) + rest


def _block(label: str, e: NikaError, name: str, lines: list[str]) -> list[str]:
    message, fix = split_fix(e.detail)
    out = [f"{label}[{e.code}]: {printable(message, keep_newlines=True)}"]
    loc = e.location
    if loc is None or not 1 <= loc.line <= len(lines):
        out.append(f"  --> {name}" + (f":{loc.line}:{loc.column}" if loc else ""))
    else:
        gutter = " " * len(str(loc.line))
        text = lines[loc.line - 1]
        start, width = caret_span(text, loc.column, named=_named(e.detail))
        pad = len(printable(text[:start]))
        out += [f"{gutter}--> {name}:{loc.line}:{loc.column}", f"{gutter} |",
                f"{loc.line} | {printable(text)}".rstrip(),
                f"{gutter} | {' ' * pad}{'^' * max(1, len(printable(text[start:start + width])))}"]
    if fix:
        out.append(f"  = help: {printable(fix, keep_newlines=True)}")
    out.append("")
    return out


def split_fix(detail: str) -> tuple[str, str]:
    """A detail's statement and its fix: split at its first `; ` outside backticks, quotes
    and brackets (the registry's details say what is wrong, then how to fix it)."""
    depth, quoted = 0, ""
    for i, ch in enumerate(detail):
        if quoted:
            quoted = "" if ch == quoted else quoted
        elif ch == "`":
            quoted = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif (ch == ";" and depth == 0 and detail[i + 1:i + 2] == " "
              and detail[:i].strip() and detail[i + 2:].strip()):  # a statement and a fix
            return detail[:i], detail[i + 2:]
    return detail, ""


_CLOSERS: Final = {'"': '"', "'": "'", "{": "}", "[": "]"}


def _named(detail: str) -> list[str]:
    """What a detail quotes (`…` or '…'), in order: the first the line holds is underlined."""
    return [(a or b).removesuffix(":") for a, b in re.findall(r"`([^`\n]+)`|'([^'\n]+)'", detail)
            if (a or b).removesuffix(":")]


def caret_span(text: str, column: int, named: list[str] | None = None) -> tuple[int, int]:
    """`(start, width)` of what a finding at 1-based `column` of `text` names: the first of
    `named` (what its detail quotes) the line holds from there on; else a key (up to its
    colon), a quoted string or a bracket pair closed on the line, else the plain value up to
    a flow separator or a comment; an opening left unclosed is marked alone."""
    start = min(max(column - 1, 0), len(text))
    tokens = list(named or ())
    for token in tokens:  # what the finding is located on, when the detail names it
        if text.startswith(token, start):
            return start, len(token)
    for token in tokens:  # else the first named word the line holds from there on
        found = re.compile(rf"(?<![\w-]){re.escape(token)}(?![\w-])").search(text, start)
        if found:
            return found.start(), len(token)
    rest = text[start:]
    if not rest:
        return start, 1
    key = re.match(r"[^\s:#{}\[\],'\"]+(?=:(\s|$))", rest)
    if key:
        return start, key.end()
    closer = _CLOSERS.get(rest[0])
    if closer is not None:
        end = _closing(rest, closer)
        return start, (end + 1) if end else 1
    plain = re.match(r"[^,\]}]*?(?=\s+#|\s*[,\]}]|\s*$)", rest)
    return start, max(1, plain.end() if plain else len(rest.rstrip()))


def _closing(rest: str, closer: str) -> int | None:
    """The index in `rest` of the bracket or quote closing `rest[0]`, if on this line."""
    opener, depth, quoted = rest[0], 0, ""
    for i, ch in enumerate(rest):
        if opener in "'\"":
            if i and ch == closer and rest[i - 1] != "\\":
                return i
            continue
        if quoted:
            quoted = "" if ch == quoted else quoted
        elif ch in "'\"":
            quoted = ch
        elif ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i
    return None


def render_human(verdict: Verdict, name: str, *, strict: bool = False,
                 findings: bool = True) -> str:
    """`ok` or one line per finding (`path:line:col CODE category — detail`), hints, lint
    warnings, then the plan and the certificate; under `strict` (`--native-strict`) a last
    line says whether lints and hints were promoted to failures. Text from the document is
    shown with its control characters escaped: a file cannot repaint its own verdict."""
    name = printable(name)
    lines: list[str] = []
    if verdict.valid:
        lines.append(f"ok {name}")
    else:
        if findings:
            lines.extend(_line(name, e) for e in verdict.errors)
        n = len(verdict.errors)
        lines.append(f"refused {name}: {n} finding{'s' if n != 1 else ''}")
    lines.extend("hint " + _line(name, h) for h in (verdict.hints if findings else ()))
    if verdict.lints:
        from nika.check.lint._text import lint_lines

        lines.extend(lint_lines(verdict.lints, name))
    if verdict.valid and verdict.waves:
        lines.append("plan:")
        lines.extend(
            printable(f"  wave {i}: {', '.join(wave)}") for i, wave in enumerate(verdict.waves, 1)
        )
    certificate = verdict.sections.get("certificate")
    if verdict.valid and isinstance(certificate, Mapping):
        lines.extend(printable(line) for line in certificate_lines(certificate))
        energy = verdict.sections.get("energy")
        if isinstance(energy, Mapping):
            lines.extend(printable(line) for line in energy_lines(energy))
    if strict:
        lines.append(strict_line(verdict))
    return "\n".join(lines) + "\n"


def strict_failures(verdict: Verdict) -> int:
    """What `--native-strict` counts against a file: findings, hints and lints."""
    return len(verdict.errors) + len(verdict.hints) + len(verdict.lints or ())


def strict_section(verdict: Verdict) -> dict[str, int | bool]:
    """The `native_strict` key of `nika check --json --native-strict`."""
    return {
        "passed": not strict_failures(verdict),
        "findings": len(verdict.errors),
        "hints": len(verdict.hints),
        "lints": len(verdict.lints or ()),
    }


def strict_line(verdict: Verdict) -> str:
    """The `--native-strict` verdict line: clean, or what was promoted to failures."""
    if not strict_failures(verdict):
        return "native-strict: clean — 0 findings, 0 hints, 0 lints"
    counts = (
        (len(verdict.errors), "finding"),
        (len(verdict.hints), "hint"),
        (len(verdict.lints or ()), "lint"),
    )
    listed = ", ".join(f"{n} {word}{'s' if n != 1 else ''}" for n, word in counts)
    return f"native-strict: refused — {listed} (hints and lints are failures here)"
