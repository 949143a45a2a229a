"""Human rendering of a `Verdict` (the JSON rendering is `Verdict.to_json`)."""

from __future__ import annotations

from collections.abc import Mapping

from nika._term import printable
from nika.check._certificate_text import certificate_lines, energy_lines
from nika.check.capability import CODE as CAPABILITY
from nika.check.verdict import Verdict
from nika.errors import NikaError


def _line(name: str, e: NikaError) -> str:
    loc = f":{e.location.line}:{e.location.column}" if e.location else ""
    # A detail may quote the document; its own line breaks (a paste-ready block) stay.
    return f"{name}{loc} {e.code} {e.category} — {printable(e.detail, keep_newlines=True)}"


def render_human(verdict: Verdict, name: str, *, strict: bool = False) -> str:
    """`ok` or one line per finding (`path:line:col CODE category — detail`), hints, lint
    warnings, then the plan and the certificate; under `strict` (`--native-strict`) a last
    line says whether lints and hints were promoted to failures. Text from the document is
    shown with its control characters escaped: a file cannot repaint its own verdict."""
    name = printable(name)
    lines: list[str] = []
    if verdict.valid:
        lines.append(f"ok {name}")
    else:
        lines.extend(_line(name, e) for e in verdict.errors)
        n = len(verdict.errors)
        lines.append(f"refused {name}: {n} finding{'s' if n != 1 else ''}")
    # An engine-capability hint is valid Nika this engine will not run: labelled apart.
    lines.extend(
        ("warning (engine capability) " if h.code == CAPABILITY else "hint ") + _line(name, h)
        for h in verdict.hints
    )
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
