"""A tour of the agent loop's intelligence layer, offline: `make tour`.

Steps (a)-(d) drive the loop as a library with SCRIPTED models: `ScriptedProvider` from
`nika.agent.fakes` plays queued replies, so no LLM is called and each mechanism shows the same
way every time. What the loop does with those replies — routing, nudging, stopping, checking —
is the real engine. Step (e) runs `examples/agent-tour.nika.yaml` through the real runtime with
`mock/echo` (the spec's deterministic test model) and reads its journal back.

Each step checks that the engine did what the tour says it does; a step that did not exits 1.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nika._term import printable
from nika.agent import AgentConfig, AgentSpec, ModelRequest, ModelResponse, run_agent_sync
from nika.agent.fakes import (
    RecordingExecutor,
    RecordingObserver,
    ScriptedProvider,
    call,
    calling,
    definition,
)
from nika.agent.observe import ComposeChecked, Nudged, Stalled, ToolsSelected
from nika.agent.seams import AssistantMessage, ToolResultMessage, UserMessage
from nika.cli import main as nika
from nika.errors import NikaError
from nika.run.launch import RunOptions, Streams, run_command
from nika.view.console import Console

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "tour"
WIDTH = 100
SCRIPTED = "scripted model (nika.agent.fakes.ScriptedProvider: queued replies, no LLM)"


def show(text: str = "", indent: int = 0) -> None:
    """Print text that may carry tool or model output: terminal-safe, indented, wrapped."""
    pad = " " * indent
    for line in (printable(text, keep_newlines=True).splitlines() or [""]):
        print(textwrap.fill(line, WIDTH, initial_indent=pad, subsequent_indent=pad + "  ",
                            break_on_hyphens=False, break_long_words=False))


def step(letter: str, title: str, model: str) -> None:
    print()
    show(f"({letter}) {title}")
    show(f"model: {model}", 4)


def expect(ok: bool, what: str) -> None:
    if not ok:
        show(f"TOUR FAILED: {what}")
        raise SystemExit(1)


# --- (a) routing -------------------------------------------------------------------------

CATALOG: tuple[tuple[str, str], ...] = (
    ("weather/forecast", "Weather forecast for a city and a day: temperature, rain, wind."),
    ("weather/alerts", "Active severe-weather alerts (storm, rain, snow) for a region."),
    ("calendar/create_event", "Create a calendar event with a title, a time and a reminder."),
    ("calendar/list_events", "List the calendar events of a day."),
    ("calendar/delete_event", "Delete a calendar event by its id."),
    ("mail/send", "Send an email to someone, with a subject and a body."),
    ("mail/search", "Search the email mailbox for messages matching a query."),
    ("mail/read", "Read one email message by its id."),
    ("files/read", "Read a text file."),
    ("files/write", "Write a text file."),
    ("files/list", "List the files of a directory."),
    ("files/delete", "Delete a file."),
    ("git/log", "Show the commit history of a repository."),
    ("git/diff", "Show the changes between two commits."),
    ("git/commit", "Record staged changes as a commit."),
    ("git/status", "Show the working tree status."),
    ("db/query", "Run a read-only SQL query."),
    ("db/insert", "Insert a row into a table."),
    ("db/schema", "Describe the tables of a database."),
    ("http/get", "Fetch a URL with an HTTP GET request."),
    ("http/post", "Send data to a URL with an HTTP POST request."),
    ("maps/route", "Plan a route between two places by car, bike or on foot, today or tomorrow."),
    ("maps/geocode", "Turn an address into coordinates."),
    ("translate/text", "Translate text into another language."),
    ("currency/convert", "Convert an amount between currencies."),
    ("stocks/quote", "Latest price of a stock ticker."),
    ("news/headlines", "Top news headlines for a topic, today or tomorrow."),
    ("todo/add", "Add an item to the to-do list, with an optional due day and reminder."),
    ("todo/list", "List the open to-do items."),
    ("todo/complete", "Mark a to-do item as done."),
    ("chat/post_message", "Post a message (a note, a reminder) to a chat channel."),
    ("chat/list_channels", "List the chat channels."),
    ("images/resize", "Resize an image."),
    ("pdf/extract_text", "Extract the text of a PDF document."),
    ("sheets/append_row", "Append a row to a spreadsheet."),
    ("sheets/read_range", "Read a range of spreadsheet cells."),
    ("contacts/lookup", "Find a contact's email address and phone number."),
    ("timer/start", "Start a countdown timer that rings like a reminder."),
    ("notes/create", "Create a note, for instance a reminder to yourself."),
    ("notes/search", "Search the notes."),
)


def short(name: str) -> str:
    return name.removeprefix("mcp:")


def model_calls(model: ScriptedProvider, turn: int) -> str:
    """The calls the scripted model made in `turn`, read back from the next request."""
    said = [m for m in model.requests[turn].messages if isinstance(m, AssistantMessage)][-1]
    return ", ".join(f"{short(c.name)} {json.dumps(dict(c.args))}" for c in said.tool_calls)


def routing() -> None:
    step("a", "Routing: 40 MCP-style tools granted; each turn offers the 12 that best match "
         "the context, plus the pinned nika:done, plus tools called in the last two turns",
         SCRIPTED)
    tools = RecordingExecutor(
        [definition(f"mcp:{name}", text) for name, text in CATALOG],
        results={
            "mcp:weather/forecast": "Lyon, tomorrow: rain from 14:00 (80%), 12 °C, light wind",
            "mcp:calendar/create_event": "created event evt_42 'Take an umbrella' 13:30",
        })
    model = ScriptedProvider([
        calling(call("mcp:weather/forecast", {"city": "Lyon", "day": "tomorrow"})),
        calling(call("mcp:calendar/create_event",
                     {"title": "Take an umbrella", "time": "tomorrow 13:30", "reminder": True})),
        calling(call("nika:done", {"result": "Rain from 14:00: reminder set for 13:30."})),
    ])
    spec = AgentSpec(prompt="Will it rain in Lyon tomorrow? If it does, put a reminder in my "
                     "calendar to take an umbrella, and email Ana the forecast.",
                     model="mock/scripted",
                     tools=["mcp:*/*", "nika:done"], max_turns=5)
    observer = RecordingObserver()
    result = run_agent_sync(spec, provider=model, tools=tools, observer=observer)
    show(f"prompt: {spec.prompt}", 4)
    selected = observer.of(ToolsSelected)
    for event, request in list(zip(selected, model.requests, strict=True))[:2]:
        show(f"turn {event.turn}: offered {len(event.offered)} of {event.universe} "
             f"({event.mode}); the model's request carried exactly {len(request.tools)} "
             "tool schemas", 4)
        ranked = sorted(event.scores.items(), key=lambda kv: (-kv[1], kv[0]))
        show("ranked, best first: " + ", ".join(f"{short(n)} {s:.2f}" for n, s in ranked), 6)
        extra = [short(n) for n in event.offered if n not in event.scores]
        show(f"pinned or recent, unranked: {', '.join(extra) or '-'}", 6)
        left = [short(n) for n in (d.name for d in tools.definitions())
                if n not in event.offered]
        show(f"not offered: {len(left)} tools ({', '.join(left[:6])}, ...)", 6)
        show(f"the model calls {model_calls(model, event.turn)}", 6)
    show(f"turn 2 still offers weather/forecast: called in turn 1, it stays offered for "
         f"{AgentConfig().recent_turns} turns whatever its score. Turn {result.turns}: "
         f"nika:done → {result.output!r}", 4)
    first, second = selected[0], selected[1]
    expect(first.mode == "ranked" and first.universe == 41, "turn 1 was not ranked over 41")
    expect(len(first.offered) == 13 and "nika:done" in first.offered,
           "turn 1 did not offer 12 + nika:done")
    expect("mcp:weather/forecast" in first.offered and "mcp:calendar/create_event" in
           first.offered, "the weather and calendar tools were not offered")
    expect("mcp:weather/forecast" in second.offered, "a recent tool left the offer")


# --- (b) nudge and recovery ----------------------------------------------------------------

SEARCH = "mcp:search/query"
OPEN = "mcp:search/open"


def search_tools() -> RecordingExecutor:
    pages = {"blog/roadmap": "Roadmap: 1.0 is 'coming soon' (no date).",
             "docs/changelog": "Changelog: 1.0.0 released on 2026-11-30."}
    return RecordingExecutor(
        [definition(SEARCH, "Search the web."), definition(OPEN, "Open a search result.")],
        results={SEARCH: "results: blog/roadmap, docs/changelog",
                 OPEN: lambda args: pages.get(str(args.get("url")), "404")})


def loop_turns(n: int) -> list[ModelResponse]:
    """`n` turns of the period-2 loop: query, open the same page, query, open, ..."""
    pair = [calling(call(SEARCH, {"q": "nika 1.0 release date"}), text="Let me search."),
            calling(call(OPEN, {"url": "blog/roadmap"}), text="Let me open the first hit.")]
    return [pair[i % 2] for i in range(n)]


def nudge() -> None:
    step("b", "Stall guard, nudge: a model stuck in a period-2 loop gets ONE corrective "
         "message and recovers", SCRIPTED)

    def reads_the_nudge(request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        expect(isinstance(last, UserMessage) and last.text.startswith("Progress check"),
               "the model was not sent the corrective message")
        return calling(call(OPEN, {"url": "docs/changelog"}), text="The roadmap has no date; "
                       "the changelog should.")

    model = ScriptedProvider([*loop_turns(6), reads_the_nudge,
                              calling(call("nika:done", {"result": "2026-11-30"}))])
    observer = RecordingObserver()
    spec = AgentSpec(prompt="When was Nika 1.0 released?", model="mock/scripted",
                     tools=[SEARCH, OPEN, "nika:done"], max_turns=12)
    result = run_agent_sync(spec, provider=model, tools=search_tools(), observer=observer)
    [nudged] = observer.of(Nudged)
    show("turns 1-6: query → open blog/roadmap → query → open blog/roadmap → ... "
         "(same calls, same results)", 4)
    show(f"after turn {nudged.turn}: nudged ({nudged.reason}, period {nudged.period}, "
         f"{nudged.repeats} repeats); the loop told the model:", 4)
    message = next(m.text for m in reversed(model.requests[nudged.turn].messages)
                   if isinstance(m, UserMessage))
    show(message, 6)
    show(f"turn {nudged.turn + 1}: the model opens docs/changelog instead; turn "
         f"{result.turns}: nika:done → {result.output!r}", 4)
    expect((nudged.period, nudged.repeats, nudged.turn) == (2, 3, 6), "no period-2 nudge at 6")
    expect(result.output == "2026-11-30" and result.turns == 8, "the model did not recover")


# --- (c) stall ---------------------------------------------------------------------------

def stall() -> None:
    step("c", "Stall guard, stop: a model that keeps looping is stopped with NIKA-AGENT-006 "
         "and the evidence, long before its turn budget", SCRIPTED)
    model = ScriptedProvider(loop_turns(20))
    observer = RecordingObserver()
    spec = AgentSpec(prompt="When was Nika 1.0 released?", model="mock/scripted",
                     tools=[SEARCH, OPEN, "nika:done"], max_turns=20)
    try:
        run_agent_sync(spec, provider=model, tools=search_tools(), observer=observer)
    except NikaError as error:
        stalled = observer.of(Stalled)
        details = error.details
        show(f"{error.code} ({error.category}, transient={error.transient}) after "
             f"{len(model.requests)} model calls of max_turns {spec.max_turns}", 4)
        show(error.detail, 6)
        show(f"evidence: period {details['period']} × {details['repeats']} repeats, "
             f"signatures {', '.join(details['signatures'])}", 4)
        for repeated in details["calls"]:
            show(f"repeated call: {repeated['name']} {json.dumps(repeated['args'])}", 6)
        show(f"partial output kept for on_error: {details['partial_output']!r}", 4)
        expect(error.code == "NIKA-AGENT-006" and len(stalled) == 1, "no stall verdict")
        expect(len(model.requests) < spec.max_turns, "the stall did not save turns")
        return
    expect(False, "the looping model was not stopped")


# --- (d) compose ---------------------------------------------------------------------------

DRAFT = """\
nika: publish-notes
model: mock/echo
secrets:
  token: { source: env, key: NOTES_TOKEN }
