"""docs/cli.md is generated from the argparse definitions and cannot drift (issue 35): the
committed page is exactly what `scripts/cli_reference.py` renders, and every argument of every
command carries help text, so a flag added without docs fails here."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    if "cli_reference" not in sys.modules:
        spec = importlib.util.spec_from_file_location("cli_reference",
                                                      ROOT / "scripts" / "cli_reference.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["cli_reference"] = module
        spec.loader.exec_module(module)
    return sys.modules["cli_reference"]


def test_the_committed_reference_is_the_rendered_one() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == _script().render(), "docs/cli.md is stale: run python scripts/cli_reference.py"


def test_every_argument_of_every_command_has_help() -> None:
    from nika.cli import build_parser

    assert _script().undocumented(build_parser()) == []


def test_every_command_and_flag_is_on_the_page() -> None:
    from nika.cli import build_parser

    page = _script().render()
    script = _script()
    for name, _, sub in script.commands(build_parser()):
        assert f"## `{name}`" in page
        for action in script.arguments(sub):
            for flag in action.option_strings:
                assert f"`{flag}" in page or f", {flag}" in page, (name, flag)


def test_a_flag_without_help_is_caught() -> None:
    parser = argparse.ArgumentParser(prog="nika")
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="run it")
    run.add_argument("--documented", help="says what it does")
    run.add_argument("--bare")
    run.add_argument("--blank", help="  ")
    assert _script().undocumented(parser) == ["nika run --bare BARE", "nika run --blank BLANK"]
