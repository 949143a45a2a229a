"""docs/editors.md and .pre-commit-hooks.yaml: every configuration block parses in its own
language, and the ones that name nika work — the MCP block starts a server the official
client lists five tools from, the schema modeline heads a valid workflow, the pre-commit entry
fails a commit with a finding and passes a clean one."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, Final

import yaml
from mcp import Client, StdioServerParameters

from nika.check import check

ROOT: Final = Path(__file__).resolve().parents[2]
DOC: Final = ROOT / "docs" / "editors.md"
HOOKS: Final = ROOT / ".pre-commit-hooks.yaml"
SRC: Final = ROOT / "src"
BLOCK: Final = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[str]:
    found = [body for lang, body in BLOCK.findall(DOC.read_text("utf-8")) if lang == language]
    assert found, language
    return found


def shim(tmp_path: Path) -> dict[str, str]:
    """An environment whose `nika` on PATH is this checkout's CLI."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nika = bin_dir / "nika"
    nika.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m nika.cli "$@"\n')
    nika.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(SRC)}


def test_every_block_parses_in_its_language(tmp_path: Path) -> None:
    languages = {lang for lang, _ in BLOCK.findall(DOC.read_text("utf-8"))}
    assert languages == {"sh", "yaml", "json", "lua", "toml"}
    for body in blocks("json"):
        json.loads(body)
    for body in blocks("toml"):
        tomllib.loads(body)
    for body in blocks("yaml"):
        yaml.safe_load(body)
    for i, body in enumerate(blocks("lua")):
        (tmp_path / f"{i}.lua").write_text(body)
        subprocess.run(["luac5.4", "-p", str(tmp_path / f"{i}.lua")], check=True, timeout=30)
    for body in blocks("sh"):
        subprocess.run(["bash", "-n", "-c", body], check=True, timeout=30)


def test_the_modeline_heads_a_valid_workflow_and_vscode_maps_the_schema() -> None:
    [workflow] = [b for b in blocks("yaml") if b.startswith("# yaml-language-server:")]
    assert "$schema=./nika.schema.json" in workflow.splitlines()[0]
    assert check(workflow).valid
    settings = [json.loads(b) for b in blocks("json") if "yaml.schemas" in b]
    assert settings[0]["yaml.schemas"]["./nika.schema.json"] == ["*.nika.yaml", "*.nika.yml"]
    helix = tomllib.loads(blocks("toml")[0])
    assert helix["language-server"]["nika"] == {"command": "nika", "args": ["lsp"]}


async def test_the_mcp_block_starts_the_server(tmp_path: Path) -> None:
    [config] = [json.loads(b) for b in blocks("json") if "mcpServers" in b]
    server: dict[str, Any] = config["mcpServers"]["nika"]
    env = shim(tmp_path)
    params = StdioServerParameters(command=server["command"], args=server["args"],
                                   cwd=str(tmp_path), env=env)
    async with Client(params, read_timeout_seconds=60) as client:
        tools = (await client.list_tools()).tools
    assert len(tools) == 5


def test_the_pre_commit_hook_runs_nika_check_on_each_file(tmp_path: Path) -> None:
    [hook] = yaml.safe_load(HOOKS.read_text("utf-8"))
    [config] = [yaml.safe_load(b) for b in blocks("yaml") if "repos" in b]
    assert config["repos"][0]["hooks"][0]["id"] == hook["id"] == "nika-check"
    pattern = re.compile(hook["files"])
    assert pattern.search("flows/a.nika.yaml") and pattern.search("b.nika.yml")
    assert not pattern.search("docker-compose.yaml")

    good = tmp_path / "good.nika.yaml"
    good.write_text("nika: g\ntasks:\n  a:\n    infer: { model: mock/echo, prompt: hi }\n")
    bad = tmp_path / "bad.nika.yaml"
    bad.write_text("nika: b\ntasks:\n  a:\n    after: { ghost: success }\n"
                   "    infer: { model: mock/echo, prompt: hi }\n")
    env = shim(tmp_path)

    def commit(*files: Path) -> subprocess.CompletedProcess[str]:
        # pre-commit's own call: the entry split, then the matching file names appended
        argv = [*shlex.split(hook["entry"]), *(str(f) for f in files)]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60,
                              check=False)

    assert commit(good).returncode == 0
    refused = commit(good, bad)
    assert refused.returncode == 1 and "NIKA-DAG-002" in refused.stdout
