"""`nika trace show FILE --html OUT`: a run journal as one self-contained HTML page.

One file, nothing fetched: the CSS and the few lines of script are inline, and a
Content-Security-Policy forbids every other source (the script is allowed by its hash), so the
page works offline and a hostile journal cannot make it load or run anything. Every string
from the journal is shown visibly escaped (`nika._term.printable`: controls and bidi overrides
become `\\x1b`-style text) and then HTML-escaped.

The page, top to bottom: the run's outcome (success · failure with its code · cancelled ·
paused) with the chain verdict beside it (CLEAN · FINDING · INCOMPLETE · FORGED · REFUSED);
the run's manifest and its totals over every verb (model calls, tokens, cost at the engine's
price table — « unpriced » when it has no rate, never $0); the tasks as a timeline (tokens,
cost, one bar per task over the run's wall time, child-workflow tasks indented under the task
that invoked them); the workflow's outputs; then each task: an agent task as a section, any
other as one line, both with their captured values (`_page.values`: long ones folded with
their size). An agent task lists its turns, one line each — tools offered of the universe and
the router's reason, the model call's tokens, latency and cost, the tools called, the turn and
token budgets as bars, nudge/stall flags — and unfolds to the offered tools with the ranked
picks' scores, the model's reply, each call's masked arguments and result, the compose
verdicts, and the nudge or stall with its evidence (the repeated block of turns is marked). A
strip of cells maps every turn of a run, so a 500-turn run is scanned at a glance; "only turns
with events" hides the uneventful ones. The layout reads at a desktop width and on a phone.
The files the tasks produced come after the outputs (`view/assets.py`): a PNG's bounded
thumbnail inline as a `data:` image, the one image source the CSP allows.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from nika import __version__
from nika.journal.ledger import Spend
from nika.journal.verify import Frame, TraceVerdict
from nika.view._page import (
    CSP,
    CSS,
    JS,
    UNREC,
    as_json,
    call_cost,
    cost,
    e,
    fold,
    headline,
    ms,
    num,
    summary,
    values,
)
from nika.view.assets import section
from nika.view.recovery import recovery_text
from nika.view.trace_view import (
    AgentRun,
    TaskView,
    TracedCall,
    TraceView,
    Turn,
)
from nika.view.trace_view import fold as fold_trace


def _meter(used: int | None, cap: int | None, peak: int = 0) -> str:
    """A budget bar: `used` of `cap`; with no cap (∞), grey and relative to the run's `peak`."""
    if used is None:
        return UNREC
    share = min(used / (cap or peak or 1), 1.0)
    style = " class=rel" if cap is None else " class=hot" if share >= 0.9 else ""
    bound = "∞" if cap is None else f"{cap:,}"
    return (f'<span class=meter><i{style} style="width:{share * 100:.1f}%"></i></span>'
            f"{used:,}/{bound}")


def _tokens(turn: Turn) -> str:
    if turn.input_tokens is None and turn.output_tokens is None:
        return '<span class="unrec">tokens unrecorded</span>'
    return f"{num(turn.input_tokens)}→{num(turn.output_tokens)} tok"


def _model_call(turn: Turn) -> str:
    """The turn's call: tokens in→out, latency, cost."""
    return f"{_tokens(turn)} · {ms(turn.latency_ms)} · {call_cost(turn.cost)}"


def _route(turn: Turn) -> str:
    offered = "?" if turn.offered is None else str(len(turn.offered))
    why = f" <small>({e(turn.reason)})</small>" if turn.reason not in (None, turn.mode) else ""
    return f"{offered}/{e(turn.universe)} offered · <b>{e(turn.mode)}</b>{why}"


def _call_line(call: TracedCall) -> str:
    status = (f"<span class=s-success>ok</span> {e(call.result_bytes)} B" if call.ok
              else f"<span class=s-failure>error {e(call.error_code or '')}</span>")
    return (f"<b>{e(call.name)}</b> <small class=mono>{e(call.call_id)}</small> · "
            f"{ms(call.duration_ms)} · {status}")


