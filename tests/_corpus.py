"""The workflows the projection surfaces are judged over: this repository's examples, the
spec's examples and templates, and the shared conformance sample (each file as written)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]


def _shared() -> Path:
    # A worktree sits two levels under the workplace, the main checkout one: find shared/.
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "nika-spec").is_dir():
            return base / "shared"
    return ROOT.parent / "shared"


def corpus() -> list[Path]:
    """Every workflow file of the four corpora, sorted (negative templates included: an
    unbuildable file still gets a semantic document)."""
    shared = _shared()
    spec = shared / "nika-spec"
    files = [
        *(ROOT / "examples").glob("*.nika.yaml"),
        *(spec / "examples").glob("*.nika.yaml"),
        *(spec / "templates").glob("*.yaml"),
        *(shared / "conformance" / "tests").rglob("input*.yaml"),
    ]
    found = sorted(p for p in files if p.is_file())
    assert len(found) > 100, f"the corpora under {shared} are missing"
    return found


def label(path: Path) -> str:
    """A short test id for a corpus file."""
    parts = path.parts
    return "/".join(parts[-3:])
