"""The repository's own examples/ and the README's complete workflows are what a newcomer
runs first (`make demo`, the tutorial): each one checks clean — no error, no hint, no
preference lint — except the audit target, which exists to be refused, for exactly the two
reasons its header names."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from nika.check import check_workflow

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
REFUSED_ON_PURPOSE = "audit.nika.yaml"


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in EXAMPLES.glob("*.nika.yaml") if p.name != REFUSED_ON_PURPOSE),
)
def test_each_example_checks_clean_and_lint_free(name: str) -> None:
    path = EXAMPLES / name
    verdict = check_workflow(path.read_text(encoding="utf-8"), str(path), lint=True).verdict
    assert [e.code for e in verdict.errors] == []
    assert [h.code for h in verdict.hints] == []
    assert [lint.rule for lint in verdict.lints or ()] == []


def test_the_audit_example_is_refused_for_its_two_stated_reasons() -> None:
    path = EXAMPLES / REFUSED_ON_PURPOSE
    verdict = check_workflow(path.read_text(encoding="utf-8"), str(path)).verdict
    assert not verdict.valid
    assert len(verdict.errors) == 2


def _readme_workflows() -> list[str]:
    """The README's ```yaml blocks that are whole workflows (they carry the `nika:` mark);
    the others are fragments of one block (`secrets:`, `permits:`)."""
    readme = (ROOT / "README.md").read_text("utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```", readme, re.S | re.M)
    return [block for block in blocks if re.search(r"^nika: ", block, re.M)]


def test_the_readme_has_its_four_tutorial_workflows() -> None:
    assert len(_readme_workflows()) == 4


@pytest.mark.parametrize("block", _readme_workflows(), ids=lambda b: b.split("\n", 2)[0])
def test_each_readme_workflow_checks_clean_and_lint_free(block: str) -> None:
    verdict = check_workflow(block, "README.md", lint=True).verdict
    assert [e.code for e in verdict.errors] == []
    assert [h.code for h in verdict.hints] == []
    assert [lint.rule for lint in verdict.lints or ()] == []


def _readme_runs() -> list[tuple[str, list[str], str]]:
    """Each tutorial workflow beside the `$ nika run NAME … --output json` line the README
    shows for it and the JSON it prints."""
    text = (ROOT / "README.md").read_text("utf-8")
    sources = {
        m.group(1): m.group(0)
        for m in re.finditer(r"^# (\S+\.nika\.yaml)\n.*?(?=^```)", text, re.S | re.M)
    }
    shown = re.findall(r"^\$ nika run (\S+\.nika\.yaml)( .*--output json)\n(.*)$", text, re.M)
    return [(sources[name], [name, *args.split()], printed) for name, args, printed in shown]


def test_the_readme_shows_three_runs_of_its_tutorial() -> None:
    assert len(_readme_runs()) == 3


@pytest.mark.parametrize("source,argv,printed", _readme_runs(), ids=lambda v: str(v)[:20])
def test_each_readme_run_prints_what_the_readme_shows(
    source: str, argv: list[str], printed: str, tmp_path: Path
) -> None:
    (tmp_path / argv[0]).write_text(source, encoding="utf-8")
    done = subprocess.run(
        [str(Path(sys.executable).parent / "nika"), "run", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == printed