def _evidence(turn: Turn) -> str:
    out = []
    for c in turn.compose:
        codes = c.error_codes
        verdict = ("<span class=s-success>valid</span>" if c.valid is True else
                   "<span class=s-failure>invalid</span> " + e(
                       ", ".join(codes) if codes is not None else codes))
        out.append(f"<div>compose · {verdict} · {e(c.draft_bytes)} B draft · "
                   f"{e(c.escapes)} escapes</div>")
    if turn.nudge is not None:
        n = turn.nudge
        why = (f"every tool call failed, {e(n.repeats)} turns in a row"
               if n.reason == "error_streak" else
               f"the same {e(n.period)}-turn block of tool calls repeated "
               f"{e(n.repeats)} times with identical results")
        out.append(f"<div class='evidence nudge'><b>Nudged</b> ({e(n.reason)}): {why};"
                   " the loop sent the model one corrective message. The turns it counted are "
                   "marked.</div>")
    if turn.stall is not None:
        s = turn.stall
        shown = ", ".join(s.signatures) if s.signatures is not None else None
        out.append(f"<div class='evidence stall'><b>Stalled</b>: the same "
                   f"{e(s.period)}-turn block of tool calls repeated "
                   f"{e(s.repeats)} times with identical results, so the loop was "
                   "stopped (NIKA-AGENT-006). The repeated turns are marked; their calls and "
                   f"results are above. <small>signatures</small> <code>{e(shown)}</code>"
                   "</div>")
    return "".join(out)


def _offer(turn: Turn, previous: Turn | None) -> str:
    """What the router offered and why: ranked picks best first with their BM25 scores, then
    what rode along (pinned intrinsics, recent tools) — or the whole universe. An offer equal
    to the previous turn's says so instead of listing it again."""
    sources = " ".join(f"{e(k)} {v}" for k, v in turn.by_source.items() if v)
    head = (f"<small>{_route(turn)} · by source: {sources or 'unrecorded'} · model "
            f"{e(turn.model)} · finish {e(turn.finish_reason)}</small>")
    if turn.offered is None:
        return f"<div class=offered>{head}</div>"
    if previous is not None and previous.offered == turn.offered:
        return (f"<div class=offered>{head}<div><small>the same tools as turn "
                f"{e(previous.number)}</small></div></div>")
    ranked = sorted(turn.scores.items(), key=lambda kv: (-kv[1], kv[0]))
    picks = "".join(f"<span class=ranked>{e(name)} <small>{score:.2f}</small></span>"
                    for name, score in ranked)
    rest = "".join(f"<span>{e(name)}</span>" for name in turn.offered
                   if name not in turn.scores)
    lines = [head]
    if picks:
        scorer = "fused rank" if turn.reason == "fused" else "BM25"
        lines.append(f"<div><small>ranked picks, best first ({scorer} score)</small> {picks}"
                     "</div>")
    if rest:
        label = "pinned or recent" if picks else "offered"
        lines.append(f"<div><small>{label}</small> {rest}</div>")
    return f"<div class=offered>{''.join(lines)}</div>"


def _turn(turn: Turn, previous: Turn | None, anchor: str, peak_tokens: int) -> str:
    flags, classes = [], ["turn"]
    for on, name in ((turn.stall is not None, "stall"), (turn.nudge is not None, "nudge"),
                     (turn.has_error, "err")):
        if on:
            flags.append(f"<span class='flag {name}'>{name}</span>")
            classes.append(name)
    if turn.in_cycle:
        classes.append("cycle")
    if flags or turn.in_cycle or turn.compose:
        classes.append("ev")
    calls = " ".join(
        f"<span class={'s-success' if c.ok else 's-failure'}>{e(c.name)}</span>"
        for c in turn.tools) or '<span class=mute>no tool call</span>'
    summary = (
        f"<summary><span>#{e(turn.number)}</span><span>{_route(turn)}</span>"
        f"<span>{_model_call(turn)}</span><span>{calls}</span>"
        f"<span>{_meter(turn.turns_used, turn.max_turns)}</span>"
        f"<span>{_meter(turn.tokens_used, turn.max_tokens, peak_tokens)}</span>"
        f"<span>{''.join(flags)}</span></summary>")
    # A turn a reader stops at (nudge, stall, error) always shows its whole offer.
    body = [_offer(turn, None if flags else previous), values(turn.values)]
    for call in turn.tools:
        body.append(f"<div class='call{'' if call.ok else ' bad'}'>{_call_line(call)}"
                    f"{values(call.values)}</div>")
    body.append(_evidence(turn))
    opened = " open" if turn.stall is not None else ""
    return (f"<details class='{' '.join(classes)}' id={anchor}{opened}>{summary}"
            f"<div class=body>{''.join(body)}</div></details>")


