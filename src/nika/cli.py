"""The `nika` command: a thin shell over the library.

Exit codes: 0 clean · 1 findings or failure · 2 usage. `nika trace verify` follows the spec's
tier ladder instead: 0 whenever the chain walks (clean · finding · incomplete), 2 for a
forged or refused journal (the FILE class). Each subcommand registers
itself from one `_add_<name>` function listed in `_SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from nika import __version__, codes
from nika._term import printable, terminal_columns

if TYPE_CHECKING:
    from nika.runtime.launch import SinkFactory
    from nika.runtime.trace import TraceVerdict

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

Handler = Callable[[argparse.Namespace], int]


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized without `shutil`: argparse builds one per argument
    just to validate its metavar, and `shutil` (with bz2, lzma) is no part of a check."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=terminal_columns() - 2)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error returns through `main` instead of calling `sys.exit`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise _UsageError(f"{self.prog}: error: {message}")


class _UsageError(Exception):
    pass


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
        sys.stdout.write(render_human(verdict, name, strict=strict))
    if strict:
        return EXIT_FINDINGS if strict_failures(verdict) else EXIT_OK
    return EXIT_OK if verdict.valid else EXIT_FINDINGS


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


def _run_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nika.runtime.launch import RunOptions, Streams, run_command

    if args.concurrency < 1:
        print("nika run: --concurrency must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if args.json and args.output == "json":
        print("nika run: --json (the event stream) and --output json (the outputs object) "
              "both claim stdout; pass one of them", file=sys.stderr)
        return EXIT_USAGE
    if args.ray_address is not None and args.executor != "ray":
        print("nika run: --ray-address needs --executor ray", file=sys.stderr)
        return EXIT_USAGE
    options = RunOptions(
        file=Path(args.file),
        vars=tuple(args.var),
        model=args.model,
        json=args.json,
        output=args.output,
        report=Path(args.report) if args.report else None,
        concurrency=args.concurrency,
        mcp_config=Path(args.mcp_config) if args.mcp_config else None,
        resume=Path(args.resume) if args.resume else None,
        resume_compat=args.resume_compat,
        resume_unverified=args.resume_unverified,
        from_task=args.from_task,
        answers=tuple(args.answer),
        executor=args.executor,
        ray_address=args.ray_address,
    )
    return run_command(options, Streams(out=sys.stdout, err=sys.stderr), extra_sinks=_otel_sinks())


def _otel_sinks() -> tuple[SinkFactory, ...]:
    """With the `otel` extra installed, every run also reports through the OpenTelemetry API
    (a no-op until the embedder configures an SDK); NIKA_OTEL_SPAN_EVENTS=1 mirrors the agent
    decision events as span events."""
    import os

    from nika.telemetry import otel_available

    if not otel_available():
        return ()
    from nika.telemetry.otel_sink import OtelSink

    mirror = os.environ.get("NIKA_OTEL_SPAN_EVENTS", "") not in ("", "0")
    return (lambda journal: OtelSink(frames=journal, mirror_span_events=mirror),)


def _add_run(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("run", help="check, then execute a workflow")
    p.add_argument("file", metavar="FILE", help="the workflow file")
    p.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="K=V",
        help="supply an input (repeatable; JSON when it parses, else a string)",
    )
    p.add_argument("--model", help="the default model for tasks that name none (provider/name)")
    p.add_argument("--json", action="store_true", help="stream run events as NDJSON on stdout")
    p.add_argument(
        "--output",
        choices=("json",),
        help="json: print only the workflow's typed outputs as one JSON object on stdout "
        "(nothing when the run does not succeed); how one workflow reads another's result",
    )
    p.add_argument("--report", metavar="PATH", help="write the run report (JSON) to PATH")
    p.add_argument(
        "--concurrency",
        type=int,
        default=8,
        metavar="N",
        help="how many verbs may run at once (default 8)",
    )
    p.add_argument("--mcp-config", metavar="PATH", help="the MCP server registry to use")
    p.add_argument("--resume", metavar="JOURNAL",
                   help="resume from a run's journal: tasks whose definition and inputs match a "
                   "recorded completion are served from it (task_cache_hit), the rest run")
    p.add_argument("--resume-compat", metavar="VERSION",
                   help="declare a journal recorded by another engine version compatible "
                   "(must name the recorded version exactly; journaled on the boot manifest)")
    p.add_argument("--resume-unverified", action="store_true",
                   help="resume from a journal whose hash chain does not verify (the claim is "
                   "journaled on the boot manifest)")
    p.add_argument("--from", dest="from_task", metavar="TASK",
                   help="with --resume: re-run TASK and everything downstream of it live")
    p.add_argument("--answer", action="append", default=[], metavar="TASK=VALUE",
                   help="answer the nika:prompt task TASK without a terminal (repeatable); "
                   "a prompt in a child workflow is named by its invoking task: call/approve")
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where task bodies run: this process (default) or a Ray cluster (nika[ray])",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="the Ray cluster to join (default $NIKA_RAY_ADDRESS; unset: a local instance)",
    )
    p.set_defaults(handler=_run_run)


def _run_trace(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nika.errors import NikaError
    from nika.runtime.trace import read_journal

    try:
        data = read_journal(Path(args.file))
    except NikaError as exc:  # missing, not a regular file: the FILE class
        print(f"nika trace: {exc.code}: {printable(exc.detail)}", file=sys.stderr)
        return EXIT_USAGE
    if args.action == "verify":
        from nika.runtime.verify_report import report

        verdict, lines = report(data, head=args.head)
        sys.stdout.write("".join(line + "\n" for line in lines))
    else:
        from nika.runtime.trace import read_frames, verify

        verdict = verify(data, head=args.head)
        if args.html:
            return _write_html(args.html, data, verdict, str(Path(args.file)))
        from rich.console import Console

        from nika.runtime.trace_show import render

        render(read_frames(data), verdict, str(Path(args.file)), Console(highlight=False))
    # The tier ladder: every verdict that walks the chain (clean · finding · incomplete)
    # exits 0; a broken chain or a refused journal exits 2, the FILE class.
    return EXIT_OK if verdict.walks else EXIT_USAGE


def _write_html(out: str, data: bytes, verdict: TraceVerdict, name: str) -> int:
    """`nika trace show --html OUT`: the page goes to OUT; the chain verdict sets the exit."""
    from nika._term import printable
    from nika.runtime.trace import read_frames
    from nika.runtime.trace_html import render_html

    page = render_html(read_frames(data), verdict, name).encode("utf-8")
    try:
        with open(out, "wb") as handle:
            handle.write(page)
    except OSError as exc:
        print(f"nika trace: cannot write {printable(out)!r}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {printable(out)} ({len(page):,} bytes) · {printable(verdict.render())}")
    return EXIT_OK if verdict.walks else EXIT_USAGE  # the same tier ladder as the text view


def _add_trace(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("trace", help="read a run journal (.nika/traces/*.ndjson)")
    actions = p.add_subparsers(
        dest="action", metavar="ACTION", parser_class=_Parser, required=True, prog="nika trace"
    )
    verify = actions.add_parser(
        "verify", help="walk the hash chain: CLEAN · FINDING · INCOMPLETE · FORGED · REFUSED")
    show = actions.add_parser("show", help="render the run as a readable timeline")
    show.add_argument("--html", metavar="OUT",
                      help="write the run as one self-contained HTML page to OUT instead")
    for action in (verify, show):
        action.add_argument("file", metavar="FILE", help="the journal file")
        action.add_argument(
            "--head", metavar="HEX", help="the head printed at run end: binds the last line too"
        )
        action.set_defaults(handler=_run_trace)
    receipt = actions.add_parser("receipt", help="the run receipt: build · explain · verify")
    steps = receipt.add_subparsers(dest="step", metavar="STEP", parser_class=_Parser,
                                   required=True, prog="nika trace receipt")
    build = steps.add_parser("build", help="fold a journal and its workflow into a receipt")
    build.add_argument("file", metavar="JOURNAL", help="the run's journal")
    build.add_argument("--workflow", metavar="FILE", required=True,
                       help="the workflow the journal ran")
    build.add_argument("--output", metavar="OUT", help="write the receipt to OUT")
    explain = steps.add_parser("explain", help="read a receipt: every field's projection")
    explain.add_argument("file", metavar="RECEIPT", help="the receipt (JSON)")
    check = steps.add_parser("verify", help="prove a receipt: digest, journal, workflow")
    check.add_argument("file", metavar="RECEIPT", help="the receipt (JSON)")
    check.add_argument("--journal", metavar="FILE", help="re-walk this journal")
    check.add_argument("--workflow", metavar="FILE", help="re-hash this workflow")
    for step in (build, explain, check):
        step.set_defaults(handler=_run_receipt)


def _run_receipt(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nika.runtime.evidence import receipt_command

    def path(name: str) -> Path | None:
        value = getattr(args, name, None)
        return Path(value) if value else None

    return receipt_command(args.step, Path(args.file), journal=path("journal"),
                           workflow=path("workflow"), output=path("output"),
                           out=sys.stdout, err=sys.stderr)


_SUBCOMMANDS: dict[str, Callable[[argparse._SubParsersAction[_Parser]], None]] = {
    "check": _add_check,
    "run": _add_run,
    "trace": _add_trace,
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


if __name__ == "__main__":
    sys.exit(main())
