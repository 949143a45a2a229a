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
