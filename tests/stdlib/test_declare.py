"""A misspelt builtin arg is one finding that names what was meant (issue 35): not the typo
plus the required arg it stands for, plus a rule about that same arg."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from nika.stdlib import DECLARATIONS


def test_a_typo_of_a_required_arg_is_one_refusal_with_did_you_mean() -> None:
    found = DECLARATIONS["nika:hash"].refusals({"contnet": "hi"}, static=True)
    assert [r.detail for r in found] == [
        "unknown arg `contnet:`; did you mean `content:`? the args are algo, content, "
        "encoding, key, op, public_key, signature (remove or rename it)"]
    optional = DECLARATIONS["nika:write"].refusals(
        {"path": "out/a", "content": "x", "creat_dirs": True}, static=True)
    assert ["did you mean `create_dirs:`?" in r.detail for r in optional] == [True]
    unrelated = DECLARATIONS["nika:hash"].refusals({"zzz": 1}, static=True)
    assert len(unrelated) == 3 and not any("did you mean" in r.detail for r in unrelated)


def test_through_the_cli(tmp_path: Path) -> None:
    (tmp_path / "h.nika.yaml").write_text(
        'nika: h\ntasks:\n  h:\n    invoke: { tool: "nika:hash", args: { contnet: "hi" } }\n')
    done = subprocess.run([sys.executable, "-m", "nika.cli", "check", "--json", "h.nika.yaml"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    [error] = json.loads(done.stdout)["errors"]
    assert error["code"] == "NIKA-BUILTIN-HASH-001"
    assert "did you mean `content:`?" in error["detail"]
