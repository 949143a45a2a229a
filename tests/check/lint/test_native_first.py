"""native-first/001–/006: `exec:` is the escape hatch, never the default path (spec 03)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from nika.check.lint._command import Command, command_of
from nika.check.lint.native_first import classify
from nika.syntax.model import ExecBody

Lints = Callable[..., list[tuple[str, str]]]


def _shell(line: str) -> Command:
    return command_of(ExecBody(shell=line))


def _argv(*words: str) -> Command:
    return command_of(ExecBody(command=words))


def _rule(cmd: Command) -> str | None:
    verdict = classify(cmd)
    return verdict[0] if verdict else None


@pytest.mark.parametrize(
    ("cmd", "rule"),
    [
        (_argv("python3", "-u", "scripts/upload.py", "--all"), "native-first/005"),
        (_argv("/usr/bin/bash", "tools/sync.sh"), "native-first/005"),
        (
            _shell("curl -s https://api.openai.com/v1/images/generations -d @b.json"),
            "native-first/004",
        ),
        (_shell("FOO=1 wget -qO- https://example.com/feed.xml"), "native-first/001"),
        (_argv("node", "-e", "fetch('https://x.test').then(r => r.text())"), "native-first/001"),
        (_argv("env", "LANG=C", "mkdir", "-p", "out"), "native-first/002"),
        (_shell("awk '{print $1}' data.txt > firsts.txt"), "native-first/003"),
        (_argv("sha256sum", "dist/app.tar.gz"), "native-first/006"),
        (_shell("rg TODO src"), "native-first/006"),
    ],
)
def test_the_ladder_fires_the_most_specific_class(cmd: Command, rule: str) -> None:
    assert _rule(cmd) == rule


@pytest.mark.parametrize(
    "cmd",
    [
        _shell("cargo test --workspace"),
        _argv("git", "log", "--oneline"),
        _argv("nika", "run", "child.nika.yaml"),
        _argv("${{ inputs.tool }}", "--flag"),
        _argv("./scripts/cat", "template.json"),
        _argv("./deploy.sh", "--host", "api.elevenlabs.io"),
        _argv("python3", "-m", "pytest", "tests/test_x.py"),
        _argv("node", "${{ inputs.script }}.mjs"),
        _argv("docker", "ps", "--all"),
    ],
)
def test_genuine_nested_templated_and_own_tools_stay_silent(cmd: Command) -> None:
    assert _rule(cmd) is None


def test_at_most_one_native_first_warning_per_task(lints: Lints) -> None:
    # a helper script that also curls and greps is still ONE warning: the helper's
    src = """
    nika: w
    tasks:
      helper:
        exec: { shell: "python3 scrape.py | curl -d @- https://x.test | grep ok" }
    """
    assert lints(src) == [("native-first/005", "helper")]


def test_the_fix_names_the_builtin_and_its_argument_shape(lints: Lints) -> None:
    from nika.check import check

    verdict = check('nika: w\ntasks:\n  pause:\n    exec: { command: ["sleep", "5"] }\n', lint=True)
    (found,) = verdict.lints or ()
    assert found.rule == "native-first/006"
    assert "`nika:wait` (`duration:`)" in found.fix
    assert json.loads(verdict.to_json())["lints"][0]["family"] == "native-first"
