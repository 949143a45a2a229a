"""The trace page's frame and its shared pieces: the style sheet, the one inline script and
the Content-Security-Policy that admits it by hash; journal text escaped for HTML; the
outcome headline; money; and `values`, THE renderer of captured values (a task's inputs,
prompt, reply and output, a tool call's arguments and result, the workflow's outputs),
folded with their size when long.

A captured value is the value itself, or the journal's capture of a long one,
`{"truncated": <text prefix>, "bytes": N, "sha256": hex}`: shown as its prefix with its whole
size and digest."""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from nika._term import printable
from nika.journal.content import Captured
from nika.journal.ledger import Spend
from nika.view.figures import usd_text
from nika.view.trace_view import TraceView

FOLD_AT: Final = 160
"""Values longer than this many characters are folded behind their first line."""

UNREC: Final = '<span class="unrec">unrecorded</span>'

CSS: Final = """
ul.assets{list-style:none;padding:0}
ul.assets li{display:flex;gap:10px;align-items:center;margin:4px 0}
.thumb{width:64px;height:64px;object-fit:contain;background:var(--bg);flex:none}
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--mute:#656d76;--line:#d0d7de;--bg:#f6f8fa}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1f2328}
main{max-width:1200px;margin:0 auto;padding:0 16px 48px}
code,pre,.mono{font:12px/1.4 ui-monospace,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:var(--bg);padding:6px;margin:4px 0}
h1{overflow-wrap:anywhere}
h2{font-size:17px;margin:24px 0 6px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:12px 0 4px}
small,.mute,.unrec{color:var(--mute)}
.unrec{font-style:italic}
#outcome{display:flex;flex-wrap:wrap;gap:6px 16px;align-items:center;padding:12px 16px;
color:#fff;overflow-wrap:anywhere}
#outcome .badge{font-size:22px;font-weight:700}
.o-success{background:var(--ok)}.o-failure{background:var(--bad)}
.o-cancelled{background:#8250df}.o-paused{background:#0969da}.o-unknown{background:#57606a}
#verdict{margin-left:auto;background:#fff;border-radius:4px;padding:2px 8px;font-size:12px;
max-width:100%}
#verdict b{font-size:13px}
.v-clean{color:var(--ok)}.v-forged,.v-refused{color:var(--bad)}
.v-incomplete,.v-finding{color:var(--warn)}
.facts{display:flex;flex-wrap:wrap;gap:4px 18px;margin:8px 0;overflow-wrap:anywhere}
.s-success{color:var(--ok)}.s-failure{color:var(--bad)}.s-cancelled{color:#8250df}
.s-skipped{color:var(--warn)}
nav{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid var(--line);
z-index:1}
button{font:inherit;margin:2px 6px 2px 0}
.tl{display:grid;gap:2px 8px;align-items:center;grid-template-columns:minmax(0,1.3fr)
minmax(0,1fr) 5.5em 5.5em 6.5em 8em minmax(0,2fr)}
.tl>div{min-width:0;overflow-wrap:anywhere}
.tl>.hd,.thead>span{font-weight:600;color:var(--mute);min-width:0;overflow-wrap:anywhere}
.track{position:relative;height:12px;background:var(--bg)}
.bar{position:absolute;top:1px;bottom:1px;min-width:2px;background:#54aeff}
.bar.s-failure{background:var(--bad)}.bar.s-skipped,.bar.s-cancelled{background:#afb8c1}
.task{margin-top:8px}#timeline{margin-bottom:16px}
.plain{display:flex;flex-wrap:wrap;gap:0 10px;align-items:baseline;margin-top:2px}
.plain>.values{flex-basis:100%}
.err{border-left:4px solid var(--bad);background:#ffebe9;padding:6px 10px;margin:6px 0;
overflow-wrap:anywhere}
.strip{display:flex;flex-wrap:wrap;gap:1px;margin:6px 0}
.strip a{width:9px;height:14px;background:#afb8c1;display:block}
.strip a.c-err{background:#fb8f44}.strip a.c-nudge{background:#d4a72c}
.strip a.c-stall{background:var(--bad)}
.turn>summary,.thead{display:grid;gap:2px 8px;padding:2px 4px;align-items:start;
grid-template-columns:3.2em minmax(0,1.6fr) minmax(0,1.6fr) minmax(0,1.3fr) 9.5em 12.5em 4.5em}
.turn>summary{cursor:pointer;border-bottom:1px solid #eaeef2}
.thead{font-size:12px}
.turn>summary>span{min-width:0;overflow-wrap:anywhere}
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
.values{display:grid;grid-template-columns:7em minmax(0,1fr);gap:0 8px;margin:4px 0}
.values>dt{color:var(--mute);font-size:12px;padding-top:6px}.values>dd{margin:0;min-width:0}
.fold>summary{display:flex;gap:6px;cursor:pointer;min-width:0}.fold small{white-space:nowrap}
.clip{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;background:var(--bg);min-width:0}
.fold[open] .clip{white-space:pre-wrap;word-break:break-all}
.turn{content-visibility:auto;contain-intrinsic-size:auto 24px}
@media (max-width:720px){
main{padding:0 8px 32px}
.tl{grid-template-columns:minmax(0,1.4fr) 4.8em 4.6em 4.6em 5.6em}
.tl>.c-verb,.tl>.c-bar{display:none}
.turn>summary,.thead{grid-template-columns:2.6em minmax(0,1fr) minmax(0,1fr)}
.body{padding-left:10px}
.values{grid-template-columns:minmax(0,1fr)}
}
"""

