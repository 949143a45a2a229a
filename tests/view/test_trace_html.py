"""`nika trace show --html`: one self-contained page, built from real journals."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from tests.journal._journals import chained_journal, run_journal

from nika.cli import main
from nika.journal.verify import read_frames, verify
from nika.view._page import FOLD_AT, values
from nika.view.trace_html import render_html


class Page(HTMLParser):
    """Every start tag with its attributes, and the page's text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        (self.scripts if self._in_script else self.text).append(data)

    def having(self, cls: str, tag: str | None = None) -> list[dict[str, str]]:
        return [a for t, a in self.tags
                if cls in a.get("class", "").split() and (tag is None or t == tag)]


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_journal(tmp_path_factory.mktemp("view"))


def _page(path: Path) -> str:
    data = path.read_bytes()
    return render_html(read_frames(data), verify(data), path.name)


def test_the_page_fetches_nothing_and_runs_only_its_own_script(journal: Path) -> None:
    text = _page(journal)
    page = Page(text)
    assert not re.search(r"(?i)\b(src|href)\s*=\s*['\"]?(https?:|//)", text)
    assert not any(tag in ("link", "img", "iframe", "object") for tag, _ in page.tags)
    [csp] = [a["content"] for t, a in page.tags if a.get("http-equiv") ==
             "Content-Security-Policy"]
    assert "default-src 'none'" in csp
    [script] = page.scripts
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp  # the inline script is the only one allowed
    assert len(text.encode()) < 64_000  # a 3-task run is a small page


def test_verdict_tasks_and_turns_are_laid_out(journal: Path) -> None:
    page = Page(_page(journal))
    assert page.tags[page.tags.index(("body", {})) + 1] == (
        "header", {"id": "outcome", "class": "o-success"})  # the outcome heads the page
    assert page.having("v-clean", "span") and "CLEAN" in page.text  # the verdict beside it
    assert len(page.having("trow", "div")) == 3  # one timeline row per task
    links = [a["href"] for t, a in page.tags if re.fullmatch(r"#t\d+", a.get("href", ""))]
    assert links == ["#t0", "#t1", "#t2"]  # each row links to its task's section
    assert [a["id"] for a in page.having("task")] == ["t0", "t1", "t2"]
    assert [a["id"] for a in page.having("plain")] == ["t0"]  # a plain task is one line
    assert len(page.having("strip")) == 2  # one turn map per agent run
    turns = page.having("turn", "details")
    assert len(turns) == 5 + 1
    draft = turns[:5]
    assert ["nudge" in a["class"] for a in draft] == [False, False, True, False, False]
    assert ["stall" in a["class"] for a in draft] == [False] * 4 + [True]
    assert all("cycle" in a["class"] for a in draft)  # the repeated block is marked
    assert "open" in draft[4]  # the stall's evidence is unfolded
    assert "ev" not in turns[5]["class"].split()  # wrapup's turn is uneventful
    body = " ".join(page.text)
    assert "ranked" in body and "passthrough" in body
    assert "nika:compose" in body and "NIKA-PARSE-002" in body
    assert "recovered by on_error from NIKA-AGENT-006" in body
    assert re.search(r"Stalled.*5 times", body)
    assert " 5 turns · " in body and " 1 turn · " in body  # the count agrees with its noun
    assert "mock(echo) · Say hello." in body  # the infer task's output, as its value


def _hostile_journal(tmp_path: Path) -> Path:
    evil = "<script>alert(1)</script>\x1b[2J\u202eevil"
    return chained_journal(tmp_path / "j.ndjson", [
        ("workflow_started", {"workflow": evil, "tasks": 1}),
        ("task_started", {"task": "t", "note": evil}),
        ("verb_invoked", {"task": "t", "agent_event": "run_started", "model": evil,
                          "universe": 1, "attempt": 1, "verb": "agent"}),
        ("tool_invoked", {"task": "t", "agent_event": "tool_completed", "turn": 1,
                          "attempt": 1, "name": evil, "call_id": "c1", "is_error": False,
                          "result_bytes": 5000,
                          "arguments": '{"q":"</pre><img src=x onerror=alert(1)>"}',
                          "result": "r" * 5000}),
        ("task_completed", {"task": "t", "status": "success", "duration_ms": 1}),
        ("workflow_completed", {"state": "success"}),
    ])


