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


CURL = (
    'nika: w\npermits: { exec: ["curl"] }\n'
    'tasks:\n  get:\n    exec: { command: ["curl", "https://x.test"] }\n'
)


def test_check_json_lint_is_the_lint_door(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "w.nika.yaml"
    f.write_text(CURL)
    assert main(["check", "--json", "--lint", str(f)]) == 0  # lints never refuse
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is True
    assert [(e["rule"], e["task"]) for e in out["lints"]] == [("native-first/001", "get")]
    assert main(["check", "--json", str(f)]) == 0
    assert "lints" not in json.loads(capsys.readouterr().out)


def test_check_human_shows_lints_as_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "w.nika.yaml"
    f.write_text(CURL)
    assert main(["check", str(f)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"ok {f}"
    assert any(
        line.startswith(f"warning {f}:4:3 native-first/001 · task `get`") and "nika:fetch" in line
        for line in lines
    )


def test_native_strict_fails_on_lints_and_passes_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "w.nika.yaml"
    f.write_text(CURL)
    assert main(["check", "--native-strict", str(f)]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("native-strict: refused — 0 findings, 0 hints, 1 lint")
    assert main(["check", "--json", "--native-strict", str(f)]) == 1
    strict = json.loads(capsys.readouterr().out)["native_strict"]
    assert strict == {"passed": False, "findings": 0, "hints": 0, "lints": 1}
    f.write_text('nika: w\npermits: {}\ntasks:\n  t:\n    invoke: { tool: "nika:uuid" }\n')
    assert main(["check", "--native-strict", str(f)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("native-strict: clean")


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


def test_top_level_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    # `nika check` builds its own subparser alone; the top level still knows them all.
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"    {name} " in out for name in ("check", "run", "trace"))
    assert main(["trace", "--help"]) == 0
    assert "verify" in capsys.readouterr().out


# Editors and agents call `nika check` per draft: the command must not pay for the run's
# machinery (providers, MCP, HTTP, telemetry, rich, jsonschema, asyncio, threads, hashing)
# nor for argparse's terminal sizing through shutil (which drags in bz2 and lzma).
HEAVY = (
    "anthropic",
    "anyio",
    "asyncio",
    "bm25s",
    "bz2",
    "difflib",
    "hashlib",
    "httpx2",
    "jq",
    "jsonschema",
    "lsprotocol",
    "lzma",
    "mcp",
    "numpy",
    "openai",
    "opentelemetry",
    "pydantic",
    "pygls",
    "ray",
    "rich",
    "shutil",
    "socket",
    "ssl",
    "subprocess",
    "threading",
)
# …nor for nika's own run side.
RUN_SIDE = ("nika.agent", "nika.journal", "nika.providers", "nika.run", "nika.serve",
            "nika.telemetry", "nika.tools", "nika.view")


def _checked_modules(flow: Path, *options: str) -> tuple[int, list[str]]:
    """`nika check [options] flow` in a fresh interpreter: its exit code and every module it
    loaded."""
    import os
    import subprocess
    import sys

    probe = (
        "import contextlib, io, json, sys\n"
        "from nika.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['check', *{list(options)!r}, {str(flow)!r}])\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    # nika's imports alone: under `make test` coverage would start in the probe too, and its
    # own imports (socket, for its data file's name) are not nika's.
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60,
        env=env,
    ).stdout
    code, modules = json.loads(out)
    return code, modules


def test_check_imports_only_what_it_needs(tmp_path: Path) -> None:
    flow = tmp_path / "hello.nika.yaml"
    flow.write_text(HELLO)
    code, modules = _checked_modules(flow)
    assert code == 0
    loaded = {m.split(".")[0] for m in modules}
    assert "yaml" in loaded and "nika" in loaded  # the probe really ran a check
    assert sorted(loaded & set(HEAVY)) == []
    under = tuple(f"{p}." for p in RUN_SIDE)
    assert [m for m in modules if m in RUN_SIDE or m.startswith(under)] == []


# Each layer of the check loads with the first document that uses it: the expression
# language with an island, the type language with a type, the optional blocks and envelope
# declarations with one written, URL parsing and the network floor with a URL or a host, the
# glob engine with a grant, the price and energy tables and the provider catalog with a model,
# the exec-only lint machinery with an `exec:`, pathlib with a child workflow (the guarded
# reader loads with every check: the workflow file itself is read through it), canonical
# JSON with a value rendered or `--json` (the probe loads `json` itself).
LAYERED = (
    "ipaddress",
    "nika.canonical",
    "nika.check._drift",
    "nika.check.lint._command",
    "nika.check.lint.ledger",
    "nika.check.lint.native_first",
    "nika.energy",
    "nika.netfloor",
    "nika.prices",
    "nika.syntax._build_recovery",
    "nika.syntax._cel_ast",
    "nika.syntax._cel_parse",
    "nika.syntax.binding",
    "nika.syntax.declarations",
    "nika.syntax.durations",
    "nika.syntax.expr",
    "nika.syntax.globs",
    "nika.syntax.providers",
    "nika.syntax.task_blocks",
    "nika.syntax.typefit",
    "nika.syntax.types",
    "pathlib",
    "shlex",
    "urllib.parse",
)

RICH = """\
nika: rich
model: openai/gpt-4o-mini
inputs:
  topic: { type: string, default: tides }
permits:
  net: { http: [example.com] }
  exec: [echo]
  tools: ["nika:fetch"]
tasks:
  get:
    invoke: { tool: "nika:fetch", args: { url: "https://example.com/tides" } }
    retry: { max_attempts: 2 }
    timeout: 30s
  shout:
    exec: { command: [echo, loud] }
  child:
    invoke: { workflow: ./child.nika.yaml }
  say:
    with: { page: "${{ tasks.get.output }}" }
    returns: string
    infer: { prompt: "About ${{ inputs.topic }}: ${{ with.page }}", max_tokens: 50 }
outputs:
  said: "${{ tasks.say.output }}"
"""


def test_check_loads_each_layer_with_its_first_use(tmp_path: Path) -> None:
    plain = tmp_path / "hello.nika.yaml"
    plain.write_text(HELLO)
    code, modules = _checked_modules(plain)
    assert code == 0
    assert sorted(set(LAYERED) & set(modules)) == []
    rich = tmp_path / "rich.nika.yaml"
    rich.write_text(RICH)
    (tmp_path / "child.nika.yaml").write_text(HELLO)
    code, modules = _checked_modules(rich, "--json", "--lint")
    assert code == 0  # the whole ladder ran over a valid document
    assert sorted(set(LAYERED) - set(modules)) == []
