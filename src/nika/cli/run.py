"""`nika run`: its arguments, judged into `RunOptions`, and the handler that hands them with the
views (`view.console.Console`) to `run.launch.run_command`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Final, Literal

from nika.cli._parser import EXIT_USAGE, _Parser

if TYPE_CHECKING:
    from decimal import Decimal

    from nika.run.launch import SinkFactory


_MAX_BUDGET_USD: Final = 10**9
"""The largest `--max-cost-usd` (USD): past it a cap is no cap, and a huge exponent is refused
before any arithmetic."""


def _run_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nika.run.launch import RunOptions, Streams, run_command
    from nika.view.console import Console

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
    budget = _budget(args.max_cost_usd)
    if budget is False:
        print(f"nika run: --max-cost-usd {args.max_cost_usd!r} is not a positive number of "
              f"US dollars up to {_MAX_BUDGET_USD:,}, in no more digits than a float keeps; "
              "write e.g. --max-cost-usd 0.50", file=sys.stderr)
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
        resume_head=args.head,
        from_task=args.from_task,
        answers=tuple(args.answer),
        executor=args.executor,
        ray_address=args.ray_address,
        no_gc=args.no_gc,
        locked=args.locked,
        max_cost_usd=budget,
    )
    # Turn lines by default on a terminal; a pipe or a log file asks for them (`--progress`).
    turns = args.progress or (sys.stderr.isatty() and not options.json)
    views = Console(out=sys.stdout, json=options.json, report=options.report, turns=turns)
    return run_command(options, Streams(out=sys.stdout, err=sys.stderr), views,
                       extra_sinks=_otel_sinks())


def _budget(text: str | None) -> Decimal | None | Literal[False]:
    """`--max-cost-usd` as an exact amount, None when absent, False when it is no amount: not
    finite, not in (0, 10**9], or not exactly what the spend fold's float arithmetic holds
    (`0.30000000000000001` would silently be read as 0.3)."""
    from decimal import Decimal, InvalidOperation

    if text is None:
        return None
    try:
        amount = Decimal(text)
    except InvalidOperation:
        return False
    # The bound comes first: a huge exponent never reaches int() or float() (no hang, no crash).
    if not (amount.is_finite() and 0 < amount <= _MAX_BUDGET_USD):
        return False
    return amount if Decimal(repr(float(amount))) == amount else False


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


def add_run(sub: argparse._SubParsersAction[_Parser]) -> None:
    """Register `nika run` and its arguments on `sub`."""
    p = sub.add_parser("run", help="check, then execute a workflow")
    p.add_argument("file", metavar="FILE", help="the workflow file, or - for stdin")
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
    p.add_argument("--progress", action="store_true",
                   help="one stderr line per agent turn (turn n/max, tools called, tokens "
                   "used/budget, nudge or stall); the default when stderr is a terminal")
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
    p.add_argument("--no-gc", action="store_true",
                   help="skip this run's trace collection (ADR-100: per workflow the newest 10 "
                   "runs, 30 days, 256 MB per project; paused and newest runs are never "
                   "collected)")
    p.add_argument("--resume-unverified", action="store_true",
                   help="resume from a journal whose hash chain does not verify (the claim is "
                   "journaled on the boot manifest)")
    p.add_argument("--head", metavar="HEX",
                   help="with --resume: the head the original run printed (all 64 hex digits); "
                   "the journal must end there, or the resume is refused")
    p.add_argument("--from", dest="from_task", metavar="TASK",
                   help="with --resume: re-run TASK and everything downstream of it live")
    p.add_argument("--answer", action="append", default=[], metavar="TASK=VALUE",
                   help="answer the nika:prompt task TASK without a terminal (repeatable); "
                   "a prompt in a child workflow is named by its invoking task: call/approve")
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where task bodies run: this process (default) or a Ray cluster (the ray extra)",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="the Ray cluster to join (default $NIKA_RAY_ADDRESS; unset: a local instance)",
    )
    p.add_argument("--max-cost-usd", metavar="N",
                   help="the run's spend cap in US dollars: once priced spend exceeds it, "
                   "in-flight work completes and every unstarted task is cancelled "
                   "(cause budget, NIKA-RUN-1704)")
    p.add_argument("--locked", action="store_true",
                   help="refuse (NIKA-LOCK-001) before any task starts unless nika.lock beside "
                   "the workflow pins every dependency it resolves, unedited")
    p.set_defaults(handler=_run_run)
