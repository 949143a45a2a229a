"""`nika run --executor ray` at the command line: usage refusals, and Ray stays unloaded
unless a run asks for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from nika.cli import main

ROOT: Final = Path(__file__).resolve().parents[3]
DEMO: Final = ROOT / "examples" / "demo.nika.yaml"


def test_ray_address_without_the_ray_executor_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", str(DEMO), "--ray-address", "head:6379"]) == 2
    assert "--ray-address needs --executor ray" in capsys.readouterr().err


def test_bad_resource_hints_refuse_the_run_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NIKA_RAY_RESOURCES", '{"agent": {"gpus": 1}}')
    report = tmp_path / "report.json"
    assert main(["run", str(DEMO), "--executor", "ray", "--report", str(report)]) == 2
    assert "NIKA-CLUSTER-003" in capsys.readouterr().err
    assert json.loads(report.read_text())["refused"][0]["code"] == "NIKA-CLUSTER-003"
    assert not (tmp_path / ".nika").exists()  # refused at launch: no journal


def test_import_check_and_a_local_run_never_load_ray(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "import nika\n"
        "from nika.cli import main\n"
        f"assert main(['check', {str(DEMO)!r}]) == 0\n"
        f"assert main(['run', {str(DEMO)!r}]) == 0\n"
        "loaded = sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.'))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
