"""`nika trace show FILE --html OUT`: a run journal as one self-contained HTML page.

One file, nothing fetched: the CSS and the few lines of script are inline, and a
Content-Security-Policy forbids every other source (the script is allowed by its hash), so the
page works offline and a hostile journal cannot make it load or run anything. Every string
from the journal is shown visibly escaped (`nika._term.printable`: controls and bidi overrides
become `\\x1b`-style text) and then HTML-escaped.

The page, top to bottom: the chain verdict (CLEAN · FINDING · INCOMPLETE · FORGED · REFUSED,
with its findings) and the run's state; the run's manifest and totals; the tasks as a
timeline (one bar per task over the run's wall time, child-workflow tasks indented under the
task that invoked them); then one section per agent task (any other task is one line). An
agent task lists its turns, one line each — tools offered of the universe and the router's
reason (passthrough · ranked · fail_open), the model call's tokens and latency, the tools
called, the turn and token budgets as bars, nudge/stall flags — and unfolds to the offered
tools with the ranked picks' scores, each call's masked arguments and result (long values
folded), the compose verdicts, and the nudge or stall with its evidence (the repeated block of
turns is marked). A strip of cells maps every turn of a run, so a 500-turn run is scanned at a
glance; "only turns with events" hides the uneventful ones.

The files the tasks produced come after the timeline (`view/assets.py`): a PNG's bounded
thumbnail inline as a `data:` image, the one image source the CSP allows.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from nika import __version__
from nika._term import printable
from nika.journal.verify import Frame, TraceVerdict
from nika.view.assets import section
from nika.view.trace_view import (
    AgentRun,
    TaskView,
    TracedCall,
    TraceView,
    Turn,
    fold,
    recovery_text,
)

FOLD_AT: Final = 160
"""Values longer than this many characters are folded behind their first line."""

_CSS: Final = """
ul.assets{list-style:none;padding:0}
ul.assets li{display:flex;gap:10px;align-items:center;margin:4px 0}
.thumb{width:64px;height:64px;object-fit:contain;background:var(--bg);flex:none}
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--mute:#656d76;--line:#d0d7de;--bg:#f6f8fa}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1f2328}
main{max-width:1200px;margin:0 auto;padding:0 16px 48px}
code,pre,.mono{font:12px/1.4 ui-monospace,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:var(--bg);padding:6px;margin:4px 0}
h2{font-size:17px;margin:24px 0 6px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:12px 0 4px}
small,.mute,.unrec{color:var(--mute)}
.unrec{font-style:italic}
#verdict{display:flex;gap:14px;align-items:center;padding:12px 16px;color:#fff}
#verdict .badge{font-size:22px;font-weight:700}
.v-clean{background:var(--ok)}.v-forged,.v-refused{background:var(--bad)}
.v-incomplete,.v-finding{background:var(--warn)}
.facts{display:flex;flex-wrap:wrap;gap:4px 18px;margin:8px 0}
.s-success{color:var(--ok)}.s-failure{color:var(--bad)}.s-cancelled{color:#8250df}
.s-skipped{color:var(--warn)}
nav{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid var(--line);
z-index:1}
button{font:inherit;margin-right:6px}
.tl{display:grid;grid-template-columns:minmax(120px,220px) 180px 80px 70px 1fr;gap:2px 8px;
align-items:center}
.tl>.hd{font-weight:600;color:var(--mute)}
.track{position:relative;height:12px;background:var(--bg)}
.bar{position:absolute;top:1px;bottom:1px;min-width:2px;background:#54aeff}
.bar.s-failure{background:var(--bad)}.bar.s-skipped,.bar.s-cancelled{background:#afb8c1}
.task{margin-top:8px}
.plain{display:flex;flex-wrap:wrap;gap:0 10px;align-items:baseline;margin-top:2px}
.err{border-left:4px solid var(--bad);background:#ffebe9;padding:6px 10px;margin:6px 0}
.strip{display:flex;flex-wrap:wrap;gap:1px;margin:6px 0}
.strip a{width:9px;height:14px;background:#afb8c1;display:block}
.strip a.c-err{background:#fb8f44}.strip a.c-nudge{background:#d4a72c}
.strip a.c-stall{background:var(--bad)}
.turn>summary,.thead{display:grid;gap:8px;padding:2px 4px;align-items:center;
grid-template-columns:44px 215px 160px 1fr 110px 180px 60px}
.turn>summary{cursor:pointer;border-bottom:1px solid #eaeef2}
.thead{font-weight:600;color:var(--mute);font-size:12px}
.turn>summary>span{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.turn.cycle>summary{background:#fff8c5}
.turn.nudge>summary{background:#ffe58f}
.turn.stall>summary{background:#ffcecb;font-weight:600}
.body{padding:4px 8px 10px 52px;border-left:3px solid var(--line)}
.meter{display:inline-block;width:60px;height:8px;background:var(--bg);margin-right:6px;
vertical-align:middle;border:1px solid var(--line)}
.meter i{display:block;height:100%;background:#54aeff}
.meter i.hot{background:var(--bad)}.meter i.rel{background:#afb8c1}
.flag{font-weight:700;padding:0 4px;border-radius:3px}
.flag.nudge{background:#d4a72c;color:#fff}.flag.stall{background:var(--bad);color:#fff}
.flag.err{background:#fb8f44;color:#fff}
.offered span{display:inline-block;margin:1px 6px 1px 0}
.offered .ranked{font-weight:600}
.call{margin:6px 0;padding-left:8px;border-left:3px solid var(--ok)}
.call.bad{border-left-color:var(--bad)}
.evidence{padding:6px 10px;margin:6px 0;border-left:4px solid var(--warn);background:#fff8c5}
.evidence.stall{border-left-color:var(--bad);background:#ffebe9}
.only-events .turn:not(.ev){display:none}
.fold>summary{display:flex;gap:6px;cursor:pointer}.fold small{white-space:nowrap}
.clip{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;background:var(--bg)}
.fold[open] .clip{white-space:pre-wrap;word-break:break-all}
.turn{content-visibility:auto;contain-intrinsic-size:auto 24px}
"""

_JS: Final = (
    "document.getElementById('only').onchange=function(e){"
    "document.body.classList.toggle('only-events',e.target.checked)};"
    "function all(o){document.querySelectorAll('details.turn').forEach("
    "function(d){d.open=o})}"
    "document.getElementById('open').onclick=function(){all(true)};"
    "document.getElementById('close').onclick=function(){all(false)};"
)
_CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-"
    + base64.b64encode(hashlib.sha256(_JS.encode()).digest()).decode()
    + "'; base-uri 'none'; form-action 'none'; img-src data:"
)
"""Nothing loads from anywhere; an asset's thumbnail is the one `data:` image it allows."""


def _e(value: Any) -> str:
    """Journal text, visibly escaped for the reader and then for HTML."""
    if value is None:
        return '<span class="unrec">unrecorded</span>'
    return html.escape(printable(value if isinstance(value, str) else str(value)))


def _ms(value: float | None) -> str:
    if value is None:
        return '<span class="unrec">unrecorded</span>'
    return f"{value:.1f} ms" if value < 100 else f"{value:,.0f} ms"


def _fold(text: str | None) -> str:
    """A value; one longer than `FOLD_AT` characters is folded to a single clipped line."""
    if text is None:
        return '<span class="unrec">unrecorded</span>'
    if len(text) <= FOLD_AT:
        return f"<pre>{_e(text)}</pre>"
    # One copy of the text: the summary clips it to a line, opening the fold unclips it.
    return (f"<details class=fold><summary><small>{len(text):,} chars</small> "
            f"<code class=clip>{_e(text)}</code></summary></details>")


def _meter(used: int | None, cap: int | None, peak: int = 0) -> str:
    """A budget bar: `used` of `cap`; with no cap (∞), grey and relative to the run's `peak`."""
    if used is None:
        return '<span class="unrec">unrecorded</span>'
    share = min(used / (cap or peak or 1), 1.0)
    style = " class=rel" if cap is None else " class=hot" if share >= 0.9 else ""
    bound = "∞" if cap is None else f"{cap:,}"
    return (f'<span class=meter><i{style} style="width:{share * 100:.1f}%"></i></span>'
            f"{used:,}/{bound}")


def _tokens(turn: Turn) -> str:
    if turn.input_tokens is None and turn.output_tokens is None:
        return '<span class="unrec">tokens unrecorded</span>'
    return f"{_e(turn.input_tokens)}→{_e(turn.output_tokens)} tok"


def _route(turn: Turn) -> str:
    offered = "?" if turn.offered is None else str(len(turn.offered))
    why = f" <small>({_e(turn.reason)})</small>" if turn.reason not in (None, turn.mode) else ""
    return f"{offered}/{_e(turn.universe)} offered · <b>{_e(turn.mode)}</b>{why}"


def _call_line(call: TracedCall) -> str:
    status = (f"<span class=s-success>ok</span> {_e(call.result_bytes)} B" if call.ok
              else f"<span class=s-failure>error {_e(call.error_code or '')}</span>")
    return (f"<b>{_e(call.name)}</b> <small class=mono>{_e(call.call_id)}</small> · "
            f"{_ms(call.duration_ms)} · {status}")


def _evidence(turn: Turn) -> str:
    out = []
    for c in turn.compose:
        codes = c.error_codes
        verdict = ("<span class=s-success>valid</span>" if c.valid is True else
                   "<span class=s-failure>invalid</span> " + _e(
                       ", ".join(codes) if codes is not None else codes))
        out.append(f"<div>compose · {verdict} · {_e(c.draft_bytes)} B draft · "
                   f"{_e(c.escapes)} escapes</div>")
    if turn.nudge is not None:
        n = turn.nudge
        why = (f"every tool call failed, {_e(n.repeats)} turns in a row"
               if n.reason == "error_streak" else
               f"the same {_e(n.period)}-turn block of tool calls repeated "
               f"{_e(n.repeats)} times with identical results")
        out.append(f"<div class='evidence nudge'><b>Nudged</b> ({_e(n.reason)}): {why};"
                   " the loop sent the model one corrective message. The turns it counted are "
                   "marked.</div>")
    if turn.stall is not None:
        s = turn.stall
        shown = ", ".join(s.signatures) if s.signatures is not None else None
        out.append(f"<div class='evidence stall'><b>Stalled</b>: the same "
                   f"{_e(s.period)}-turn block of tool calls repeated "
                   f"{_e(s.repeats)} times with identical results, so the loop was "
                   "stopped (NIKA-AGENT-006). The repeated turns are marked; their calls and "
                   f"results are above. <small>signatures</small> <code>{_e(shown)}</code>"
                   "</div>")
    return "".join(out)


def _offer(turn: Turn, previous: Turn | None) -> str:
    """What the router offered and why: ranked picks best first with their BM25 scores, then
    what rode along (pinned intrinsics, recent tools) — or the whole universe. An offer equal
    to the previous turn's says so instead of listing it again."""
    sources = " ".join(f"{_e(k)} {v}" for k, v in turn.by_source.items() if v)
    head = (f"<small>{_route(turn)} · by source: {sources or 'unrecorded'} · model "
            f"{_e(turn.model)} · finish {_e(turn.finish_reason)}</small>")
    if turn.offered is None:
        return f"<div class=offered>{head}</div>"
    if previous is not None and previous.offered == turn.offered:
        return (f"<div class=offered>{head}<div><small>the same tools as turn "
                f"{_e(previous.number)}</small></div></div>")
    ranked = sorted(turn.scores.items(), key=lambda kv: (-kv[1], kv[0]))
    picks = "".join(f"<span class=ranked>{_e(name)} <small>{score:.2f}</small></span>"
                    for name, score in ranked)
    rest = "".join(f"<span>{_e(name)}</span>" for name in turn.offered
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
        f"<span class={'s-success' if c.ok else 's-failure'}>{_e(c.name)}</span>"
        for c in turn.tools) or '<span class=mute>no tool call</span>'
    summary = (
        f"<summary><span>#{_e(turn.number)}</span><span>{_route(turn)}</span>"
        f"<span>{_tokens(turn)} · {_ms(turn.latency_ms)}</span><span>{calls}</span>"
        f"<span>{_meter(turn.turns_used, turn.max_turns)}</span>"
        f"<span>{_meter(turn.tokens_used, turn.max_tokens, peak_tokens)}</span>"
        f"<span>{''.join(flags)}</span></summary>")
    # A turn a reader stops at (nudge, stall, error) always shows its whole offer.
    body = [_offer(turn, None if flags else previous)]
    for call in turn.tools:
        body.append(f"<div class='call{'' if call.ok else ' bad'}'>{_call_line(call)}"
                    f"<div><small>arguments</small>{_fold(call.arguments)}</div>"
                    f"<div><small>result</small>{_fold(call.result)}</div></div>")
    body.append(_evidence(turn))
    opened = " open" if turn.stall is not None else ""
    return (f"<details class='{' '.join(classes)}' id={anchor}{opened}>{summary}"
            f"<div class=body>{''.join(body)}</div></details>")


_TURN_HEAD: Final = (
    "<div class=thead><span>turn</span><span>offered · reason</span>"
    "<span>model call</span><span>tools called</span><span>turns used</span>"
    "<span>tokens used</span><span></span></div>")


def _run(task_id: str, index: int, run: AgentRun, multi: bool) -> str:
    out = []
    if multi:
        item = "" if run.iteration is None else f" item {_e(run.iteration)}"
        out.append(f"<h3>run{item} · attempt {_e(run.attempt)}</h3>")
    peak = max((t.tokens_used or 0 for t in run.turns.values()), default=0)
    cells, rows = [], []
    previous: Turn | None = None
    for n, turn in enumerate(run.turns.values()):
        anchor = f"{task_id}-r{index}-{n}"
        kind = ("c-stall" if turn.stall is not None else "c-nudge" if turn.nudge is not None
                else "c-err" if turn.has_error else "")
        cells.append(f"<a class='{kind}' href='#{anchor}' title='turn {_e(turn.number)}'></a>")
        rows.append(_turn(turn, previous, anchor, peak))
        previous = turn
    out.append(f"<div class=strip>{''.join(cells)}</div>")
    out.append(f"<div class=turns>{_TURN_HEAD}{''.join(rows)}</div>")
    return "".join(out)


def _task_error(error: Mapping[str, Any] | None) -> str:
    if error is None:
        return ""
    details = error.get("details")
    parts = [f"<div class=err><b>{_e(error.get('code'))}</b> {_e(error.get('detail'))}"]
    if isinstance(details, Mapping) and details.get("kind") == "Stalled":
        parts.append(f"<div><small>repeated block · period {_e(details.get('period'))} × "
                     f"{_e(details.get('repeats'))} · signatures</small> "
                     f"<code>{_e(', '.join(map(str, details.get('signatures') or [])))}</code>"
                     "</div>")
        calls = details.get("calls")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, Mapping):
                parts.append(f"<div><small>call</small> <b>{_e(call.get('name'))}</b>"
                             f"{_fold(_json(call.get('args')))}</div>")
        parts.append(f"<div><small>partial output</small>"
                     f"{_fold(_text(details.get('partial_output')))}</div>")
    parts.append("</div>")
    return "".join(parts)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) or value is None else _json(value)


def _num(value: int | None) -> str:
    return _e(value) if value is None else f"{value:,}"


def _task(task: TaskView, index: int) -> str:
    """An agent task (or a failed one) as a section; any other task as one compact line."""
    anchor = f"t{index}"
    label = " · ".join(_e(x) for x in (task.verb, task.model) if x is not None)
    turns = "turn" if task.turns == 1 else "turns"
    totals = (f" · {_num(task.turns)} {turns} · {_num(task.tokens)} tokens"
              if task.turns is not None else "")
    recovered = ("" if task.recovered_from is None else
                 f" (recovered by on_error from {_e(recovery_text(task.recovered_from))})")
    outcome = (f"<span class='s-{_e(task.status)}'>■ {_e(task.status)}{recovered} · "
               f"{_ms(task.duration_ms)}{totals}</span>")
    notes = ""
    if task.notes:
        items = "".join(f"<li>{_e(note)}</li>" for note in task.notes)
        notes = (f"<details><summary><small>{len(task.notes)} other frames (permits, "
                 f"retries, calls)</small></summary><ul>{items}</ul></details>")
    if not task.runs and task.error is None:
        return (f"<div class='task plain' id={anchor}><b>{_e(task.name)}</b> <small>{label}"
                f"</small> {outcome}{notes}</div>")
    runs = list(task.runs.values())
    universe = f" · universe {_e(runs[0].universe)}" if runs else ""
    parts = [f"<section class=task id={anchor}><h2>{_e(task.name)} <small>{label}{universe}"
             f"</small></h2><div>{outcome}</div>", _task_error(task.error)]
    parts += [_run(anchor, i, run, len(runs) > 1) for i, run in enumerate(runs)]
    parts.append(f"{notes}</section>")
    return "".join(parts)


def _timeline(view: TraceView, tasks: list[TaskView]) -> str:
    first = view.first_ns or 0
    span = max((view.last_ns or first) - first, 1)
    rows = ["<div class=hd>task</div><div class=hd>verb</div><div class=hd>status</div>"
            "<div class=hd>time</div><div class=hd>timeline</div>"]
    for i, task in enumerate(tasks):
        start = (task.start_ns or first) - first
        end = (task.end_ns or first) - first
        left, width = start / span * 100, max(end - start, 0) / span * 100
        indent = f' style="padding-left:{task.depth * 14}px"' if task.depth else ""
        status = _e(task.status)
        rows.append(
            f"<div class=trow{indent}><a href='#t{i}'>{_e(task.name)}</a></div>"
            f"<div><small>{' · '.join(_e(x) for x in (task.verb, task.model) if x)}</small></div>"
            f"<div class='s-{status}'>{status}</div><div>{_ms(task.duration_ms)}</div>"
            f"<div class=track><div class='bar s-{status}' "
            f"style='left:{left:.2f}%;width:{width:.2f}%'></div></div>")
    return f"<section id=timeline><h2>Tasks</h2><div class=tl>{''.join(rows)}</div></section>"


def _header(view: TraceView, name: str) -> str:
    v, w = view.verdict, view.workflow
    badge = v.status.upper()
    state = view.state or "no terminal frame"
    facts = [("journal", name), ("state", state), ("engine", w.engine_version),
             ("platform", w.platform), ("trace_format", w.trace_format),
             ("frames", view.frames), ("head", v.head)]
    turns = sum(len(r.turns) for t in view.tasks.values() for r in t.runs.values())
    all_turns = [t for task in view.tasks.values() for r in task.runs.values()
                 for t in r.turns.values()]
    totals = [("tasks", _num(len(view.tasks))), ("agent turns", _num(turns)),
              ("tokens", _num(sum(t.tokens or 0 for t in view.tasks.values()))),
              ("nudges", _num(sum(t.nudge is not None for t in all_turns))),
              ("stalls", _num(sum(t.stall is not None for t in all_turns))),
              ("wall time", _ms(((view.last_ns or 0) - (view.first_ns or 0)) / 1e6))]
    fact_html = "".join(f"<span><small>{k}</small> {_e(val)}</span>" for k, val in facts)
    total_html = "".join(f"<span><small>{k}</small> <b>{val}</b></span>" for k, val in totals)
    error = "" if view.end_error is None else _task_error(view.end_error)
    return (f"<header id=verdict class=v-{v.status}><span class=badge>{badge}</span>"
            f"<span>{_e(v.render())}{''.join(f'<br>{_e(f)}' for f in v.findings[1:])}</span>"
            f"</header><main><h1>{_e(w.workflow)} "
            f"<small class='s-{_e(state)}'>{_e(state)}</small></h1>"
            f"<div class=facts>{fact_html}</div><div class=facts id=totals>{total_html}</div>"
            f"{error}")


def render_html(frames: Iterable[Frame], verdict: TraceVerdict, name: str,
                root: Path | None = None) -> str:
    """The whole page for the journal `name` (its `frames`, under the chain `verdict`);
    `root`, the run's directory, is where a PNG asset's thumbnail is read from (None: the
    assets are listed without one)."""
    view = fold(frames, verdict)
    tasks = view.ordered()
    title = _e(view.workflow.workflow or name)
    body = [
        _header(view, name),
        "<nav><label><input type=checkbox id=only> only turns with events (nudges, stalls, "
        "errors, cycles, compose)</label> <button id=open>expand all turns</button>"
        "<button id=close>collapse all</button></nav>",
        _timeline(view, tasks),
        section(((task.name, row) for task in tasks for row in task.assets), root),
        *(_task(task, i) for i, task in enumerate(tasks)),
        f"<p class=mute>nika-py {html.escape(__version__)} · nika trace show --html</p></main>",
    ]
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8>"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            f"<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>nika trace · {title}</title><style>{_CSS}</style></head><body>"
            f"{''.join(body)}<script>{_JS}</script></body></html>\n")