_TURN_HEAD: Final = (
    "<div class=thead><span>turn</span><span>offered · reason</span>"
    "<span>model call · cost</span><span>tools called</span><span>turns used</span>"
    "<span>tokens used</span><span>flags</span></div>")


def _run(task_id: str, index: int, run: AgentRun, multi: bool) -> str:
    out = []
    if multi:
        item = "" if run.iteration is None else f" item {e(run.iteration)}"
        out.append(f"<h3>run{item} · attempt {e(run.attempt)}</h3>")
    out.append(values(run.values))  # what the run was told, before what it did
    peak = max((t.tokens_used or 0 for t in run.turns.values()), default=0)
    cells, rows = [], []
    previous: Turn | None = None
    for n, turn in enumerate(run.turns.values()):
        anchor = f"{task_id}-r{index}-{n}"
        kind = ("c-stall" if turn.stall is not None else "c-nudge" if turn.nudge is not None
                else "c-err" if turn.has_error else "")
        cells.append(f"<a class='{kind}' href='#{anchor}' title='turn {e(turn.number)}'></a>")
        rows.append(_turn(turn, previous, anchor, peak))
        previous = turn
    out.append(f"<div class=strip>{''.join(cells)}</div>")
    out.append(f"<div class=turns>{_TURN_HEAD}{''.join(rows)}</div>")
    return "".join(out)


def task_error(error: Mapping[str, Any] | None) -> str:
    """A task's (or the run's) error: its code and detail, and a stall's evidence."""
    if error is None:
        return ""
    details = error.get("details")
    parts = [f"<div class=err><b>{e(error.get('code'))}</b> {e(error.get('detail'))}"]
    if isinstance(details, Mapping) and details.get("kind") == "Stalled":
        parts.append(f"<div><small>repeated block · period {e(details.get('period'))} × "
                     f"{e(details.get('repeats'))} · signatures</small> "
                     f"<code>{e(', '.join(map(str, details.get('signatures') or [])))}</code>"
                     "</div>")
        calls = details.get("calls")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, Mapping):
                parts.append(f"<div><small>call</small> <b>{e(call.get('name'))}</b>"
                             f"{fold(as_json(call.get('args')))}</div>")
        parts.append(values({"partial output": details.get("partial_output")}))
    parts.append("</div>")
    return "".join(parts)


def _task(task: TaskView, index: int) -> str:
    """An agent task (or a failed one) as a section; any other task as one line and its
    values."""
    anchor = f"t{index}"
    label = " · ".join(e(x) for x in (task.verb, task.model) if x is not None)
    turns = "turn" if task.turns == 1 else "turns"
    counts = f" · {num(task.turns)} {turns}" if task.turns is not None else ""
    spent = f" · {num(task.spend.tokens)} tokens" if task.spend.calls else ""
    recovered = ("" if task.recovered_from is None else
                 f" (recovered by on_error from {e(recovery_text(task.recovered_from))})")
    outcome = (f"<span class='s-{e(task.status)}'>■ {e(task.status)}{recovered} · "
               f"{ms(task.duration_ms)}{counts}{spent}</span> · {cost(task.spend)}")
    notes = ""
    if task.notes:
        items = "".join(f"<li>{e(note)}</li>" for note in task.notes)
        notes = (f"<details><summary><small>{len(task.notes)} other frames (permits, "
                 f"retries, calls)</small></summary><ul>{items}</ul></details>")
    if not task.runs and task.error is None:
        return (f"<div class='task plain' id={anchor}><b>{e(task.name)}</b> <small>{label}"
                f"</small> {outcome}{notes}{values(task.values)}</div>")
    runs = list(task.runs.values())
    universe = f" · universe {e(runs[0].universe)}" if runs else ""
    parts = [f"<section class=task id={anchor}><h2>{e(task.name)} <small>{label}{universe}"
             f"</small></h2><div>{outcome}</div>", task_error(task.error)]
    parts += [_run(anchor, i, run, len(runs) > 1) for i, run in enumerate(runs)]
    parts.append(f"{values(task.values)}{notes}</section>")
    return "".join(parts)