JS: Final = (
    "document.getElementById('only').onchange=function(e){"
    "document.body.classList.toggle('only-events',e.target.checked)};"
    "function all(o){document.querySelectorAll('details.turn').forEach("
    "function(d){d.open=o})}"
    "document.getElementById('open').onclick=function(){all(true)};"
    "document.getElementById('close').onclick=function(){all(false)};"
)
CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-"
    + base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()
    + "'; base-uri 'none'; form-action 'none'; img-src data:"
)
"""Nothing loads from anywhere; an asset's thumbnail is the one `data:` image it allows."""


def e(value: Any) -> str:
    """Journal text, visibly escaped for the reader and then for HTML."""
    if value is None:
        return UNREC
    return html.escape(printable(value if isinstance(value, str) else str(value)))


def ms(value: float | None) -> str:
    if value is None:
        return UNREC
    return f"{value:.1f} ms" if value < 100 else f"{value:,.0f} ms"


def num(value: int | None) -> str:
    return UNREC if value is None else f"{value:,}"


def as_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def fold(text: str | None, size: str | None = None) -> str:
    """A value; one longer than `FOLD_AT` characters (or given a `size`: a capture's prefix)
    is folded to a single clipped line that opening the fold unclips — one copy of the text."""
    if text is None:
        return UNREC
    if size is None and len(text) <= FOLD_AT:
        return f"<pre>{e(text)}</pre>"
    return (f"<details class=fold><summary><small>{size or f'{len(text):,} chars'}</small> "
            f"<code class=clip>{e(text)}</code></summary></details>")


def _captured(value: Mapping[str, Any]) -> str | None:
    """The journal's capture of a long value (`truncated` prefix, `bytes`, `sha256`), folded
    with its whole size and digest; None when `value` is no capture."""
    prefix, size, digest = value.get("truncated"), value.get("bytes"), value.get("sha256")
    if not isinstance(prefix, str) or set(value) - {"truncated", "bytes", "sha256"}:
        return None
    whole = f"{size:,} bytes" if isinstance(size, int) and not isinstance(size, bool) else (
        "size unrecorded")
    sha = e(digest[:16]) + "…" if isinstance(digest, str) else "unrecorded"
    return fold(prefix, f"{whole} · truncated, sha256 {sha}")


def value(item: Any) -> str:
    """One captured value: text as itself, a capture as its folded prefix, other data as
    JSON."""
    if isinstance(item, Captured):  # a content field as the journal reader gives it back
        if not item.truncated:
            return fold(item.text)
        return _captured({"truncated": item.text, "bytes": item.bytes, "sha256": item.sha256}
                         ) or fold(item.text)
    if isinstance(item, Mapping) and (shown := _captured(item)) is not None:
        return shown
    return fold(item if isinstance(item, str) or item is None else as_json(item))


