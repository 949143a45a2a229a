"""`--resume` vouches only for what it verified (issue 28 item 1), through the real CLI: every
journal is walked (no « chainless » shortcut), a chainless one needs `--resume-unverified`
and is never laundered into a CLEAN journal, and `--head` pins the head the run printed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from nika.journal.writer import encode, line_hash

NIKA = [sys.executable, "-m", "nika.cli"]

FLOW = """\
nika: trust-demo
permits:
  exec: ["sh"]
tasks:
  make:
    exec: { command: ["sh", "-c", "echo genuine"] }
  use:
    with: { v: "${{ tasks.make.output }}" }
    exec: { command: ["sh", "-c", "echo used ${{ with.v }} >> log.txt; echo ${{ with.v }}"] }
outputs:
  said: ${{ tasks.use.output }}
"""


class Project:
    """A directory holding one workflow; `nika` runs in it as a subprocess."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")

    def nika(self, *args: str) -> tuple[int, str, str]:
        done = subprocess.run([*NIKA, *args], cwd=self.root, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "NO_COLOR": "1"}, check=False)
        return done.returncode, done.stdout, done.stderr

    def run(self, *args: str) -> tuple[int, str]:
        code, _, err = self.nika("run", "flow.nika.yaml", *args)
        return code, err

    def journals(self) -> list[Path]:
        return sorted((self.root / ".nika" / "traces").glob("*.ndjson"),
                      key=lambda p: p.stat().st_mtime_ns)

    def log(self) -> str:
        path = self.root / "log.txt"
        return path.read_text() if path.exists() else ""


def _prologue(path: Path) -> dict[str, Any]:
    first = json.loads(path.read_bytes().split(b"\n")[0])
    return {p["key"]: p["value"] for p in first["fields"]}


def _frames(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _write(path: Path, frames: list[dict[str, Any]], *, rechain: bool) -> None:
    """Write `frames` as a journal; `rechain` recomputes every link (what anyone who can
    write the file can do: the chain is unkeyed)."""
    out, chain = [], frames[0].get("chain")
    for frame in frames:
        if rechain:
            frame["chain"] = chain
        line = encode(frame)
        out.append(line)
        chain = line_hash(line)
    path.write_bytes(b"".join(line + b"\n" for line in out))


def _forge(frames: list[dict[str, Any]]) -> None:
    """Edit `make`'s recorded output (the value `--resume` would serve)."""
    for frame in frames:
        if frame["kind"] == "task_completed":
            for pair in frame["fields"]:
                if pair["key"] == "output" and "genuine" in pair["value"]:
                    pair["value"] = pair["value"].replace("genuine", "FORGED")


def _first_run(project: Project) -> tuple[Path, str]:
    code, err = project.run()
    assert code == 0, err
    [journal] = project.journals()
    head = re.search(r"· head ([0-9a-f]{64})", err)
    assert head is not None, err
    return journal, head.group(1)


def test_a_forged_journal_stripped_of_its_first_chain_is_refused_never_served(
        tmp_path: Path) -> None:
    project = Project(tmp_path)
    journal, _ = _first_run(project)
    frames = _frames(journal)
    _forge(frames)
    del frames[0]["chain"]  # the old « chainless » tell: line 1 alone carried no chain
    forged = tmp_path / "forged.ndjson"
    _write(forged, frames, rechain=False)
    assert project.nika("trace", "verify", str(forged))[0] == 2
    before = len(project.journals())
    code, err = project.run("--resume", str(forged), "--from", "use")
    assert code == 2, err
    assert "NIKA-RESUME-001" in err and "--resume-unverified" in err
    assert "WITHOUT verification" not in err
    assert len(project.journals()) == before and "FORGED" not in project.log()


def test_a_chainless_journal_needs_the_declaration_and_never_verifies_clean(
        tmp_path: Path) -> None:
    project = Project(tmp_path)
    journal, _ = _first_run(project)
    frames = _frames(journal)
    _forge(frames)
    for frame in frames:
        del frame["chain"]
    bare = tmp_path / "bare.ndjson"
    _write(bare, frames, rechain=False)
    code, err = project.run("--resume", str(bare), "--from", "use")
    assert code == 2 and "NIKA-RESUME-001" in err and "no line carries a hash chain" in err
    assert "FORGED" not in project.log()
    # declared: it proceeds, the claim is journaled, and the new journal is never CLEAN
    code, err = project.run("--resume", str(bare), "--from", "use", "--resume-unverified")
    assert code == 0, err
    declared = project.journals()[-1]
    prologue = _prologue(declared)
    assert prologue["resume_unverified"] == "declared"
    assert "no line carries a hash chain" in prologue["resume_unverified_finding"]
    code, out, _ = project.nika("trace", "verify", str(declared))
    assert code == 0 and out.startswith("FINDING") and "did not verify" in out
    assert "CLEAN" not in out.splitlines()[0]
    # a second resume, from the declared journal (whose own chain walks), inherits the claim
    code, err = project.run("--resume", str(declared))
    assert code == 0, err
    inherited = project.journals()[-1]
    assert _prologue(inherited)["resume_unverified"] == "inherited"
    assert project.nika("trace", "verify", str(inherited))[1].startswith("FINDING")


def test_head_pins_the_journal_the_run_printed(tmp_path: Path) -> None:
    project = Project(tmp_path)
    journal, head = _first_run(project)
    # a forged journal whose chain was recomputed after the edit walks CLEAN ...
    frames = _frames(journal)
    _forge(frames)
    rechained = tmp_path / "rechained.ndjson"
    _write(rechained, frames, rechain=True)
    code, out, _ = project.nika("trace", "verify", str(rechained))
    assert code == 0 and out.startswith("CLEAN")
    # ... and only the pinned head tells it from the run's own
    before = len(project.journals())
    code, err = project.run("--resume", str(rechained), "--from", "use", "--head", head)
    assert code == 2 and "NIKA-RESUME-005" in err and head in err
    assert len(project.journals()) == before and "FORGED" not in project.log()
    code, err = project.run("--resume", str(journal), "--head", head[:12])
    assert code == 2 and "NIKA-RESUME-006" in err and "prefix" in err and "64" in err
    code, err = project.run("--resume", str(journal), "--head", "zz" * 32)
    assert code == 2 and "NIKA-RESUME-006" in err
    code, err = project.run("--head", head)
    assert code == 2 and "NIKA-RESUME-006" in err and "--resume" in err
    assert len(project.journals()) == before
    # the genuine journal under its own head: served, the trusted head printed and journaled
    code, err = project.run("--resume", str(journal), "--from", "use", "--head", head.upper())
    assert code == 0, err
    assert f"head {head} (pinned by --head)" in err
    prologue = _prologue(project.journals()[-1])
    assert prologue["resume_head"] == head and prologue["resume_head_pinned"] is True
    assert "used genuine" in project.log() and "FORGED" not in project.log()
    # without --head the head it trusted is still printed and recorded, marked unpinned
    code, err = project.run("--resume", str(rechained))
    assert code == 0 and "unpinned" in err
    assert _prologue(project.journals()[-1])["resume_head_pinned"] is False


def test_trace_verify_takes_the_head_as_printed_and_never_calls_a_short_one_forged(
    tmp_path: Path,
) -> None:
    project = Project(tmp_path)
    journal, head = _first_run(project)
    code, out, _ = project.nika("trace", "verify", str(journal), "--head", head.upper())
    assert code == 0 and out.startswith("CLEAN")
    code, out, err = project.nika("trace", "verify", str(journal), "--head", head[:8])
    assert code == 2 and out == "" and "the first 12 or more" in err  # a display aid's floor
