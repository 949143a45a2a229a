"""`nika completion bash|zsh|fish` and `nika schema`: each script loads in its real shell
and completes what the parser registers; the schema printed is the shipped file."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Final

import pytest

from nika.cli import build_parser, main
from nika.serve._completion import commands_of
from nika.serve._oracle import workflow_schema_text

TIMEOUT: Final = 30


def script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def run(argv: list[str]) -> str:
    assert shutil.which(argv[0]), f"{argv[0]} is not installed: `make install-dev` installs it"
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_parser_tree_is_read_whole() -> None:
    commands = {c.name: c for c in commands_of(build_parser())}
    assert {"check", "run", "trace", "inspect", "mcp", "lsp", "schema", "completion"} <= set(
        commands)
    assert "--format" in commands["inspect"].options
    assert commands["completion"].choices == ("bash", "zsh", "fish")
    assert [s.name for s in commands["trace"].subcommands] == ["verify", "show", "ls", "rm",
                                                               "receipt"]


def test_bash_completes_commands_flags_and_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "nika.bash"
    file.write_text(script("bash", capsys))

    def complete(*words: str) -> list[str]:
        line = " ".join(f"'{w}'" for w in words)
        probe = (f"source {file}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
                 "_nika; printf '%s\\n' \"${COMPREPLY[@]}\"")
        return run(["bash", "-c", probe]).split()

    assert complete("nika", "ins") == ["inspect"]
    assert complete("nika", "inspect", "--f") == ["--format"]
    assert complete("nika", "completion", "z") == ["zsh"]
    assert complete("nika", "trace", "re") == ["receipt"]
    assert "--lint" in complete("nika", "check", "x.yaml", "--l")


def test_fish_completes_and_zsh_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    fish = tmp_path / "nika.fish"
    fish.write_text(script("fish", capsys))
    out = run(["fish", "--no-config", "-c", f"source {fish}; complete -C 'nika ins'"])
    assert out.split("\t")[0] == "inspect"
    out = run(["fish", "--no-config", "-c", f"source {fish}; complete -C 'nika inspect --'"])
    assert "--format" in out

    zsh = tmp_path / "_nika"
    zsh.write_text(script("zsh", capsys))
    run(["zsh", "-n", str(zsh)])
    out = run(["zsh", "-f", "-c", f"autoload -U compinit; compinit -u -D; source {zsh}; "
               "print -r -- ${_comps[nika]}"])
    assert out.strip() == "_nika"


def test_schema_prints_the_shipped_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert out == workflow_schema_text()
    assert json.loads(out)["$id"] == "https://nika.sh/spec/v1/workflow.schema.json"


def test_inspect_reads_stdin_and_refuses_an_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    source = b"nika: s\ntasks:\n  a:\n    infer: { model: mock/echo, prompt: hi }\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source)))
    assert main(["inspect", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["workflow"] == "s"
    assert main(["inspect", str(tmp_path)]) == 2
    assert "cannot read" in capsys.readouterr().err
