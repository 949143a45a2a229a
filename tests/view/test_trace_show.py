"""`nika trace show`: the run's content — inputs, prompts, replies, tool calls, outputs — and
its tokens and cost, through real `nika run` and `nika trace` on real journals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.journal._journals import chained_journal
from tests.providers._servers import Reply, chat_completion, scripted_server

from nika.cli import main
from nika.journal.content import CONTENT_CAP
from nika.masking import MASK

SECRET = "s3cr3t-value-42"

NO_OUTPUTS = """\
nika: plain
model: mock/echo
permits:
  exec: ["echo"]
tasks:
  pick:
    exec: { command: ["echo", "tabby cats"] }
  tell:
    with: { topic: "${{ tasks.pick.output }}" }
    infer: { prompt: "Tell me about ${{ with.topic }}" }
"""

AGENT = """\
nika: reader
model: mock/scripted
secrets: { token: { source: env, key: TOKEN, egress: [{ to: agent }] } }
permits:
  tools: ["nika:done", "nika:read"]
  fs: { read: ["notes.txt"] }
tasks:
  research:
    with: { key: "${{ secrets.token }}" }
    agent:
      tools: ["nika:done", "nika:read"]
      max_turns: 3
      system: "You read notes."
      prompt: "Read the notes with key ${{ with.key }}"
"""
SCRIPT = {"replies": [
    {"text": "I will read the notes first",
     "tool_calls": [{"name": "nika:read", "args": {"path": "notes.txt"}}],
     "usage": {"input": 10, "output": 5}},
    {"text": "All read", "tool_calls": [{"name": "nika:done", "args": {"result": "notes read"}}],
     "usage": {"input": 20, "output": 6}},
]}

PRICED = """\
nika: priced
tasks:
  first:
    infer: { model: openai/gpt-4.1, prompt: "one" }
  second:
    infer: { model: openai/gpt-4.1, prompt: "two" }
  local:
    infer: { model: mock/echo, prompt: "three" }