def test_journal_text_is_escaped_visibly_and_long_values_fold(tmp_path: Path) -> None:
    text = _page(_hostile_journal(tmp_path))
    assert "<script>alert" not in text and "<img" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J\\u202eevil" in text
    assert "\x1b" not in text and "\u202e" not in text
    page = Page(text)
    [fold] = page.having("fold", "details")
    assert "open" not in fold and f"{5000:,} chars" in " ".join(page.text)
    assert text.count("r" * 5000) == 1  # folded, not copied
    assert "&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;" in text  # short: shown whole
    assert "&lt;/pre&gt;" in text and len("</pre><img src=x onerror=alert(1)>") < FOLD_AT


def test_the_cli_writes_the_page_and_exits_by_the_chain_verdict(
    journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "trace.html"
    assert main(["trace", "show", str(journal), "--html", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert capsys.readouterr().out.startswith(f"wrote {out} (")

    lines = journal.read_bytes().split(b"\n")
    edited = next(n for n, line in enumerate(lines) if b'"value":"hello"' in line)
    lines[edited] = lines[edited].replace(b'"value":"hello"', b'"value":"HELLO"')
    forged = tmp_path / "forged.ndjson"
    forged.write_bytes(b"\n".join(lines))
    assert main(["trace", "show", str(forged), "--html", str(out)]) == 2  # as the text view
    page = Page(out.read_text(encoding="utf-8"))
    assert page.having("v-forged", "span") and "FORGED" in page.text
    assert "(claimed by a journal whose chain does not verify)" in page.text

    assert main(["trace", "show", str(journal), "--html", str(tmp_path / "no" / "x.html")]) == 2
    assert "cannot write" in capsys.readouterr().err


def _html(tmp_path: Path, frames: list[tuple[str, dict[str, object]]]) -> str:
    return _page(chained_journal(tmp_path / "j.ndjson", frames))


def _shown(html: str, start: str) -> str:
    """The text of the element opened by `start` (up to its first `</div>`), tags dropped."""
    inner = html[html.index(start) + len(start):]
    return re.sub(r"<[^>]+>", "", inner[:inner.index("</div>")])


def test_totals_count_every_verb_and_price_what_the_table_prices(tmp_path: Path) -> None:
    html = _html(tmp_path, [
        ("workflow_started", {"workflow": "w", "tasks": 2}),
        ("cost_incurred", {"task": "ask", "model": "openai/gpt-4o", "input_tokens": 1000,
                           "output_tokens": 500}),
        ("task_completed", {"task": "ask", "status": "success", "output": '"fine"'}),
        ("cost_incurred", {"task": "local", "model": "ollama/llama3", "input_tokens": 10,
                           "output_tokens": 20}),
        ("task_completed", {"task": "local", "status": "success"}),
        ("workflow_completed", {"state": "success"}),
    ])
    totals = _shown(html, "id=totals>")
    # Two infer calls and no agent: their tokens, not 0; gpt-4o at $2.50/$10.00 per million;
    # the local call is neither $0 nor hidden.
    assert "model calls 2" in totals and "tokens 1,530 (1,010 in · 520 out)" in totals
    assert "cost $0.0075 + 1 unpriced" in totals
    assert "<pre>&quot;fine&quot;</pre>" in html  # ask's output, as its JSON text


def test_a_one_infer_run_has_its_tokens_and_an_unpriced_cost(tmp_path: Path) -> None:
    totals = _shown(_html(tmp_path, [
        ("workflow_started", {"workflow": "w", "tasks": 1}),
        ("cost_incurred", {"task": "a", "model": "mock/echo", "input_tokens": 3,
                           "output_tokens": 6}),
        ("task_completed", {"task": "a", "status": "success"}),
        ("workflow_completed", {"state": "success"}),
    ]), "id=totals>")
    assert "tokens 9 (3 in · 6 out)" in totals
    assert "cost unpriced" in totals and "$" not in totals


def test_a_tools_reported_spend_counts_and_an_unpriced_call_says_why(tmp_path: Path) -> None:
    html = _html(tmp_path, [
        ("workflow_started", {"workflow": "w", "tasks": 2}),
        ("cost_incurred", {"task": "draw", "model": "nika:image_generate",
                           "input_tokens": None, "output_tokens": None, "cost_usd": 0.07}),
        ("task_completed", {"task": "draw", "status": "success"}),
        ("cost_incurred", {"task": "ask", "model": "mock/echo", "input_tokens": 3,
                           "output_tokens": 6}),
        ("task_completed", {"task": "ask", "status": "success"}),
        ("workflow_completed", {"state": "success"}),
    ])
    totals = _shown(html, "id=totals>")
    # The bill is real spend but no model call; the mock call is neither $0 nor hidden.
    assert "model calls 1" in totals and "cost $0.07 + 1 unpriced" in totals
    assert "title='unbilled provider &#x27;mock&#x27;'>+ 1 unpriced</span>" in html
    assert "spend nika:image_generate · $0.07 (reported by the tool)" in html


@pytest.mark.parametrize(("end", "fields", "badge", "said"), [
    ("workflow_failed", {"state": "failure"}, "FAILURE", "NIKA-EXEC-001 exit 3"),
    ("workflow_failed", {"state": "failure", "error": {"code": "NIKA-RUN-002",
                                                        "detail": "outputs broke"}},
     "FAILURE", "NIKA-RUN-002 outputs broke"),
    ("workflow_cancelled", {"state": "cancelled"}, "CANCELLED", "CANCELLED"),
    ("workflow_paused", {"state": "paused", "message": "approve?"}, "PAUSED", "approve?"),
    (None, {}, "NO OUTCOME", "no terminal frame"),
])
def test_the_headline_is_the_outcome_with_the_verdict_beside(
    tmp_path: Path, end: str | None, fields: dict[str, object], badge: str, said: str
) -> None:
    frames: list[tuple[str, dict[str, object]]] = [
        ("workflow_started", {"workflow": "w", "tasks": 1}),
        ("task_failed", {"task": "t", "status": "failure",
                         "error": {"code": "NIKA-EXEC-001", "detail": "exit 3"}}),
    ]
    if end is not None:
        frames.append((end, fields))
    html = _html(tmp_path, frames)
    state = "unknown" if end is None else fields["state"]
    assert f"<body><header id=outcome class=o-{state}>" in html  # the outcome heads the page
    head = re.sub(r"<[^>]+>", "", html[html.index("<header"):html.index("</header>")])
    assert head.startswith(badge) and said in head
    chain = "INCOMPLETE" if end is None else "CLEAN"
    assert f"chain {chain} · " in head  # beside the outcome, not above it


def test_captured_values_show_their_size_and_digest_folded(tmp_path: Path) -> None:
    digest = "ab" * 32
    shown = values({"reply": {"truncated": "It begins", "bytes": 123456, "sha256": digest},
                    "output": {"k": [1, 2]}, "prompt": None})
    page = Page(shown)
    assert [a for t, a in page.tags if t == "details"] == [{"class": "fold"}]
    text = " ".join(page.text)
    assert "123,456 bytes · truncated, sha256 abababababababab…" in text
    assert "It begins" in text and '{"k": [1, 2]}' in text and "unrecorded" in text
    assert [d for d in page.text if d in ("reply", "output", "prompt")] == [
        "reply", "output", "prompt"]  # in their order


def test_the_page_shows_an_agents_prompt_and_an_invokes_arguments_and_result(
        tmp_path: Path) -> None:
    text = _page(chained_journal(tmp_path / "j.ndjson", [
        ("workflow_started", {"workflow": "w", "tasks": 2}),
        ("verb_invoked", {"task": "a", "agent_event": "run_started", "attempt": 1,
                          "model": "mock/echo", "prompt": "<b>draft</b> it",
                          "system": "be <brief>"}),
        ("verb_invoked", {"task": "a", "agent_event": "model_called", "turn": 1, "attempt": 1,
                          "model": "mock/echo", "reply": "done"}),
        ("task_completed", {"task": "a", "duration_ms": 1, "turns": 1}),
        ("tool_invoked", {"task": "v", "tool": "nika:read", "arguments": {"path": "<n>"},
                          "result": "<i>the file</i>"}),
        ("task_completed", {"task": "v", "duration_ms": 1}),
        ("workflow_completed", {"state": "success"}),
    ]))
    agent = text.split("<section class=task id=t0>", 1)[1].split("</section>", 1)[0]
    prompt, system, turns = (agent.index(s) for s in (
        "<pre>&lt;b&gt;draft&lt;/b&gt; it", "<pre>be &lt;brief&gt;", "<div class=turns>"))
    assert system < prompt < turns  # what the run was told, before what it did
    invoke = text.split("id=t1>", 1)[1].split("</div>", 1)[0]
    assert "<dt>result</dt>" in invoke and "&lt;i&gt;the file&lt;/i&gt;" in invoke
    assert "<dt>arguments</dt>" in invoke and "&lt;n&gt;" in invoke
    assert "<i>the file" not in text and "<b>draft" not in text