permits:
  exec: ["curl"]
tasks:
  draft:
    infer: { prompt: "Write this week's release notes in five bullets." }
  publish:
    with: { notes: "${{ tasks.draft.output }}", token: "${{ secrets.token }}" }
    exec:
      command: ["curl", "-sS", "-H", "Authorization: Bearer ${{ with.token }}",
                "-d", "${{ with.notes }}", "https://notes.example.com/api"]
"""
# The repair the first verdict prescribes (sanction the exec egress), plus a max_tokens bound
# so the certificate can state a token ceiling.
REPAIRED = DRAFT.replace(
    "token: { source: env, key: NOTES_TOKEN }",
    'token: { source: env, key: NOTES_TOKEN, egress: [{ to: "exec" }] }',
).replace('five bullets." }', 'five bullets.", max_tokens: 400 }')


def verdict_of(request: ModelRequest) -> Mapping[str, Any]:
    last = request.messages[-1]
    expect(isinstance(last, ToolResultMessage), "the model did not get a verdict back")
    assert isinstance(last, ToolResultMessage)
    parsed: Mapping[str, Any] = json.loads(last.content)
    return parsed


def summarize(verdict: Mapping[str, Any]) -> None:
    show(f"valid: {verdict['valid']}", 6)
    for error in verdict.get("errors", []):
        show(f"{error['code']} {error['category']}: {error['detail']}", 6)
    total = verdict.get("certificate", {}).get("total", {})
    ceiling = total.get("output_tokens", {}).get("ceiling")
    show(f"certificate: terminates={verdict['certificate']['terminates']} · model calls ≤ "
         f"{total['model_calls']['ceiling']} · tool calls ≤ {total['tool_calls']['ceiling']} · "
         f"output tokens ≤ {'unbounded' if ceiling is None else ceiling}", 6)


def compose() -> None:
    step("d", "nika:compose: the agent drafts a workflow, reads back the full check verdict, "
         "repairs it — and nothing is ever run", SCRIPTED)
    verdicts: list[Mapping[str, Any]] = []

    def repairs(request: ModelRequest) -> ModelResponse:
        verdicts.append(verdict_of(request))
        return calling(call("nika:compose", {"workflow_yaml": REPAIRED}),
                       text="Sanctioning the token's exec egress, as the finding says.")

    def finishes(request: ModelRequest) -> ModelResponse:
        verdicts.append(verdict_of(request))
        return calling(call("nika:done", {"result": REPAIRED}))

    tools = RecordingExecutor([])  # no upstream tools at all: compose is served by the loop
    observer = RecordingObserver()
    model = ScriptedProvider([calling(call("nika:compose", {"workflow_yaml": DRAFT})),
                              repairs, finishes])
    spec = AgentSpec(prompt="Draft a workflow that publishes this week's release notes with "
                     "the NOTES_TOKEN secret.", model="mock/scripted",
                     tools=["nika:compose", "nika:done"], max_turns=5)
    result = run_agent_sync(spec, provider=model, tools=tools, observer=observer)
    first, second = verdicts
    show("turn 1 draft → verdict:", 4)
    summarize(first)
    show("turn 2 repaired draft → verdict:", 4)
    summarize(second)
    checks = observer.of(ComposeChecked)
    show("compose events: " + "; ".join(
        f"valid={c.valid} {list(c.error_codes)} {c.draft_bytes} B" for c in checks), 4)
    show(f"turn {result.turns}: nika:done with the valid draft · executor dispatches: "
         f"{len(tools.dispatched)}", 4)
    codes = [e["code"] for e in first.get("errors", [])]
    expect(not first["valid"] and "NIKA-SEC-006" in codes, "no secret-flow finding")
    expect(second["valid"] is True and tools.dispatched == [], "the repair was not valid")


# --- (e) a real run and its journal ----------------------------------------------------------

def real_run() -> None:
    step("e", "The same guard in a real workflow run, then its journal",
         "mock/echo, the spec's deterministic test model: it calls the first offered tool "
         "with empty arguments, every turn")
    flow = ROOT / "examples" / "agent-tour.nika.yaml"
    traces = OUT / "traces"
    shutil.rmtree(traces, ignore_errors=True)
    show(f"$ nika run {flow.relative_to(ROOT)}", 4)
    sys.stdout.flush()
    err = io.StringIO()
    code = run_command(RunOptions(file=flow.relative_to(ROOT), trace_dir=traces),
                       Streams(sys.stdout, err), Console(out=sys.stdout))
    [journal] = traces.glob("*.ndjson")
    shown = journal.relative_to(ROOT)
    show(f"exit {code} · journal {shown}", 4)
    print()
    show(f"$ nika trace show {shown}", 4)
    sys.stdout.flush()
    nika(["trace", "show", str(shown)])
    page = OUT / "agent-tour.html"
    show(f"$ nika trace show {shown} --html {page.relative_to(ROOT)}", 4)
    sys.stdout.flush()
    status = nika(["trace", "show", str(shown), "--html", str(page.relative_to(ROOT))])
    show(f"open {page.relative_to(ROOT)} in a browser: the stalled turn is highlighted, the "
         "repeated block marked, every call and result unfoldable", 4)
    frames = journal.read_text(encoding="utf-8")
    expect(code == 0 and status == 0, "the run or its journal did not come out clean")
    expect('"agent_event","value":"stalled"' in frames and '"agent_nudge"' in frames,
           "the journal lacks the nudge or the stall")


STEPS: Sequence[Any] = (routing, nudge, stall, compose, real_run)


def main() -> int:
    os.chdir(ROOT)  # paths below are shown (and resolved) from the repository root
    show("nika agent tour — the intelligence layer, offline (no LLM, no network, no key)")
    show("Steps (a)-(d) use SCRIPTED models, named on screen; what the loop does with their "
         "replies is the real engine.")
    for run in STEPS:
        run()
    print()
    show("tour complete: routing, nudge, stall, compose and the journal behaved as shown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