def _timeline(view: TraceView, tasks: list[TaskView]) -> str:
    first = view.first_ns or 0
    span = max((view.last_ns or first) - first, 1)
    rows = ["<div class=hd>task</div><div class='hd c-verb'>verb</div><div class=hd>status"
            "</div><div class=hd>time</div><div class=hd>tokens</div><div class=hd>cost</div>"
            "<div class='hd c-bar'>timeline</div>"]
    for i, task in enumerate(tasks):
        start = (task.start_ns or first) - first
        end = (task.end_ns or first) - first
        left, width = start / span * 100, max(end - start, 0) / span * 100
        indent = f' style="padding-left:{task.depth * 14}px"' if task.depth else ""
        status = e(task.status)
        tokens = num(task.spend.tokens) if task.spend.calls else "<span class=mute>–</span>"
        rows.append(
            f"<div class=trow{indent}><a href='#t{i}'>{e(task.name)}</a></div>"
            f"<div class=c-verb><small>{' · '.join(e(x) for x in (task.verb, task.model) if x)}"
            f"</small></div><div class='s-{status}'>{status}</div>"
            f"<div>{ms(task.duration_ms)}</div><div>{tokens}</div><div>{cost(task.spend)}</div>"
            f"<div class='track c-bar'><div class='bar s-{status}' "
            f"style='left:{left:.2f}%;width:{width:.2f}%'></div></div>")
    return f"<section id=timeline><h2>Tasks</h2><div class=tl>{''.join(rows)}</div></section>"


def _outputs(view: TraceView) -> str:
    if not view.values or view.values == {"outputs": {}}:  # none declared
        return ""
    return f"<section id=outputs><h2>Workflow outputs</h2>{values(view.values)}</section>"


def render_html(frames: Iterable[Frame], verdict: TraceVerdict, name: str,
                root: Path | None = None) -> str:
    """The whole page for the journal `name` (its `frames`, under the chain `verdict`);
    `root`, the run's directory, is where a PNG asset's thumbnail is read from (None: the
    assets are listed without one)."""
    return render_view(fold_trace(frames, verdict), name, root)


def render_view(view: TraceView, name: str, root: Path | None = None) -> str:
    """The whole page for a folded journal `view` named `name` (`root`: as `render_html`)."""
    tasks = view.ordered()
    total = Spend()
    for task in tasks:
        total.absorb(task.spend)
    title = e(view.workflow.workflow or name)
    body = [
        headline(view),
        f"<main>{summary(view, name, total)}{task_error(view.end_error)}",
        "<nav><label><input type=checkbox id=only> only turns with events (nudges, stalls, "
        "errors, cycles, compose)</label> <button id=open>expand all turns</button>"
        "<button id=close>collapse all</button></nav>",
        _timeline(view, tasks),
        _outputs(view),
        section(((task.name, row) for task in tasks for row in task.assets), root),
        *(_task(task, i) for i, task in enumerate(tasks)),
        f"<p class=mute>nika-py {html.escape(__version__)} · nika trace show --html</p></main>",
    ]
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8>"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>nika trace · {title}</title><style>{CSS}</style></head><body>"
            f"{''.join(body)}<script>{JS}</script></body></html>\n")
