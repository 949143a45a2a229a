"""The thin CLI: `nika --version` and `nika check FILE [--json]` with exit codes 0/1/2."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from nika import __version__
from nika.cli import main

HELLO = "nika: hello\ntasks:\n  greet:\n    infer: { prompt: hi }\n"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out


def test_check_valid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "hello.nika.yaml"
    f.write_text(HELLO)
    assert main(["check", str(f)]) == 0
    assert capsys.readouterr().out.startswith("ok ")


def test_check_refused_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.nika.yaml"
    f.write_text("nika: Bad\ntasks: { a: { infer: { prompt: x } } }\n")
    assert main(["check", "--json", str(f)]) == 1
    out = capsys.readouterr().out
    wire = json.loads(out)
    assert wire["valid"] is False and wire["errors"][0]["code"] == "NIKA-PARSE-003"
    assert out.count("\n") == 1


def test_check_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(HELLO.encode())))
    assert main(["check", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True


def test_unreadable_file_is_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["check"], ["frobnicate"], ["check", "a", "--bogus"]])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err
