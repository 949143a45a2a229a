"""Text from a document never drives the terminal: `printable` and every human renderer.

The attack (issue 14): YAML double-quoted escapes put ESC, CR and NUL into a value, which a
renderer printing it raw would obey — erase its own refusal line and paint "ok".
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from nika._term import json_printable, printable
from nika.cli import main
from nika.errors import NikaError
from nika.journal.bus import RunEvent
from nika.journal.frames import TaskEnded, WorkflowEnded, WorkflowStarted
from nika.view.progress import ProgressSink

# Every character class the renderers must neutralise: C0, DEL, C1, bidi, line separators.
HOSTILE = "\x00\x07\x08\t\r\x1b\x7f\x85\x9b\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069"
PAINT = r"\e[2K\r\e[32mok\e[0m all good\0\u202e"  # as YAML double-quoted escapes spell it
NO_NUL = PAINT.replace(r"\0", "")


def _clean(out: str) -> None:
    """No control or bidi character is left, other than the renderer's own line breaks."""
    assert not [c for c in out if c in HOSTILE], repr(out)


def test_every_unsafe_character_is_shown_escaped() -> None:
    shown = printable(HOSTILE + "\n")
    _clean(shown)
    assert "\n" not in shown
    for spelled in ("\\x00", "\\x1b", "\\x0d", "\\x7f", "\\x9b", "\\u202e", "\\u2066", "\\x0a"):
        assert spelled in shown


def test_plain_text_and_other_scripts_pass_unchanged() -> None:
    text = "résumé — 東京 · ✓ naïve \\x1b literal"
    assert printable(text) == text
    assert printable("a\nb", keep_newlines=True) == "a\nb"
    assert printable("a\r\nb", keep_newlines=True) == "a\\x0d\nb"


def test_json_printable_keeps_the_value() -> None:
    value = {"k": "x" + HOSTILE + "é"}
    text = json_printable(json.dumps(value, ensure_ascii=False))
    _clean(text)
    assert json.loads(text) == value


def _flow(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "evil.nika.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_check_cannot_repaint_its_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = _flow(tmp_path, f'nika: "{PAINT}"\ntasks:\n  a:\n    infer: {{ prompt: x }}\n')
    assert main(["check", str(flow)]) == 1
    out = capsys.readouterr().out
    _clean(out)
    assert "\\x1b[2K\\x0d\\x1b[32mok" in out and "\\u202e" in out
    assert out.splitlines()[-1].startswith("refused ")


def test_check_json_escapes_c1_and_bidi_losslessly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = _flow(tmp_path, 'nika: "bad\\x9b\\u202e"\ntasks:\n  a:\n    infer: { prompt: x }\n')
    assert main(["check", "--json", str(flow)]) == 1
    out = capsys.readouterr().out
    _clean(out)
    assert "\u202e" in json.dumps(json.loads(out), ensure_ascii=False)


def test_infer_permits_comments_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = _flow(
        tmp_path,
        "nika: evil\ninputs: { p: { type: string } }\ntasks:\n  w:\n    invoke:\n"
        "      tool: nika:write\n"
        # Without the NUL byte: around an island it makes the path no file at all (refused,
        # and no effect to permit), so no comment would name it.
        f'      args: {{ path: "${{{{ inputs.p }}}}{NO_NUL}", content: x }}\n',
    )
    assert main(["check", "--infer-permits", str(flow)]) == 0
    out = capsys.readouterr().out
    assert "# dynamic:" in out
    _clean(out)


def test_run_progress_escapes_task_errors() -> None:
    buffer = io.StringIO()
    sink = ProgressSink(Console(file=buffer, width=400, highlight=False))
    error = NikaError("NIKA-BUILTIN-ASSERT-001", "\x1b[2K\rok\u202e")
    for seq, frame in enumerate([
        WorkflowStarted(workflow="w\x1b]0;x\x07", tasks=1, inputs="{}"),
        TaskEnded(task="a\x1b[1m", status="failure", duration_ms=1, attempts=1, error=error,
                  outcome="{}"),
        WorkflowEnded(workflow="w\x1b]0;x\x07", state="failure"),
    ]):
        sink.emit(RunEvent(seq=seq, frame=frame, timestamp=0))
    out = buffer.getvalue()
    _clean(out)
    assert "\\x1b[2K\\x0dok\\u202e" in out


def test_run_end_to_end_prints_no_control_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    flow = _flow(
        tmp_path,
        "nika: evil\ntasks:\n  a:\n    invoke:\n      tool: nika:assert\n"
        f'      args: {{ condition: false, message: "{PAINT}" }}\n'
        'outputs:\n  said: "${{ tasks.a.output }}"\n',
    )
    assert main(["run", str(flow)]) == 1
    captured = capfd.readouterr()
    _clean(captured.out + captured.err)
    assert "NIKA-BUILTIN-ASSERT-001" in captured.err
