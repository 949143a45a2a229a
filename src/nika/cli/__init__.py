"""The `nika` command: a thin shell over the library.

Exit codes: 0 clean · 1 findings or failure · 2 usage. `nika trace verify` follows the spec's
tier ladder instead: 0 whenever the chain walks (clean · finding · incomplete), 2 for a
forged or refused journal (the FILE class). Each subcommand registers
itself from one `_add_<name>` function listed in `_SUBCOMMANDS`; `trace.py` holds `nika trace`
and `run.py` holds `nika run` (each module loads only when its command runs).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from nika import __version__, codes
from nika._term import printable
from nika.cli._parser import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    Handler,
    _Parser,
    _UsageError,
)


def _run_check(args: argparse.Namespace) -> int:
    from nika.check import check
    from nika.check.render import render_human, strict_failures, strict_section
    from nika.errors import NikaError
    from nika.syntax.loader import read_source

    strict = args.native_strict
    # The human view always carries the lint warnings; JSON only when asked (the door).
    lint = strict or args.lint or not args.json
    try:
        source = read_source(args.file)
    except NikaError as exc:
        if exc.code != codes.YAML_010:  # not a regular file, or a stalled stdin: FILE class
            print(f"nika check: {exc.code}: {printable(exc.detail)}", file=sys.stderr)
            return EXIT_USAGE
        from nika.check.verdict import refused

        verdict = refused([exc])  # past the profile's cap: the check's own finding, unread
    else:
        if args.infer_permits:
            return _infer_permits(source, args.file)
        verdict = check(source, path=None if args.file == "-" else args.file, lint=lint)
    if args.json:
        from nika._term import json_printable

        extra = {"native_strict": strict_section(verdict)} if strict else None
        sys.stdout.write(json_printable(verdict.to_json(extra)) + "\n")
    else:
        name = "<stdin>" if args.file == "-" else args.file
        if _snippets(args.format):
            from nika.check.render import render_terminal

            sys.stdout.write(render_terminal(verdict, name, source, strict=strict))
        else:
            sys.stdout.write(render_human(verdict, name, strict=strict))
    if strict:
        return EXIT_FINDINGS if strict_failures(verdict) else EXIT_OK
    return EXIT_OK if verdict.valid else EXIT_FINDINGS


def _snippets(chosen: str) -> bool:
    """`--format full` (the source line and a caret under each finding) or `short` (one
    line a finding); `auto` is full on a terminal, short in a pipe or a file."""
    return chosen == "full" or (chosen == "auto" and sys.stdout.isatty())


def _add_check(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("check", help="statically check a workflow (never executes anything)")
    p.add_argument("file", metavar="FILE", help="the workflow file, or - for stdin")
    p.add_argument("--json", action="store_true", help="print the verdict as canonical JSON")
    p.add_argument(
        "--lint",
        action="store_true",
        help="add the preference warnings (one-obvious-way/*, native-first/*) to the JSON "
        'as "lints" (the human view always shows them)',
    )
    p.add_argument(
        "--native-strict",
        action="store_true",
        help="the strict authoring posture (CI gates, an agent's final check): lints and "
        "hints fail the check too (exit 1)",
    )
    p.add_argument(
        "--format",
        choices=("auto", "full", "short"),
        default="auto",
        help="the human view: full shows each finding's source line with a caret and its fix, "
        "short one line a finding (grep-friendly); auto (default) is full on a terminal",
    )
    p.add_argument(
        "--infer-permits",
        action="store_true",
        help="print the permits: block the body needs, as YAML ready to paste",
    )
    p.add_argument(
        "--server",
        action="store_true",
        help="answer from the warm check server (started on first use, exits when idle; "
        "or set NIKA_CHECK_SERVER=1): same output, a fraction of the start-up cost",
    )
    p.set_defaults(handler=_run_check)


def _infer_permits(source: bytes, file: str) -> int:
    from nika.check.authority import infer_permits
    from nika.check.render import render_human
    from nika.check.verdict import refused
    from nika.errors import NikaError
    from nika.syntax.loader import load_document
    from nika.syntax.model import build_workflow

    try:
        workflow, errors = build_workflow(load_document(source, path=file))
    except NikaError as exc:
        workflow, errors = None, [exc]
    if workflow is None or errors:
        sys.stdout.write(render_human(refused(errors), file))
        return EXIT_FINDINGS
    sys.stdout.write(infer_permits(workflow)[1])
    return EXIT_OK


def _add_run(sub: argparse._SubParsersAction[_Parser]) -> None:
    from nika.cli.run import add_run  # built only when `nika run` is run (or --help)

    add_run(sub)


def _run_new(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nika.errors import NikaError
    from nika.packaged import scaffold, templates

    if args.template == "?":
        known = templates()
        width = max(map(len, known))
        sys.stdout.write("".join(f"{n:<{width}}  {about}\n" for n, about in known.items()))
        return EXIT_OK
    if args.file is None:
        print(f"nika new: name the file to write, e.g. nika new --from "
              f"{printable(args.template)} my-workflow.nika.yaml", file=sys.stderr)
        return EXIT_USAGE
    try:
        scaffold(args.template, Path(args.file))
    except NikaError as exc:
        print(f"nika new: {exc.code}: {printable(exc.detail)}", file=sys.stderr)
        return EXIT_USAGE
    shown = printable(args.file)
    print(f"wrote {shown} from the {args.template} template; next: nika check {shown} "
          f"&& nika run {shown} --model mock/echo, then fill each # SLOT:")
    return EXIT_OK


def _add_new(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("new", help="scaffold a workflow from a template (--from '?' lists them)")
    p.add_argument("--from", dest="template", metavar="TEMPLATE", required=True,
                   help="the template to copy (hello, agent, mcp, fanout, gate), or '?' to "
                   "list them")
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="the workflow to write, <name>.nika.yaml (never over an existing file)")
    p.set_defaults(handler=_run_new)


def _add_trace(sub: argparse._SubParsersAction[_Parser]) -> None:
    from nika.cli.trace import add_trace  # built only when `nika trace` is run (or --help)

    add_trace(sub)


def _run_lock(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nika.journal.lock import lock_command

    return lock_command(Path(args.file) if args.file else None,
                        mcp_config=Path(args.mcp_config) if args.mcp_config else None,
                        out=sys.stdout, err=sys.stderr)


def _add_lock(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("lock", help="pin every dependency of a workflow in nika.lock beside it")
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="the workflow file (default: the one *.nika.yaml here)")
    p.add_argument("--mcp-config", metavar="PATH", help="the MCP server registry to use")
    p.set_defaults(handler=_run_lock)


def _add_decide(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("decide", help="Decision Bundles (spec 11): verify a bundle")
    actions = p.add_subparsers(
        dest="action", metavar="ACTION", parser_class=_Parser, required=True, prog="nika decide"
    )
    verify = actions.add_parser(
        "verify", help="judge a bundle by every law, then evaluate each of its fixtures")
    verify.add_argument("file", metavar="BUNDLE", help="the bundle (one JSON document)")
    verify.set_defaults(handler=_run_decide)


def _run_decide(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nika._term import printable
    from nika.check.decisions import MAX_BUNDLE_BYTES
    from nika.decide.bundle import load
    from nika.decide.verify import Verification, render, verify
    from nika.errors import NikaError
    from nika.guarded_read import Unreadable, read_capped

    data = read_capped(Path(args.file), MAX_BUNDLE_BYTES)
    if isinstance(data, Unreadable):
        print(f"nika decide: cannot read {printable(args.file)!r}: it {data.why}",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        result = verify(load(data, args.file))
    except NikaError as err:  # not JSON: the bundle's structure law
        result = Verification(err)
    sys.stdout.write(render(result, args.file))
    return EXIT_OK if result.ok else EXIT_FINDINGS


def _add_inspect(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("inspect", help="print the workflow's graph (the canonical projection)")
    p.add_argument("file", metavar="FILE", help="the workflow file, or - for stdin")
    p.add_argument("--format", choices=("json", "mermaid"), default="json",
                   help="json: the graph document (graph_format 3), canonical; mermaid: a "
                   "flowchart of the same graph")
    p.set_defaults(handler=_serve)


def _add_lsp(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("lsp", help="serve diagnostics, hover, definition, completion and "
                       "fixes to an editor (Language Server Protocol over stdio)")
    p.set_defaults(handler=_serve)


def _add_mcp(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("mcp", help="serve the static oracle to coding agents (MCP over stdio; "
                       "read-only: check, inspect, explain, schema, examples)")
    p.add_argument("--allow-run", action="store_true",
                   help="also offer nika_run: the agent may run a workflow (checked first, "
                   "held to the permits it declares)")
    p.set_defaults(handler=_serve)


def _add_schema(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("schema", help="print the workflow JSON Schema (for an editor's "
                       "`# yaml-language-server: $schema=` line)")
    p.set_defaults(handler=_serve)


def _add_completion(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("completion", help="print a shell completion script: "
                       'eval "$(nika completion bash)"')
    p.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell")
    p.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    """The editor and agent surfaces (`nika.serve.commands`), given the full parser."""
    from nika.serve.commands import run_command

    return run_command(args, build_parser())


_SUBCOMMANDS: dict[str, Callable[[argparse._SubParsersAction[_Parser]], None]] = {
    "check": _add_check,
    "run": _add_run,
    "trace": _add_trace,
    "decide": _add_decide,
    "inspect": _add_inspect,
    "mcp": _add_mcp,
    "schema": _add_schema,
    "lsp": _add_lsp,
    "completion": _add_completion,
    "new": _add_new,
    "lock": _add_lock,
}


def build_parser(command: str | None = None) -> _Parser:
    """The argument parser: with `command`'s subparser alone when it names one, else with
    every registered subcommand (the top-level help and usage errors list them all)."""
    parser = _Parser(prog="nika", description="Nika v1 workflow engine")
    parser.add_argument("--version", action="version", version=f"nika {__version__}")
    # An explicit `prog` spares argparse formatting a usage line per run.
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=_Parser, prog="nika"
    )
    only = _SUBCOMMANDS.get(command or "")
    for add in (only,) if only is not None else _SUBCOMMANDS.values():
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    if argv is None:
        argv = sys.argv[1:]
    # Editors run `nika check` per keystroke: the other commands' parsers are not built for it.
    parser = build_parser(argv[0] if argv else None)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help / --version exit through argparse
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_OK
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_usage(sys.stderr)
        return EXIT_USAGE
    return handler(args)

