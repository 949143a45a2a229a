"""The boot manifest (04 · 17 §the prologue) through the real CLI: each input's ORIGIN (never
its value), the spec pin, the budget; `trace verify` prints the fixed field list with
`unrecorded` for what a journal does not carry; an older journal (input values, no spec pin)
still verifies and resumes, and a resume does not care how a value was given."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import nika
from nika.journal.writer import SPEC_PIN, encode, line_hash
from nika.view.verify_report import MANIFEST_FIELDS

NIKA = [sys.executable, "-m", "nika.cli"]
FLOW = """\
nika: booted
model: mock/echo
inputs:
  typed: { type: string, required: true }
  ambient: { type: string, required: true }
  declared: { type: integer, default: 3 }
  optional: { type: string }
tasks:
  greet:
    infer: { prompt: "hi ${{ inputs.typed }} ${{ inputs.ambient }} ${{ inputs.declared }}" }
"""


# The child imports the nika this test imports, whatever its working directory.
SOURCE = str(Path(nika.__file__).resolve().parents[1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    return {**env, "PYTHONPATH": SOURCE, "BOOT_AMBIENT": "from-env", **extra}


def _run(tmp_path: Path, *args: str, env: Mapping[str, str], tty: bool = False
         ) -> subprocess.CompletedProcess[str]:
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    argv = [*NIKA, "run", "flow.nika.yaml", *args]
    if not tty:
        return subprocess.run(argv, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120, check=False)
    controller, terminal = pty.openpty()  # stdin a real terminal: a human at the launch
    try:
        return subprocess.run(argv, cwd=tmp_path, env=env, stdin=terminal,
                              capture_output=True, text=True, timeout=120, check=False)
    finally:
        os.close(terminal)
        os.close(controller)


def _journals(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / ".nika" / "traces").glob("*.ndjson"))


def _prologue(journal: Path) -> dict[str, Any]:
    first = json.loads(journal.read_text(encoding="utf-8").splitlines()[0])
    assert first["kind"] == "workflow_started"
    return {pair["key"]: pair["value"] for pair in first["fields"]}


def _launch(tmp_path: Path, *, env: Mapping[str, str], tty: bool = False,
            extra: tuple[str, ...] = ()) -> dict[str, Any]:
    done = _run(tmp_path, "--var", "typed=ann", "--var", "ambient=@env:BOOT_AMBIENT", *extra,
                env=env, tty=tty)
    assert done.returncode == 0, done.stderr
    return _prologue(_journals(tmp_path)[-1])


@pytest.mark.parametrize(("tty", "ci", "typed"), [
    (False, None, "ci-context"),     # no terminal on stdin: a pipeline launched us
    (True, "true", "ci-context"),    # a terminal, but CI says a pipeline drives it
    (True, None, "cli-operator"),    # a human typed the command line
    (True, "false", "cli-operator"),
])
def test_each_input_journals_its_origin_never_its_value(
        tmp_path: Path, tty: bool, ci: str | None, typed: str) -> None:
    env = _env(**({"CI": ci} if ci is not None else {}))
    prologue = _launch(tmp_path, env=env, tty=tty)
    # `optional` was bound by no channel: it has no origin, and none is claimed
    assert json.loads(prologue["inputs"]) == {"typed": typed, "ambient": "env",
                                              "declared": "file"}
    assert "ann" not in prologue["inputs"] and "from-env" not in prologue["inputs"]


def test_the_manifest_pins_the_spec_and_the_budget(tmp_path: Path) -> None:
    prologue = _launch(tmp_path, env=_env(), extra=("--max-cost-usd", "0.5"))
    assert prologue["spec_pin"] == SPEC_PIN == "332f523"
    assert json.loads(prologue["budget"]) == {"max_cost_usd": 0.5}  # a JSON number
    assert json.loads(prologue["pricing"])["schema"]
    unbudgeted = _launch(tmp_path, env=_env())
    assert "budget" not in unbudgeted and "seed" not in unbudgeted  # absent, never faked


def _verify_manifest(journal: Path) -> dict[str, str]:
    done = subprocess.run([*NIKA, "trace", "verify", str(journal)], env=_env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("boot manifest"))
    shown = [line.strip().split(": ", 1) for line in lines[start + 1:start + 1
                                                          + len(MANIFEST_FIELDS)]]
    assert [name for name, _ in shown] == list(MANIFEST_FIELDS)  # the fixed list, in order
    return dict((name, value) for name, value in shown)


def test_trace_verify_prints_the_fixed_list_with_unrecorded_facts(tmp_path: Path) -> None:
    _launch(tmp_path, env=_env(), extra=("--max-cost-usd", "0.5"))
    shown = _verify_manifest(_journals(tmp_path)[-1])
    assert {"inputs", "pricing", "budget", "lock_digest", "spec_pin", "seed"} <= set(shown)
    assert json.loads(shown["inputs"]) == {"typed": "ci-context", "ambient": "env",
                                           "declared": "file"}
    assert shown["spec_pin"] == SPEC_PIN
    assert json.loads(shown["budget"]) == {"max_cost_usd": 0.5}
    assert shown["seed"] == "unrecorded" and shown["lock_digest"] == "unrecorded"


def _as_old_engine_wrote_it(journal: Path, values: Mapping[str, Any] | None,
                            engine: str | None = None) -> Path:
    """The journal as an engine before origins wrote it: input VALUES in the prologue's
    `inputs` (None: the origins stay), no `spec_pin`, another `engine_version` when given —
    re-chained, so the walk is clean and only the content differs."""
    frames = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    pairs = [p for p in frames[0]["fields"] if p["key"] != "spec_pin"]
    for pair in pairs:
        if pair["key"] == "inputs" and values is not None:
            pair["value"] = json.dumps(values, separators=(",", ":"), sort_keys=True)
        if pair["key"] == "engine_version" and engine is not None:
            pair["value"] = engine
    frames[0]["fields"] = pairs
    out, chain = [], frames[0]["chain"]
    for frame in frames:
        line = encode({**frame, "chain": chain})
        out.append(line)
        chain = line_hash(line)
    old = journal.with_name("old.ndjson")
    old.write_bytes(b"".join(line + b"\n" for line in out))
    journal.unlink()
    return old


def test_an_older_journal_verifies_reads_its_inputs_unrecorded_and_resumes(
        tmp_path: Path) -> None:
    _launch(tmp_path, env=_env())
    # values that happen to read like origin words: still values, never taken for origins
    old = _as_old_engine_wrote_it(_journals(tmp_path)[-1],
                                  {"typed": "file", "ambient": "env", "declared": 3})
    shown = _verify_manifest(old)
    assert shown["inputs"] == "unrecorded" and shown["spec_pin"] == "unrecorded"
    done = _run(tmp_path, "--var", "typed=ann", "--var", "ambient=from-env", "--resume",
                str(old), env=_env())
    assert done.returncode == 0, done.stderr
    [resumed] = [j for j in _journals(tmp_path) if j != old]
    kinds = [json.loads(line)["kind"] for line in resumed.read_text().splitlines()]
    # `ambient` came through @env: the first time and typed now: the same value, one identity
    assert "task_cache_hit" in kinds
    assert json.loads(_prologue(resumed)["inputs"])["ambient"] == "ci-context"


def test_another_engines_origins_read_as_origins_without_a_spec_pin(tmp_path: Path) -> None:
    _launch(tmp_path, env=_env())
    foreign = _as_old_engine_wrote_it(_journals(tmp_path)[-1], None, engine="other/1.0")
    shown = _verify_manifest(foreign)
    assert json.loads(shown["inputs"])["declared"] == "file"
    assert shown["spec_pin"] == "unrecorded"


def test_a_different_value_is_a_different_identity_on_resume(tmp_path: Path) -> None:
    _launch(tmp_path, env=_env())
    [first] = _journals(tmp_path)
    done = _run(tmp_path, "--var", "typed=bob", "--var", "ambient=@env:BOOT_AMBIENT",
                "--resume", str(first), env=_env())
    assert done.returncode == 0, done.stderr
    [resumed] = [j for j in _journals(tmp_path) if j != first]
    assert "task_cache_hit" not in resumed.read_text()  # the origin is the same, not the value
