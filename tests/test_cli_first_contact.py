"""The small things a first run shows (issue 35 item 6), each through the real CLI."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

HELLO = ('nika: hello\nmodel: mock/echo\ntasks:\n  greet:\n    infer: { prompt: "Say hello." }\n'
         'outputs:\n  greeting: ${{ tasks.greet.output }}\n')
GATE = ('nika: gate\npermits:\n  tools: ["nika:prompt"]\ntasks:\n  approve:\n'
        '    invoke: { tool: "nika:prompt", args: { message: "Ship it?" } }\n'
        'outputs:\n  answer: ${{ tasks.approve.output }}\n')


def _nika(cwd: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nika.cli", *argv], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=60, check=False)


def test_one_task_is_one_task_and_stdin_runs_like_check(tmp_path: Path) -> None:
    done = _nika(tmp_path, "run", "-", stdin=HELLO)
    assert done.returncode == 0, done.stderr
    assert "▶ hello · 1 task\n" in done.stderr
    assert done.stdout == '{"greeting":"mock(echo) · Say hello."}\n'


def test_a_paused_run_prints_no_outputs_and_names_what_waits(tmp_path: Path) -> None:
    (tmp_path / "gate.nika.yaml").write_text(GATE)
    done = _nika(tmp_path, "run", "gate.nika.yaml")
    assert done.returncode == 75
    assert done.stdout == ""  # not `{}`: nothing has settled yet
    assert "■ paused · 1 waiting for an answer (approve)" in done.stderr
    assert "no tasks" not in done.stderr


def test_a_var_without_a_name_says_where_the_name_goes(tmp_path: Path) -> None:
    (tmp_path / "hello.nika.yaml").write_text(HELLO)
    done = _nika(tmp_path, "run", "hello.nika.yaml", "--var", "=3")
    assert done.returncode == 2
    assert "--var '=3' is not `key=value`; write it as --var <input>=3" in done.stderr


def test_a_hello_world_check_reads_plainly(tmp_path: Path) -> None:
    (tmp_path / "hello.nika.yaml").write_text(HELLO)
    done = _nika(tmp_path, "check", "hello.nika.yaml")
    assert done.returncode == 0
    assert "UNBOUNDED" not in done.stdout and "uncapped" not in done.stdout
    assert "  no ceiling for greet — no max_tokens declared" in done.stdout
    assert "  energy: not estimated — no measured Wh figure for this workflow's models" \
        in done.stdout


def test_trace_show_names_an_empty_env_passthrough(tmp_path: Path) -> None:
    (tmp_path / "say.nika.yaml").write_text(
        'nika: say\npermits:\n  exec: ["echo"]\ntasks:\n  say:\n'
        '    exec: { command: ["echo", "hi"] }\n')
    assert _nika(tmp_path, "run", "say.nika.yaml").returncode == 0
    [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    shown = _nika(tmp_path, "trace", "show", str(journal))
    assert shown.returncode == 0, shown.stderr
    assert "permit allow env (no declared passthrough)" in shown.stdout
    assert "permit allow env \n" not in shown.stdout


def test_a_pure_builtin_needs_no_tools_grant_under_any_permits_block(tmp_path: Path) -> None:
    # Spec 01 §permits (01:619-624): a pure-compute builtin requires NO `tools` grant, under
    # any form of the block; an effectful one still does.
    for permits in ("", "permits:\n  exec: false\n"):
        (tmp_path / "pure.nika.yaml").write_text(
            f"nika: pure\n{permits}tasks:\n  h:\n"
            '    invoke: { tool: "nika:hash", args: { content: "hi", algo: sha256 } }\n'
            "outputs:\n  h: ${{ tasks.h.output }}\n")
        checked = _nika(tmp_path, "check", "--json", "pure.nika.yaml")
        verdict = json.loads(checked.stdout)
        assert verdict["valid"] is True and verdict["hints"] == [], verdict
        ran = _nika(tmp_path, "run", "pure.nika.yaml", "--output", "json")
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout)["h"] == hashlib.sha256(b"hi").hexdigest()
    (tmp_path / "reads.nika.yaml").write_text(
        'nika: reads\npermits:\n  fs: { read: ["*.txt"] }\ntasks:\n  r:\n'
        '    invoke: { tool: "nika:read", args: { path: "a.txt" } }\n')
    refused = json.loads(_nika(tmp_path, "check", "--json", "reads.nika.yaml").stdout)
    assert refused["valid"] is False


def test_an_input_that_may_bind_null_gets_a_hint(tmp_path: Path) -> None:
    (tmp_path / "hi.nika.yaml").write_text(
        "nika: hi\nmodel: mock/echo\ninputs:\n  name: { type: string }\n"
        "  nick: { type: { union: [string, null] } }\n  who: { type: string, default: x }\n"
        '  must: { type: string, required: true }\ntasks:\n  greet:\n'
        '    infer: { prompt: "Hi ${{ inputs.name }} ${{ inputs.nick }} ${{ inputs.who }} '
        '${{ inputs.must }}" }\n')
    done = _nika(tmp_path, "check", "--json", "hi.nika.yaml")
    verdict = json.loads(done.stdout)
    assert done.returncode == 0 and verdict["valid"] is True
    assert [(h["code"], h["line"]) for h in verdict["hints"]] == [("NIKA-INPUT-004", 4)]
    assert "`--var name=…` binds it to null" in verdict["hints"][0]["detail"]


def test_a_refused_run_on_a_terminal_shows_the_line_and_the_caret(tmp_path: Path) -> None:
    import os
    import pty

    (tmp_path / "typo.nika.yaml").write_text(
        'nika: typo\nmodel: mock/echo\ntasks:\n  greet:\n    infer:\n      promt: "hi"\n')
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "nika.cli", "run", "typo.nika.yaml"],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=follower,
                              timeout=60, check=False)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the other end is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    shown = b"".join(chunks).decode().replace("\r\n", "\n")
    assert done.returncode == 1
    assert "error[NIKA-PARSE-005]: unknown field `promt` in `infer:` of task `greet`\n" in shown
    assert '6 |       promt: "hi"\n  |       ^^^^^\n' in shown
    assert "nika run: the workflow was refused by the check; nothing ran" in shown
