"""The terminal rendering of ten typical mistakes (issue 35), through the real CLI: each
finding's code and message, `--> file:line:col`, the offending source line with a caret span
under what it names, and the fix as `= help:`. The same ten through `--json` keep the wire
shape, and the JSON detail is the rendered message and fix, unsplit."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.check.render import caret_span, split_fix

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name.removesuffix(".nika.yaml") for p in GOLDEN.glob("*.nika.yaml"))
ERROR_KEYS = {"category", "code", "column", "detail", "line", "namespace", "transient"}


def _stable(text: str) -> str:
    # The closed builtin set grows with the engine; the sentence around its size does not.
    return re.sub(r"\(\d+ builtins\)", "(N builtins)", text)


def _nika(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nika.cli", *argv], cwd=GOLDEN,
                          capture_output=True, text=True, timeout=60, check=False)


def test_ten_typical_mistakes() -> None:
    assert len(CASES) == 10


@pytest.mark.parametrize("case", CASES)
def test_the_terminal_view_shows_the_line_the_caret_and_the_fix(case: str) -> None:
    done = _nika("check", "--format", "full", f"{case}.nika.yaml")
    assert done.returncode == 1, done.stderr
    expected = (GOLDEN / f"{case}.txt").read_text(encoding="utf-8")
    assert _stable(done.stdout) == _stable(expected)


@pytest.mark.parametrize("case", CASES)
def test_the_same_mistakes_through_json_keep_the_wire_shape(case: str) -> None:
    done = _nika("check", "--json", f"{case}.nika.yaml")
    verdict = json.loads(done.stdout)
    assert {"errors", "hints", "valid"} <= set(verdict) and verdict["valid"] is False
    shown = (GOLDEN / f"{case}.txt").read_text(encoding="utf-8")
    headers = re.findall(r"^error\[(NIKA-[A-Z0-9-]+)\]: (.*)$", shown, re.MULTILINE)
    assert [e["code"] for e in verdict["errors"]] == [code for code, _ in headers]
    for error, (_, message) in zip(verdict["errors"], headers, strict=True):
        assert ERROR_KEYS <= set(error) <= ERROR_KEYS | {"details"}
        assert f"{error['line']}:{error['column']}" in shown
        statement, fix = split_fix(error["detail"])
        assert statement == message and (not fix or f"= help: {fix}" in shown)


def test_a_terminal_gets_the_full_view_and_a_pipe_the_short_one() -> None:
    flow = "01-field-typo.nika.yaml"
    piped = _nika("check", flow)
    assert piped.stdout.startswith(f"{flow}:6:7 NIKA-PARSE-005 validation_error — ")
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "nika.cli", "check", flow], cwd=GOLDEN,
                              stdout=follower, stderr=subprocess.PIPE, timeout=60, check=False)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert done.returncode == 1
    shown = b"".join(chunks).decode().replace("\r\n", "\n")
    assert _stable(shown) == _stable((GOLDEN / "01-field-typo.txt").read_text(encoding="utf-8"))


def test_a_detail_splits_at_its_first_plain_semicolon() -> None:
    assert split_fix("a `x; y` (b; c); fix it; more") == ("a `x; y` (b; c)", "fix it; more")
    assert split_fix("no fix here") == ("no fix here", "")


def test_the_caret_spans_keys_quotes_brackets_and_named_values() -> None:
    assert caret_span("    promt: x", 5) == (4, 5)
    assert caret_span('  a: "q, r" # c', 6) == (5, 6)
    assert caret_span("    infer: { prompt: x", 12) == (11, 1)  # left open: marked alone
    assert caret_span("a: ${{ inputs.nme }}", 4, ["inputs.nme"]) == (7, 10)
    assert caret_span("a: plain value # note", 4) == (3, 11)


@given(st.text(max_size=40), st.integers(min_value=-3, max_value=60),
       st.lists(st.text(min_size=1, max_size=5), max_size=3))
def test_the_caret_stays_on_the_line(text: str, column: int, named: list[str]) -> None:
    start, width = caret_span(text, column, named)
    assert 0 <= start <= len(text) and width >= 1
    assert start + width <= max(len(text), start + 1)


@given(st.text(alphabet="ab;` ()[]{}", max_size=30))
def test_a_split_detail_joins_back_to_itself(detail: str) -> None:
    message, fix = split_fix(detail)
    assert (f"{message}; {fix}" if fix else message) == detail
