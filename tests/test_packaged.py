"""`nika new --from TEMPLATE FILE` (issue 35), through the real CLI: every template the
package carries scaffolds a `<name>.nika.yaml` that checks clean and runs with `mock/echo`;
`--from '?'` lists them; a refusal writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nika.packaged import TEMPLATES, templates

NAMES = sorted(templates())


def _nika(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nika.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)


def test_the_set_is_ours_and_listed(tmp_path: Path) -> None:
    assert NAMES == ["agent", "fanout", "gate", "hello", "mcp"]
    listed = _nika(tmp_path, "new", "--from", "?")
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == NAMES
    assert all(about for about in templates().values())


@pytest.mark.parametrize("name", NAMES)
def test_each_template_scaffolds_checks_clean_and_runs_with_mock_echo(
    name: str, tmp_path: Path,
) -> None:
    flow = f"my-{name}.nika.yaml"
    made = _nika(tmp_path, "new", "--from", name, flow)
    assert made.returncode == 0, made.stderr
    assert f"nika: my-{name}\n" in (tmp_path / flow).read_text()
    checked = json.loads(_nika(tmp_path, "check", "--json", "--lint", flow).stdout)
    assert checked["valid"] is True and checked["errors"] == [] and checked["hints"] == []
    (tmp_path / "README.md").write_text("# Notes\n\nA file for the agent to read.\n")
    if name == "mcp":  # the time server from PyPI, as the template's header names it
        (tmp_path / ".nika").mkdir()
        server = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
        (tmp_path / ".nika" / "mcp.json").write_text(json.dumps({"mcpServers": {"time": server}}))
    report = tmp_path / "report.json"
    argv = ["run", flow, "--model", "mock/echo", "--report", str(report)]
    ran = _nika(tmp_path, *argv)
    if name == "gate":  # headless, the gate pauses; the answer finishes the run
        assert ran.returncode == 75, ran.stderr
        [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
        ran = _nika(tmp_path, *argv, "--resume", str(journal), "--answer", "approve=yes")
    assert ran.returncode == 0, ran.stderr
    tasks = json.loads(report.read_text())["tasks"]
    assert tasks and all(t["status"] == "success" for t in tasks.values()), tasks


def test_a_refusal_writes_nothing(tmp_path: Path) -> None:
    taken = tmp_path / "taken.nika.yaml"
    taken.write_text("mine\n")
    for argv, says in (
        (("helo", "a.nika.yaml"), "did you mean `hello`?"),
        (("hello", "a.yaml"), "`<name>.nika.yaml`"),
        (("hello", "Bad_Name.nika.yaml"), "kebab-case"),
        (("hello", "taken.nika.yaml"), "already exists"),
    ):
        done = _nika(tmp_path, "new", "--from", *argv)
        assert done.returncode == 2 and says in done.stderr, done.stderr
        assert "NIKA-CLI-001" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.nika.yaml"]
    assert taken.read_text() == "mine\n"
    assert _nika(tmp_path, "new", "--from", "hello").returncode == 2


def test_templates_live_in_the_one_data_directory() -> None:
    assert TEMPLATES.parent.name == "data" and TEMPLATES.parent.parent.name == "nika"
    assert {p.name.removesuffix(".nika.yaml") for p in TEMPLATES.glob("*.nika.yaml")} == set(NAMES)