"""


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps at the terminal's width
    monkeypatch.chdir(tmp_path)


def _run(flow: str, capsys: pytest.CaptureFixture[str], *args: str) -> Path:
    Path("flow.nika.yaml").write_text(flow, encoding="utf-8")
    assert main(["run", "flow.nika.yaml", *args]) == 0
    capsys.readouterr()
    [path] = Path(".nika/traces").glob("*.ndjson")
    return path


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["trace", "show", "--last", *args]) == 0
    return capsys.readouterr().out


def test_a_workflow_without_outputs_shows_each_tasks_inputs_prompt_reply_and_output(
        capsys: pytest.CaptureFixture[str]) -> None:
    _run(NO_OUTPUTS, capsys)
    out = _show(capsys)
    for text in ('output "tabby cats', 'inputs {"topic":"tabby cats',
                 "prompt Tell me about tabby cats",
                 "reply mock(echo) · Tell me about tabby cats",
                 'output "mock(echo) · Tell me about tabby cats"',
                 "model mock/echo · ", "unpriced"):
        assert text in out, text
    assert out.index("inputs") < out.index("prompt Tell") < out.index('output "mock(echo)')


def test_a_mock_agent_run_shows_the_prompt_the_model_text_and_a_tool_result(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    Path("notes.txt").write_text("the notes say hello\n", encoding="utf-8")
    Path("script.json").write_text(json.dumps(SCRIPT), encoding="utf-8")
    monkeypatch.setenv("NIKA_MOCK_SCRIPT", "script.json")
    monkeypatch.setenv("TOKEN", "tok-1")
    _run(AGENT, capsys)
    out = _show(capsys)
    for text in ("system You read notes.", f"prompt Read the notes with key {MASK}",
                 "reply I will read the notes first", 'arguments {"path":"notes.txt"}',
                 "result the notes say hello", "reply All read", 'output "notes read"',
                 "model mock/scripted · 10→5 tokens · unpriced",
                 "totals · 2 model calls · 30→11 tokens · cost unpriced"):
        assert text in out, text


def test_a_priced_model_shows_its_cost_per_call_per_task_and_for_the_run(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # 1,000 input + 2,000 output tokens of openai/gpt-4.1 at $2 / $8 per million: $0.018.
    reply = Reply(json=chat_completion(content="ok", usage=(1000, 2000)))
    with scripted_server() as server:
        server.script(reply, reply)
        monkeypatch.setenv("NIKA_OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("NIKA_OPENAI_API_KEY", "sk-test")
        journal = _run(PRICED, capsys)
    out = _show(capsys)
    assert out.count("model openai/gpt-4.1 · 1,000→2,000 tokens · $0.018") == 2
    assert out.count("1,000→2,000 tokens · cost $0.018") == 2  # each task's line
    assert "cost unpriced" in out  # the mock call: never $0
    assert "totals · 3 model calls · 2,0" in out and "cost $0.036 + 1 unpriced call" in out
    end = json.loads(journal.read_text(encoding="utf-8").splitlines()[-1])
    fields = {f["key"]: f["value"] for f in end["fields"]}
    assert fields["total_cost_usd"] == pytest.approx(0.036)
    assert fields["input_tokens"] >= 2000 and fields["output_tokens"] >= 4000
    assert isinstance(fields["duration_ms"], int)
    assert main(["trace", "ls"]) == 0
    row = capsys.readouterr().out.splitlines()[1]
    assert f"{fields['input_tokens']}→{fields['output_tokens']}" in row and " $0.036 " in row


def test_a_declared_secret_reaches_no_journal_line_no_show_and_no_list(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    Path("notes.txt").write_text(f"the key is {SECRET} and more\n", encoding="utf-8")
    Path("script.json").write_text(json.dumps(SCRIPT), encoding="utf-8")
    monkeypatch.setenv("NIKA_MOCK_SCRIPT", "script.json")
    monkeypatch.setenv("TOKEN", SECRET)
    journal = _run(AGENT, capsys)
    data = journal.read_text(encoding="utf-8")
    assert SECRET not in data and data.count(MASK) >= 3  # the inputs, the prompt, the result
    shown = _show(capsys) + _show(capsys, "--full")
    assert SECRET not in shown and f"result the key is {MASK} and more" in shown
    assert main(["trace", "ls"]) == 0
    assert SECRET not in capsys.readouterr().out
    assert main(["trace", "verify", "--last"]) == 0
    assert capsys.readouterr().out.startswith("CLEAN · ")


def test_long_values_fold_with_their_size_and_full_shows_them_whole(
        capsys: pytest.CaptureFixture[str]) -> None:
    lines = "\\n".join(f"line {n}" for n in range(12))
    _run(f'nika: long\nmodel: mock/echo\ntasks:\n  say:\n    infer: {{ prompt: "{lines}" }}\n',
         capsys)
    folded = _show(capsys)
    assert "prompt line 0 … (" in folded and "B, --full to show)" in folded
    assert "line 11\n" not in folded  # (the output's JSON text holds it escaped, on one line)
    full = _show(capsys, "--full")
    assert "line 11\n" in full and "--full to show" not in full


def test_a_value_over_the_cap_shows_the_head_the_size_and_the_digest(
        capsys: pytest.CaptureFixture[str]) -> None:
    half = "w" * 36_000  # a YAML scalar is capped below the journal's cap: a template joins two
    journal = _run(f"nika: big\nmodel: mock/echo\ntasks:\n  say:\n    with: {{ a: {half} }}\n"
                   "    infer: { prompt: \"${{ with.a }}${{ with.a }}\" }\n", capsys)
    assert 2 * len(half) > CONTENT_CAP
    assert max(len(line) for line in journal.read_bytes().splitlines()) < 1 << 20
    folded = _show(capsys)
    assert "prompt " + "w" * 100 + " … (70.3 KiB, --full to show)" in folded
    full = _show(capsys, "--full")
    assert "the journal kept the first 64.0 KiB of 70.3 KiB · sha256 " in full


def test_an_older_journal_without_content_still_reads(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = chained_journal(tmp_path / "old.ndjson", [
        ("workflow_started", {"workflow": "old", "tasks": 1}),
        ("cost_incurred", {"task": "say", "model": "openai/gpt-4.1", "input_tokens": 1000,
                           "output_tokens": 2000}),
        ("tool_invoked", {"task": "say", "agent_event": "tool_completed", "turn": 1,
                          "name": "nika:read", "is_error": False,
                          "arguments": '{"path":"a\x1b[2J"}', "result": "x…"}),
        ("task_completed", {"task": "say", "status": "success", "duration_ms": 4,
                            "attempts": 1, "output": '"ok"', "outcome": "{}"}),
        ("workflow_completed", {"workflow": "old", "state": "success", "outputs": "{}"}),
    ])
    assert main(["trace", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "model openai/gpt-4.1 · 1,000→2,000 tokens · $0.018" in out
    assert 'arguments {"path":"a\\x1b[2J"}' in out and "\x1b" not in out  # escaped
    assert 'output "ok"' in out and "prompt" not in out  # nothing made up
    assert "totals · 1 model call · 1,000→2,000 tokens · cost $0.018 · 4.0 ms" in out


def test_an_invoke_call_and_each_fan_out_item_show_their_arguments_and_output(
        capsys: pytest.CaptureFixture[str]) -> None:
    _run("nika: fan\npermits:\n  tools: [\"nika:emit\"]\ntasks:\n  e:\n"
         "    for_each: { items: [ada, bob] }\n"
         "    invoke: { tool: nika:emit, args: { event_type: greet, "
         "payload: { name: \"${{ item }}\" } } }\n", capsys)
    out = _show(capsys)
    for name in ("ada", "bob"):
        assert f'arguments {{"event_type":"greet","payload":{{"name":"{name}"}}}}' in out
    assert out.count("result null") == 2  # nika:emit answers nothing
    assert out.count("checkpoint item") == 2 and out.count("output null") == 2
    assert "output [null,null]" in out  # the task's settled value: one per item
    assert "totals · 0 model calls · 0→0 tokens · cost no model call" in out
