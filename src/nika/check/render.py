"""Human rendering of a `Verdict` (the JSON rendering is `Verdict.to_json`)."""

from __future__ import annotations

from collections.abc import Mapping

from nika._term import printable
from nika.check._certificate_text import certificate_lines
from nika.check.verdict import Verdict
from nika.errors import NikaError


def _line(name: str, e: NikaError) -> str:
    loc = f":{e.location.line}:{e.location.column}" if e.location else ""
    # A detail may quote the document; its own line breaks (a paste-ready block) stay.
    return f"{name}{loc} {e.code} {e.category} — {printable(e.detail, keep_newlines=True)}"


def render_human(verdict: Verdict, name: str) -> str:
    """`ok` or one line per finding (`path:line:col CODE category — detail`), hints, then
    the plan and the certificate. Text from the document is shown with its control
    characters escaped: a file cannot repaint its own verdict."""
    name = printable(name)
    lines: list[str] = []
    if verdict.valid:
        lines.append(f"ok {name}")
    else:
        lines.extend(_line(name, e) for e in verdict.errors)
        n = len(verdict.errors)
        lines.append(f"refused {name}: {n} finding{'s' if n != 1 else ''}")
    lines.extend("hint " + _line(name, h) for h in verdict.hints)
    if verdict.valid and verdict.waves:
        lines.append("plan:")
        lines.extend(
            printable(f"  wave {i}: {', '.join(wave)}") for i, wave in enumerate(verdict.waves, 1)
        )
    certificate = verdict.sections.get("certificate")
    if verdict.valid and isinstance(certificate, Mapping):
        lines.extend(printable(line) for line in certificate_lines(certificate))
    return "\n".join(lines) + "\n"
