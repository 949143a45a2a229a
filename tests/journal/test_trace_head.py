"""What the README says about the head: the chain is unkeyed, so a journal rewritten and
re-chained from an edited line verifies OK on its own — only the head kept elsewhere
(`nika trace verify --head`) catches it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.journal._journals import run_journal

from nika.cli import main
from nika.journal.writer import encode, line_hash


def _rechain(lines: list[bytes], edit: int) -> list[bytes]:
    """Edit line `edit` (0-based) and recompute every later link, as a forger with write
    access would."""
    out = lines[:edit]
    for n, line in enumerate(lines[edit:], edit):
        frame = json.loads(line)
        if n == edit:
            frame["fields"] = [{"key": "task", "value": "forged"}, *frame["fields"][1:]]
        if n > 0:
            frame["chain"] = line_hash(out[-1])
        out.append(encode(frame))
    return out


def test_a_rechained_forgery_passes_alone_and_fails_against_the_kept_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = run_journal(tmp_path)
    lines = journal.read_bytes().rstrip(b"\n").split(b"\n")
    head = line_hash(lines[-1])
    forged = tmp_path / "forged.ndjson"
    forged.write_bytes(b"\n".join(_rechain(lines, 3)) + b"\n")

    assert main(["trace", "verify", str(forged)]) == 0  # the chain alone cannot tell
    assert capsys.readouterr().out.startswith("CLEAN · ")
    assert main(["trace", "verify", str(forged), "--head", head]) == 2
    assert "FORGED" in capsys.readouterr().out
    assert main(["trace", "verify", str(journal), "--head", head]) == 0


def test_a_display_head_may_be_the_first_12_digits_and_a_malformed_one_is_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = run_journal(tmp_path)
    head = line_hash(journal.read_bytes().rstrip(b"\n").split(b"\n")[-1])
    for action in ("verify", "show"):
        assert main(["trace", action, str(journal), "--head", head[:12]]) == 0
        assert "FORGED" not in capsys.readouterr().out
        wrong = ("0" if head[0] != "0" else "1") + head[1:12]
        assert main(["trace", action, str(journal), "--head", wrong]) == 2
        assert "FORGED" in capsys.readouterr().out
        for bad in ("xyz", head[:11], head + "0"):
            assert main(["trace", action, str(journal), "--head", bad]) == 2
            captured = capsys.readouterr()
            assert "FORGED" not in captured.out
            assert "is not a head; give the hex digits `nika run` printed, all 64 or the " \
                   "first 12 or more" in captured.err


def test_a_file_that_is_not_a_journal_is_said_so_not_forged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = tmp_path / "hello.nika.yaml"
    flow.write_text("nika: hello\ntasks: {}\n", encoding="utf-8")
    empty = tmp_path / "empty.ndjson"
    empty.write_bytes(b"")
    for target, why in ((flow, "it does not open with a JSON frame"), (empty, "it is empty")):
        for action in ("verify", "show"):
            assert main(["trace", action, str(target)]) == 2
            captured = capsys.readouterr()
            assert "FORGED" not in captured.out + captured.err
            assert f"is not a journal ({why})" in captured.err
