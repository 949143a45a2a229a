"""`nika run WF --resume JOURNAL` (ADR-099 · 17 §the fold law) through the real CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from nika.cli import main
from nika.journal.content import CONTENT_CAP
from nika.journal.frames import TaskEnded
from nika.journal.replay import MAX_REPLAY_TEXT, replayed
from nika.journal.verify import verify
from nika.journal.wire import wire
from nika.journal.writer import ENGINE_VERSION, encode, line_hash
from nika.masking import Masker

COUNTED = """\
nika: resume-demo
model: mock/echo
permits:
  exec: ["sh"]
inputs:
  who: { type: string, default: "world" }
tasks:
  greet:
    exec: { command: ["sh", "-c", "echo greet >> log.txt; echo hello ${{ inputs.who }}"] }
  side:
    exec: { command: ["sh", "-c", "echo side >> log.txt; echo untouched"] }
  shout:
    with: { text: "${{ tasks.greet.output }}" }
    exec: { command: ["sh", "-c", "echo shout >> log.txt; echo ${{ with.text }}!"] }
  summary:
    with: { a: "${{ tasks.shout.output }}", b: "${{ tasks.side.output }}" }
    infer: { prompt: "summarize ${{ with.a }} and ${{ with.b }}" }
outputs:
  said: ${{ tasks.summary.output }}
"""


class Project:
    """A working directory with one workflow; runs `nika run` in it through `main`."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str], text: str = COUNTED) -> None:
        self.root, self.capsys = root, capsys
        monkeypatch.chdir(root)
        self.flow = root / "flow.nika.yaml"
        self.flow.write_text(text, encoding="utf-8")

    def run(self, *args: str) -> tuple[int, str]:
        code = main(["run", "flow.nika.yaml", *args])
        err = self.capsys.readouterr().err
        return code, err

    def journals(self) -> list[Path]:
        return sorted((self.root / ".nika" / "traces").glob("*.ndjson"),
                      key=lambda p: p.stat().st_mtime_ns)

    def latest(self) -> Path:
        return self.journals()[-1]

    def log(self) -> list[str]:
        path = self.root / "log.txt"
        return path.read_text().splitlines() if path.exists() else []


def frames(path: Path, kind: str | None = None) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().splitlines():
        frame = json.loads(line)
        if kind is None or frame["kind"] == kind:
            out.append({"kind": frame["kind"], **{p["key"]: p["value"] for p in frame["fields"]}})
    return out


def hits(path: Path) -> list[str]:
    return sorted(f["task"] for f in frames(path, "task_cache_hit") if "iteration" not in f)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> Project:
    return Project(tmp_path, monkeypatch, capsys)