def values(items: Mapping[str, Any]) -> str:
    """Labelled values (`inputs`, `prompt`, `reply`, `output`, …) in their order; empty when
    there are none."""
    if not items:
        return ""
    rows = "".join(f"<dt>{e(label)}</dt><dd>{value(item)}</dd>" for label, item in items.items())
    return f"<dl class=values>{rows}</dl>"


def cost(spend: Spend) -> str:
    """What `spend` cost: `$0.0125`, `$0.0125 + 2 unpriced`, `unpriced` (why, as its title)
    — never $0 for what the table cannot price; a tool's reported spend counts as dollars."""
    unpriced = spend.unpriced_count or 0
    if not spend.priced and not unpriced:
        return '<span class=mute>no model call</span>'
    why = f" title='{e(spend.unpriced_reasons)}'" if unpriced else ""
    if not spend.priced:
        return f"<span class=mute{why}>unpriced</span>"
    extra = f" <span class=mute{why}>+ {unpriced} unpriced</span>" if unpriced else ""
    return f"{usd_text(spend.usd)}{extra}"


def call_cost(priced: Decimal | str | None) -> str:
    """One model call's cost, or « unpriced » with why."""
    if priced is None:
        return UNREC
    if isinstance(priced, str):
        return f"<span class=mute title='{e(priced)}'>unpriced</span>"
    return usd_text(priced)


_OUTCOMES: Final = ("success", "failure", "cancelled", "paused")


def _failure(view: TraceView) -> Mapping[str, Any] | None:
    """Why the run failed: the workflow's own error, else the first failed task's."""
    if view.end_error is not None:
        return view.end_error
    return next((t.error for t in view.ordered() if t.error is not None), None)


def headline(view: TraceView) -> str:
    """The page's head: the run's outcome (with a failure's code), the chain verdict beside."""
    state = view.state if view.state in _OUTCOMES else None
    word = state.upper() if state is not None else "NO OUTCOME"
    why = "the journal has no terminal frame: the run's end is unknown" if state is None else ""
    if state == "failure" and (error := _failure(view)) is not None:
        why = f"<b class=code>{e(error.get('code'))}</b> {e(error.get('detail'))}"
    elif state == "paused" and view.message is not None:
        why = e(view.message)
    v = view.verdict
    if not v.walks:  # a broken chain: the outcome is only what its lines claim
        why += " <small>(claimed by a journal whose chain does not verify)</small>"
    rest = v.render().partition(" · ")[2]
    findings = "".join(f"<br>{e(f)}" for f in v.findings[1:])
    return (f"<header id=outcome class=o-{state or 'unknown'}><span class=badge>{word}</span>"
            f"<span>{why}</span><span id=verdict class=v-{v.status}>chain "
            f"<b>{e(v.status.upper())}</b> · {e(rest)}{findings}</span></header>")


def summary(view: TraceView, name: str, total: Spend) -> str:
    """The workflow's name, the journal's facts, and the run's totals over every verb."""
    w, v = view.workflow, view.verdict
    facts = [("journal", name), ("engine", w.engine_version), ("platform", w.platform),
             ("trace_format", w.trace_format), ("frames", view.frames), ("head", v.head)]
    all_turns = [t for task in view.tasks.values() for r in task.runs.values()
                 for t in r.turns.values()]
    tokens = (f"{total.tokens:,} <small>({total.input_tokens:,} in · "
              f"{total.output_tokens:,} out)</small>")
    totals = [("tasks", num(len(view.tasks))), ("model calls", num(total.calls)),
              ("agent turns", num(len(all_turns))), ("tokens", tokens), ("cost", cost(total)),
              ("nudges", num(sum(t.nudge is not None for t in all_turns))),
              ("stalls", num(sum(t.stall is not None for t in all_turns))),
              ("wall time", ms(((view.last_ns or 0) - (view.first_ns or 0)) / 1e6))]
    fact_html = "".join(f"<span><small>{k}</small> {e(val)}</span>" for k, val in facts)
    total_html = "".join(f"<span><small>{k}</small> <b>{val}</b></span>" for k, val in totals)
    state = view.state or "no terminal frame"
    return (f"<h1>{e(w.workflow)} <small class='s-{e(state)}'>{e(state)}</small></h1>"
            f"<div class=facts>{fact_html}</div><div class=facts id=totals>{total_html}</div>")
