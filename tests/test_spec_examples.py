"""Every spec example — the numbered foundation set and the job pack — agrees between `nika check`
and `nika run` (issue 14), through the real CLI. Each one, given its inputs and environment:

- runs to success under `--model mock/echo` (a blocking `nika:prompt` pauses the run, exit 75,
  and `--resume --answer` finishes it);
- or, where the file pins its own model seats (a bench) or its success hangs on what a model
  says (an extraction an assert gates, an agent that must call `nika:done`), runs to success
  against a local server speaking the OpenAI wire, named by `NIKA_OLLAMA_BASE_URL`;
- or is refused by `nika check` with the code `nika run` then gives;
- or needs a remote host no input can redirect (its permit pins the host): the run fails at
  that task with the network code of the builtin — never with a static code check missed.

The examples are copied into a scratch git repository (the files that read "your history"
diff a feature branch against `main`) so their relative reads (`examples/fixtures/…`) and
writes (`out/…`) stay inside the test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest
from tests.providers._servers import Reply, ScriptedServer, chat_completion, scripted_server

from nika.check import check
from nika.cli import main
from nika.providers._wire import wire_name
from nika.run.pause import EXIT_PAUSED

SPEC = Path(__file__).resolve().parents[2] / "shared" / "nika-spec"
EXAMPLES = sorted(p.name for p in (SPEC / "examples").glob("*.nika.yaml"))

WEBHOOKS: Final = {
    var: f"https://hooks.slack.com/services/T0/B0/{var.lower()}"
    for var in ("FOUNDERS_WEBHOOK_URL", "ONCALL_WEBHOOK_URL", "TEAM_WEBHOOK_URL",
                "ALERTS_WEBHOOK_URL")
}
"""The notify secrets the job pack declares; every example leaves its alert disarmed."""


def _served(*replies: dict[str, Any]) -> tuple[Reply, ...]:
    return tuple(Reply(json=body) for body in replies)


def _done(result: Mapping[str, Any]) -> dict[str, Any]:
    return chat_completion(tool_calls=[("c1", wire_name("nika:done"),
                                        json.dumps({"result": result}))])


@dataclass(frozen=True)
class Case:
    """How one example is driven, and what it must end in."""

    vars: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    """`TASK=VALUE` for the resume of a run that paused at a blocking prompt."""
    served: tuple[Reply, ...] = ()
    """Replies of the local OpenAI-wire server, in call order (the run keeps its own model)."""
    files: Mapping[str, str] = field(default_factory=dict)
    refused: str | None = None
    """The code check refuses with, and the run too."""
    remote: tuple[str, str] | None = None
    """(task, code) where the run fails for want of a host no input can redirect."""


CASES: Final[Mapping[str, Case]] = {
    "competitor-radar.nika.yaml": Case(remote=("map", "NIKA-BUILTIN-FETCH-001")),
    "ceo-monday-brief.nika.yaml": Case(answers=("approve=yes",)),
    "incident-war-room.nika.yaml": Case(vars=("settle=1s",), answers=("approve=yes",)),
    "release-notes.nika.yaml": Case(answers=("approve=yes",)),
    "release-radar.nika.yaml": Case(answers=("approve=yes",)),
    "pr-review-fanout.nika.yaml": Case(answers=("approve=yes",)),
    "release-train.nika.yaml": Case(
        vars=("version=1.2.3", "hold_for=1s"), answers=("conductor=yes",),
        files={"VERSION": "1.2.3\n", "CHANGELOG.md": "# Changelog\n\n## [1.2.3]\n- gates\n",
               "schemas/workflow.schema.json": '{"$id": "https://nika.sh/workflow"}\n'}),
    "model-bench.nika.yaml": Case(served=_served(
        *(chat_completion(content=f"Audit first, seat {n}.") for n in range(3)))),
    "contract-guard.nika.yaml": Case(served=_served(
        chat_completion(content=json.dumps({"clauses": [
            {"quote": "Liability is unlimited.", "type": "liability", "risk": "high"}]})),
        chat_completion(content="Risk memo: unlimited liability (high)."))),
    "deep-research-brief.nika.yaml": Case(served=_served(
        chat_completion(content=json.dumps({"queries": ["runtimes", "sandboxes"]})),
        _done({"findings": ["local runtimes keep data home"], "sources": ["arxiv.org/x"]}),
        chat_completion(content="Brief: local-first runtimes keep data home."))),
}


def test_the_walk_sees_the_whole_corpus() -> None:
    assert len(EXAMPLES) == 45  # 18 foundation files (10 has a child) + 27 jobs
    assert set(CASES) <= set(EXAMPLES)


def _git(root: Path, *argv: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *argv], cwd=root, env=env, check=True, capture_output=True)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(SPEC / "examples", tmp_path / "examples")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "base")
    _git(tmp_path, "checkout", "-qb", "feature")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text("fn main() {\n    // TODO: errors\n}\n")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "feat: a change to review")
    monkeypatch.chdir(tmp_path)
    for var, url in WEBHOOKS.items():
        monkeypatch.setenv(var, url)
    return tmp_path


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    with scripted_server() as running:
        monkeypatch.setenv("NIKA_OLLAMA_BASE_URL", f"{running.url}/v1")
        yield running


def _run(argv: list[str], capsys: pytest.CaptureFixture[str],
         report: Path) -> tuple[int, str, dict[str, Any]]:
    code = main(argv)
    err = capsys.readouterr().err
    return code, err, json.loads(report.read_text())


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_runs_or_is_refused_with_the_runs_code(
    name: str, workdir: Path, request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    case = CASES.get(name, Case())
    for rel, text in case.files.items():
        (workdir / rel).parent.mkdir(parents=True, exist_ok=True)
        (workdir / rel).write_text(text)
    flow = workdir / "examples" / name
    verdict = check(flow.read_bytes(), path=str(flow))
    report = workdir / "report.json"
    argv = ["run", str(flow), "--report", str(report)]
    if case.served:
        request.getfixturevalue("server").script(*case.served)
    else:
        argv += ["--model", "mock/echo"]
    for var in case.vars:
        argv += ["--var", var]
    code, err, ran = _run(argv, capsys, report)

    if case.refused is not None:
        assert [e.code for e in verdict.errors] == [case.refused]
        assert code == 1 and [r["code"] for r in ran["refused"]] == [case.refused]
        return
    assert verdict.valid, [(e.code, e.detail) for e in verdict.errors]
    if case.remote is not None:
        task, expected = case.remote
        assert code == 1 and ran["workflow_state"] == "failure"
        failed = {t: r["error"] for t, r in ran["tasks"].items() if r["status"] == "failure"}
        assert list(failed) == [task] and failed[task]["code"] == expected
        assert failed[task]["category"] == "network_error", failed[task]
        return
    if case.answers:
        assert code == EXIT_PAUSED, err
        assert ran["workflow_state"] == "paused" and "error" not in ran
        [journal] = (workdir / ".nika" / "traces").glob("*.ndjson")
        argv += ["--resume", str(journal)]
        for answer in case.answers:
            argv += ["--answer", answer]
        code, err, ran = _run(argv, capsys, report)
    assert code == 0, err
    assert ran["workflow_state"] == "success"
    assert all(t["status"] in ("success", "skipped", "cancelled") for t in ran["tasks"].values())
    if case.served:
        assert len(request.getfixturevalue("server").requests) == len(case.served)


@pytest.mark.parametrize("drill", ["false", "true"])
def test_example_12s_cleanup_reads_its_producer_in_when_through_the_cli(
    drill: str, workdir: Path,
) -> None:
    # issue 35: the unwind task's `when:` reads `tasks.deploy.status` (03 §unwind); the real
    # command checks it valid, and the drill's failure arm and cleanup both run.
    flow = workdir / "examples" / "12-failure-routing.nika.yaml"
    cli = [sys.executable, "-m", "nika.cli"]
    checked = subprocess.run([*cli, "check", "--json", str(flow)], capture_output=True,
                             text=True, timeout=60, check=False)
    assert checked.returncode == 0 and json.loads(checked.stdout)["valid"] is True
    report = workdir / "report.json"
    ran = subprocess.run([*cli, "run", str(flow), "--report", str(report), "--var",
                          f"drill={drill}"], capture_output=True, text=True, timeout=60,
                         check=False)
    tasks = json.loads(report.read_text())["tasks"]
    if drill == "false":
        assert ran.returncode == 0, ran.stderr
        assert tasks["release_lock"]["status"] == "skipped"
        assert (workdir / "out" / "release-note.md").exists()
    else:
        assert ran.returncode == 1 and tasks["deploy"]["status"] == "failure"
        assert tasks["release_lock"]["status"] == "success"
        assert (workdir / "out" / "incident.md").exists()


def test_og_images_lands_its_assets_and_manifest_offline(
    workdir: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    report = workdir / "report.json"
    code, err, ran = _run(["run", str(workdir / "examples" / "og-images.nika.yaml"),
                           "--report", str(report)], capsys, report)
    assert code == 0, err
    images, manifest = ran["outputs"]["paths"], ran["outputs"]["manifest"]
    assert [i["index"] for i in images] == [0, 1]
    for image in images:
        data = (workdir / image["path"]).read_bytes()
        assert image["filename"].startswith("launch-hero-mock-mockimage1-")
        assert len(data) == image["size_bytes"] and data.startswith(b"\x89PNG")
    body = json.loads((workdir / manifest).read_text())
    assert body["manifest_version"] == 1 and body["metadata"]["page_slug"] == "home"


def test_the_media_asset_pack_template_renders_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: ScriptedServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    flow = tmp_path / "pack.nika.yaml"
    shutil.copy(SPEC / "templates" / "media-asset-pack.nika.yaml", flow)
    server.script(*_served(chat_completion(content=json.dumps(
        {"image_prompt": "a calm nebula over a quiet sea"}))))
    report = tmp_path / "report.json"
    code, err, ran = _run(["run", str(flow), "--report", str(report)], capsys, report)
    assert code == 0, err
    assert {t: r["status"] for t, r in ran["tasks"].items()} == dict.fromkeys(
        ("brief", "render", "manifest", "persist"), "success")
    pack = json.loads((tmp_path / "out" / "assets" / "manifest.json").read_text())
    assert pack["brief"] == {"image_prompt": "a calm nebula over a quiet sea"}
    [image] = pack["images"]
    assert (tmp_path / image["path"]).is_file() and image["filename"].startswith("asset-mock-")