def test_a_resumed_complete_run_serves_every_task_and_runs_nothing(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = project.root / "calls.log"
    monkeypatch.setenv("NIKA_MOCK_CALL_LOG", str(calls))
    assert project.run()[0] == 0
    first = project.latest()
    assert len(project.log()) == 3 and len(calls.read_text().splitlines()) == 1
    calls.write_text("")
    code, err = project.run("--resume", str(first))
    assert code == 0, err
    second = project.latest()
    assert second != first and len(project.log()) == 3  # no exec re-ran
    assert calls.read_text() == ""  # the infer replayed its recorded output: no tokens
    assert hits(second) == ["greet", "shout", "side", "summary"]
    assert "cache hit" in err
    assert verify(second.read_bytes()).status == "clean"
    # the served outputs are the recorded ones, and downstream saw them
    [end] = frames(second, "workflow_completed")
    [before] = frames(first, "workflow_completed")
    assert json.loads(end["outputs"]) == json.loads(before["outputs"])
    prologue = frames(second)[0]
    assert prologue["resume_of"] == first.name and "resume_compat" not in prologue


def test_an_input_change_reruns_its_consumers_only(project: Project) -> None:
    assert project.run()[0] == 0
    first = project.latest()
    code, _ = project.run("--resume", str(first), "--var", "who=moon")
    assert code == 0
    second = project.latest()
    # greet reads inputs.who; shout and summary read greet's (new) output; side reads nothing
    assert hits(second) == ["side"]
    assert project.log()[3:] == ["greet", "shout"] or sorted(project.log()[3:]) == [
        "greet", "shout"]
    [end] = frames(second, "workflow_completed")
    assert "moon" in json.loads(end["outputs"])["said"]


def test_editing_a_task_reruns_it_and_a_comment_rekeys_nothing(project: Project) -> None:
    assert project.run()[0] == 0
    first = project.latest()
    project.flow.write_text("# a comment\n" + COUNTED.replace("summarize", "sum up"),
                            encoding="utf-8")
    assert project.run("--resume", str(first))[0] == 0
    assert hits(project.latest()) == ["greet", "shout", "side"]


def test_from_forces_a_task_and_its_downstream(project: Project) -> None:
    assert project.run()[0] == 0
    first = project.latest()
    assert project.run("--resume", str(first), "--from", "shout")[0] == 0
    assert hits(project.latest()) == ["greet", "side"]
    assert project.log()[3:] == ["shout"]
    code, err = project.run("--resume", str(first), "--from", "nope")
    assert code == 2 and "NIKA-RESUME-004" in err and "greet" in err
    code, err = project.run("--from", "shout")
    assert code == 2 and "--resume" in err


def _rewrite(path: Path, edit: Any) -> bytes:
    """Apply `edit(frames)` and re-chain every line (a journal another build could write)."""
    parsed = [json.loads(line) for line in path.read_bytes().splitlines()]
    edit(parsed)
    out, chain = [], parsed[0]["chain"]
    for frame in parsed:
        frame["chain"] = chain
        line = encode(frame)
        out.append(line)
        chain = line_hash(line)
    return b"".join(line + b"\n" for line in out)


def _set_version(version: str) -> Any:
    def edit(parsed: list[dict[str, Any]]) -> None:
        for pair in parsed[0]["fields"]:
            if pair["key"] == "engine_version":
                pair["value"] = version
    return edit


def test_another_engine_version_is_judged_never_assumed(project: Project) -> None:
    assert project.run()[0] == 0
    old = project.root / "old.ndjson"
    old.write_bytes(_rewrite(project.latest(), _set_version("nika-py/0.0.9")))
    assert verify(old.read_bytes()).status == "clean"
    code, err = project.run("--resume", str(old))
    assert code == 3 and "nika-py/0.0.9" in err and ENGINE_VERSION in err
    assert "--resume-compat nika-py/0.0.9" in err
    code, err = project.run("--resume", str(old), "--resume-compat", "nika-py/0.0.8")
    assert code == 3 and "exactly" in err  # another token never discharges the judgment
    before = len(project.journals())
    code, err = project.run("--resume", str(old), "--resume-compat", "nika-py/0.0.9")
    assert code == 0 and len(project.journals()) == before + 1
    assert frames(project.latest())[0]["resume_compat"] == "nika-py/0.0.9"
    assert hits(project.latest()) == ["greet", "shout", "side", "summary"]


def test_a_tampered_journal_is_refused_unless_the_operator_claims_it(project: Project) -> None:
    assert project.run()[0] == 0
    journal = project.latest()
    data = journal.read_bytes()
    forged = project.root / "forged.ndjson"
    forged.write_bytes(data.replace(b"hello world", b"hello forge", 1))
    before = len(project.journals())
    code, err = project.run("--resume", str(forged))
    assert code == 2 and "NIKA-RESUME-001" in err and "--resume-unverified" in err
    assert "nika trace verify" in err and len(project.journals()) == before  # nothing ran
    code, err = project.run("--resume", str(forged), "--resume-unverified")
    assert code == 0, err
    prologue = frames(project.latest())[0]
    assert prologue["resume_unverified"] == "declared"
    assert prologue["resume_unverified_finding"].startswith("FORGED at line")
    # a verified journal carries no claim, even when the flag is passed
    assert project.run("--resume", str(journal), "--resume-unverified")[0] == 0
    assert "resume_unverified" not in frames(project.latest())[0]


def test_a_crash_journal_resumes_from_its_settled_tasks(project: Project) -> None:
    assert project.run()[0] == 0
    lines = project.latest().read_bytes().splitlines(keepends=True)
    settled = [n for n, line in enumerate(lines) if b'"kind":"task_completed"' in line]
    cut = project.root / "cut.ndjson"
    # killed right after the second settle, mid-way through writing the next line
    cut.write_bytes(b"".join(lines[:settled[1] + 1]) + lines[settled[1] + 1][:25])
    verdict = verify(cut.read_bytes())
    assert (verdict.status, verdict.torn) == ("incomplete", True)
    code, err = project.run("--resume", str(cut))
    assert code == 0 and "incomplete" in err
    assert len(hits(project.latest())) == 2


def test_an_unreadable_journal_is_refused(project: Project) -> None:
    code, err = project.run("--resume", "missing.ndjson")
    assert code == 2 and "NIKA-RESUME-003" in err
    (project.root / "junk.ndjson").write_text("not a journal\n")
    code, err = project.run("--resume", "junk.ndjson")
    assert code == 2 and "NIKA-RESUME-003" in err


FAN = """\
nika: fan-demo
permits:
  exec: ["sh"]
tasks:
  each:
    for_each: { items: ["a", "b", "c"], max_parallel: 1 }
    exec: { command: ["sh", "-c", "echo ${{ item }} >> log.txt; echo got ${{ item }}"] }
"""


def test_a_fan_out_resumes_per_iteration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    project = Project(tmp_path, monkeypatch, capsys, FAN)
    assert project.run()[0] == 0
    lines = project.latest().read_bytes().splitlines(keepends=True)
    checkpoints = [n for n, line in enumerate(lines) if b'"checkpoint_written"' in line]
    assert len(checkpoints) == 3
    cut = tmp_path / "cut.ndjson"
    cut.write_bytes(b"".join(lines[:checkpoints[1] + 1]))  # killed after two iterations
    assert project.run("--resume", str(cut))[0] == 0
    served = sorted(f["iteration"] for f in frames(project.latest(), "task_cache_hit"))
    assert served == [0, 1] and project.log() == ["a", "b", "c", "c"]
    [done] = frames(project.latest(), "task_completed")
    assert json.loads(done["output"]) == ["got a", "got b", "got c"]


SECRET = """\
nika: secret-resume
model: mock/echo
permits:
  exec: ["sh"]
secrets:
  token: { source: env, key: RESUME_TOKEN, egress: [{ to: infer }, { to: exec }] }
tasks:
  ask:
    infer: { prompt: "use ${{ secrets.token }}" }
  use:
    exec:
      command: ["sh", "-c", "test -n \\"$T\\" && echo used"]
      env: { T: "${{ secrets.token }}" }
"""


def test_secrets_take_part_by_declared_identity_never_by_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    project = Project(tmp_path, monkeypatch, capsys, SECRET)
    monkeypatch.setenv("RESUME_TOKEN", "t0ken-one")
    assert project.run()[0] == 0
    first = project.latest()
    data = first.read_bytes()
    for value in (b"t0ken-one", hashlib.sha256(b"t0ken-one").hexdigest().encode()):
        assert value not in data
    # an output carrying the (masked) secret is journaled masked, never served as a value
    done = {f["task"]: f for f in frames(first, "task_completed")}
    assert done["ask"]["replayable"] is False and "replayable" not in done["use"]
    monkeypatch.setenv("RESUME_TOKEN", "t0ken-two")  # a rotated secret
    assert project.run("--resume", str(first))[0] == 0
    # the stated limit: a rotation does not re-key (force it with --from)
    assert hits(project.latest()) == ["use"]


def test_an_output_too_large_to_replay_is_captured_and_its_line_stays_bounded() -> None:
    # Under the cap as characters, over it as the line spends them: every quote escaped.
    quoted = ['"' * 1000] * ((MAX_REPLAY_TEXT // 2000) + 1)
    for output, bindings in ((quoted, {}), ("x" * MAX_REPLAY_TEXT, {}),
                             ("small", {"all": "b" * MAX_REPLAY_TEXT})):
        replay = replayed(output, bindings, Masker())
        assert replay.replayable is False and replay.bindings is None
        text = json.dumps(output, separators=(",", ":"), ensure_ascii=False)
        assert (replay.output_bytes, replay.output_sha256) == \
            (len(text.encode()), hashlib.sha256(text.encode()).hexdigest())
        line = encode(dict(wire(TaskEnded(task="t", status="success", duration_ms=1,
                                          attempts=1, replay=replay, outcome="{}"))))
        assert len(line) < 1 << 20
    assert isinstance(replay.output, str)  # "small": whole, only the bindings were too large
    big = replayed("y" * (2 * CONTENT_CAP + MAX_REPLAY_TEXT), {}, Masker())
    assert isinstance(big.output, dict)  # its JSON text's head: the opening quote costs two
    assert big.output["truncated"] == '"' + "y" * (CONTENT_CAP - 2)
    assert replayed("fits", {"n": 1}, Masker()).replayable is None  # replayable: no flag
