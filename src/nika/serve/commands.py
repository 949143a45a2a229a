"""The bodies of the editor and agent subcommands: `nika inspect`, `nika schema`,
`nika completion`, `nika mcp` and `nika lsp` (the CLI registers each one and hands it here).

Exit codes as everywhere: 0 ok, 1 findings, 2 usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from nika.serve import _completion

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def run_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the subcommand `args.command` names (`parser` is the full `nika` parser)."""
    commands: dict[str, Callable[[], int]] = {
        "inspect": lambda: _inspect(args.file, args.format),
        "schema": _schema,
        "completion": lambda: _completion_script(args.shell, parser),
        "mcp": lambda: _mcp(args.allow_run),
        "lsp": _lsp,
    }
    return commands[args.command]()


def _inspect(file: str, fmt: str) -> int:
    from nika._term import printable
    from nika.check.projection import inspect_source
    from nika.check.render import render_human

    try:
        if file == "-":
            source = sys.stdin.buffer.read()
        else:
            with open(file, "rb") as handle:
                source = handle.read()
    except OSError as exc:
        print(f"nika inspect: cannot read {printable(file)!r}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_USAGE
    projection = inspect_source(source, None if file == "-" else file)
    if projection.graph is None:  # no graph without a clean verdict: the findings say why
        report = render_human(projection.checked.verdict, "<stdin>" if file == "-" else file)
        sys.stderr.write(report if report.endswith("\n") else report + "\n")
        return EXIT_FINDINGS
    if fmt == "mermaid":
        from nika.check._mermaid import render_mermaid

        sys.stdout.write(printable(render_mermaid(projection.graph), keep_newlines=True))
    else:
        sys.stdout.write(projection.json or "")
    return EXIT_OK


def _schema() -> int:
    from nika.serve._oracle import workflow_schema_text

    sys.stdout.write(workflow_schema_text())
    return EXIT_OK


def _completion_script(shell: str, parser: argparse.ArgumentParser) -> int:
    sys.stdout.write(_completion.script(shell, _completion.commands_of(parser)))
    return EXIT_OK


def _mcp(allow_run: bool) -> int:
    from nika.serve.mcp_server import main

    return main(allow_run=allow_run)


def _lsp() -> int:
    from nika.serve.lsp_server import main

    return main()
