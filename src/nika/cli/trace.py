"""`nika trace`: verify, show, ls, rm a run's journal; build, explain, verify its receipt."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from nika.cli._parser import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, _Parser

if TYPE_CHECKING:
    from nika.journal.verify import TraceVerdict


def _run_trace(args: argparse.Namespace) -> int:
    import re
    from pathlib import Path

    from nika._term import printable
    from nika.journal.verify import read_journal

    if args.last:
        from nika.journal.runs import runs

        newest = runs(Path(".nika/traces"))
        if args.file is not None or not newest:
            why = "give FILE or --last, not both" if newest else "no journal under .nika/traces/"
            print(f"nika trace: {why}", file=sys.stderr)
            return EXIT_USAGE
        args.file = str(newest[0].path)
    elif args.file is None:
        print("nika trace: name the journal FILE, or pass --last", file=sys.stderr)
        return EXIT_USAGE
    from nika.errors import NikaError

    try:
        data = read_journal(Path(args.file))
    except NikaError as exc:  # missing, not a regular file: the FILE class
        print(f"nika trace: {exc.code}: {printable(exc.detail)}", file=sys.stderr)
        return EXIT_USAGE
    from nika.journal.verify import HEAD_PREFIX_MIN, expand_head, is_journal

    if not is_journal(data):
        what = "it is empty" if not data.strip() else "it does not open with a JSON frame"
        print(f"nika trace: {printable(args.file)!r} is not a journal ({what}); journals are "
              "the .ndjson files `nika run` writes under .nika/traces/", file=sys.stderr)
        return EXIT_USAGE
    if args.head is not None:
        head = args.head.strip().lower()
        if not re.fullmatch("[0-9a-f]+", head) or not HEAD_PREFIX_MIN <= len(head) <= 64:
            print(f"nika trace: --head {printable(args.head)!r} is not a head; give the hex "
                  f"digits `nika run` printed, all 64 or the first {HEAD_PREFIX_MIN} or more",
                  file=sys.stderr)
            return EXIT_USAGE
        args.head = expand_head(data, head)
    if args.action == "verify":
        from nika.view.verify_report import report

        verdict, lines = report(data, head=args.head)
        sys.stdout.write("".join(line + "\n" for line in lines))
    else:
        from nika.journal.verify import read_frames, verify

        verdict = verify(data, head=args.head)
        if args.html:
            return _write_html(args.html, data, verdict, str(Path(args.file)))
        from rich.console import Console

        from nika.view.trace_show import render

        render(read_frames(data), verdict, str(Path(args.file)), Console(highlight=False),
               full=args.full)
    # The tier ladder: every verdict that walks the chain (clean · finding · incomplete)
    # exits 0; a broken chain or a refused journal exits 2, the FILE class.
    return EXIT_OK if verdict.walks else EXIT_USAGE


def _write_html(out: str, data: bytes, verdict: TraceVerdict, name: str) -> int:
    """`nika trace show --html OUT`: the page goes to OUT; the chain verdict sets the exit."""
    from pathlib import Path

    from nika._term import printable
    from nika.journal.verify import read_frames
    from nika.view.assets import run_root
    from nika.view.trace_html import render_html

    page = render_html(read_frames(data), verdict, name, run_root(Path(name))).encode("utf-8")
    try:
        with open(out, "wb") as handle:
            handle.write(page)
    except OSError as exc:
        print(f"nika trace: cannot write {printable(out)!r}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {printable(out)} ({len(page):,} bytes) · {printable(verdict.render())}")
    return EXIT_OK if verdict.walks else EXIT_USAGE  # the same tier ladder as the text view


def add_trace(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("trace", help="read a run journal (.nika/traces/*.ndjson)")
    actions = p.add_subparsers(
        dest="action", metavar="ACTION", parser_class=_Parser, required=True, prog="nika trace"
    )
    verify = actions.add_parser(
        "verify", help="walk the hash chain: CLEAN · FINDING · INCOMPLETE · FORGED · REFUSED")
    show = actions.add_parser("show", help="render the run as a readable timeline")
    show.add_argument("--html", metavar="OUT",
                      help="write the run as one self-contained HTML page to OUT instead")
    show.add_argument("--full", action="store_true",
                      help="show every prompt, reply, tool call and output whole "
                      "(long values are folded otherwise)")
    for action in (verify, show):
        action.add_argument("file", metavar="FILE", nargs="?",
                            help="the journal file (or --last)")
        action.add_argument("--last", action="store_true",
                            help="the newest journal under .nika/traces/")
        action.add_argument(
            "--head", metavar="HEX",
            help="the head printed at run end (all 64 hex digits, or the first 12 or more): "
            "binds the last line too"
        )
        action.set_defaults(handler=_run_trace)
    listing = actions.add_parser("ls", help="the recent runs: started, workflow, outcome, "
                                 "duration, tokens, cost, size, journal")
    remove = actions.add_parser("rm", help="remove journals (a paused run's needs --force)")
    remove.add_argument("files", metavar="JOURNAL", nargs="*", help="the journals to remove")
    remove.add_argument("--older-than", metavar="DAYS", type=float,
                        help="every journal that started more than DAYS days ago")
    remove.add_argument("--all", action="store_true", help="every journal")
    remove.add_argument("--force", action="store_true",
                        help="remove a paused run's journal too (its prompt is lost)")
    for action in (listing, remove):
        action.add_argument("--dir", metavar="DIR", default=".nika/traces",
                            help="where the journals are (default .nika/traces)")
        action.set_defaults(handler=_run_trace_list)
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


def _run_trace_list(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from nika._term import printable
    from nika.journal.runs import runs

    entries = runs(Path(args.dir), tokens=args.action == "ls")  # `rm` needs no token counts
    if args.action == "ls":
        from nika.view.trace_list import render

        sys.stdout.write("".join(f"{line}\n" for line in render(entries, Path.cwd())))
        return EXIT_OK
    if not (args.files or args.all or args.older_than is not None):
        print("nika trace rm: name the JOURNALs, or pass --older-than DAYS or --all",
              file=sys.stderr)
        return EXIT_USAGE
    named = {Path(f).resolve() for f in args.files}
    cutoff = time.time_ns() - int((args.older_than or 0) * 86_400e9)
    chosen = [e for e in entries if args.all or e.path.resolve() in named or (
        args.older_than is not None and e.started_ns is not None and e.started_ns < cutoff)]
    missing = named - {e.path.resolve() for e in entries}
    status = EXIT_OK
    for path in sorted(missing):
        print(f"nika trace rm: {printable(str(path))!r} is not a journal under {args.dir}",
              file=sys.stderr)
        status = EXIT_USAGE
    for entry in chosen:
        if entry.state == "paused" and not args.force:
            print(f"nika trace rm: kept {printable(str(entry.path))}: this trace carries an "
                  f"unanswered prompt for task {printable(', '.join(entry.paused))!r}; pass "
                  "--force to remove it anyway", file=sys.stderr)
            status = EXIT_FINDINGS
            continue
        entry.path.unlink(missing_ok=True)
        print(f"removed {printable(str(entry.path))}")
    return status


def _run_receipt(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nika.view.evidence import receipt_command

    def path(name: str) -> Path | None:
        value = getattr(args, name, None)
        return Path(value) if value else None

    return receipt_command(args.step, Path(args.file), journal=path("journal"),
                           workflow=path("workflow"), output=path("output"),
                           out=sys.stdout, err=sys.stderr)
