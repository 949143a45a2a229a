"""The README's walkthrough runs as written: every file it shows, every command and its output.

"Your first workflow" is a sequence of fenced blocks: a ```yaml block whose first line names its
file (`# hello.nika.yaml`), then a ```text block of `$ nika ...` commands, each followed by the
exact stdout it prints. This test writes the files into an empty directory and runs the
commands with the real `nika` console script, so the README cannot rot.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from nika.check import check

README = Path(__file__).resolve().parents[1] / "README.md"
GUIDE = README.parent / "docs" / "guide.md"  # the language guide the README links to
NIKA = Path(sys.executable).parent / "nika"
FIRST = "## Your first workflow"


def _section(title: str, page: Path = README) -> str:
    text = page.read_text(encoding="utf-8")
    start = text.index(title)
    end = text.find("\n## ", start + len(title))
    return text[start:end if end != -1 else None]


def _blocks(section: str) -> list[tuple[str, str]]:
    return re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)


def _commands(text: str) -> list[tuple[str, str]]:
    """`$ command` lines with the output lines that follow them."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], ""))
        else:
            command, shown = out[-1]
            out[-1] = (command, shown + line + "\n")
    return out


def test_the_walkthrough_has_three_steps_each_a_file_and_a_command() -> None:
    blocks = _blocks(_section(FIRST))
    assert [kind for kind, _ in blocks] == ["yaml", "text"] * 3
    assert [body.splitlines()[0] for kind, body in blocks if kind == "yaml"] == [
        "# hello.nika.yaml", "# digest.nika.yaml", "# agent.nika.yaml"]


def test_every_command_prints_what_the_readme_shows(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{NIKA.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    ran = 0
    for kind, body in _blocks(_section(FIRST)):
        if kind == "yaml":
            name = body.splitlines()[0].removeprefix("# ")
            (tmp_path / name).write_text(body, encoding="utf-8")
            continue
        for command, shown in _commands(body):
            argv = shlex.split(command)
            assert argv[0] == "nika"
            done = subprocess.run([str(NIKA), *argv[1:]], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=120, check=False)
            assert done.returncode == 0, done.stderr
            assert done.stdout == shown, command
            assert done.stderr.splitlines()[-1].startswith("journal .nika/traces/")
            ran += 1
    assert ran == 3


def test_the_first_screen_workflow_checks_clean() -> None:
    kind, body = _blocks(README.read_text(encoding="utf-8"))[0]
    assert kind == "yaml"
    verdict = check(body)
    assert verdict.valid, verdict.errors


@pytest.mark.parametrize(("title", "use"), [
    ("## Secrets", "  call:\n    with: { token: \"${{ secrets.api_token }}\" }\n"
                   "    invoke:\n      tool: nika:fetch\n      args: { url: "
                   "\"https://api.example.com/v1\", headers: { Authorization: "
                   "\"${{ with.token }}\" } }\n"),
    ("## Permits: what a workflow may touch", "  a:\n    exec: { command: [git, status] }\n"),
])
def test_the_reference_blocks_are_accepted_by_the_check(title: str, use: str) -> None:
    [(kind, block)] = _blocks(_section(title, GUIDE))[:1]
    permits = ("" if "permits:" in block else
               'permits:\n  net: { http: ["api.example.com"] }\n  tools: ["nika:fetch"]\n')
    verdict = check(f"nika: readme\n{block}{permits}tasks:\n{use}")
    assert kind == "yaml" and verdict.valid, verdict.errors
