"""Write docs/cli.md, the CLI reference, from the argparse definitions (`nika.cli.build_parser`).

The page cannot drift from the command: `tests/test_cli_reference.py` fails when the committed
page differs from what this script renders, and when an argument has no help text.

    python scripts/cli_reference.py          # rewrite docs/cli.md
    python scripts/cli_reference.py --check  # exit 1 when docs/cli.md is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from nika.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "cli.md"

_HEAD = """\
# CLI reference

Generated from the argparse definitions by `scripts/cli_reference.py` — do not edit by hand:
`python scripts/cli_reference.py` rewrites it, and `tests/test_cli_reference.py` fails when it
is stale or when an argument has no help. Exit codes: 0 ok, 1 findings or a failed run, 2
usage (nothing ran); `nika run` also exits 75 when it pauses at a human gate.
"""


def commands(parser: argparse.ArgumentParser, path: str = "nika"
             ) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """Every (sub)command as `(its full name, its help, its parser)`, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield f"{path} {name}", helps.get(name, ""), sub
                yield from commands(sub, f"{path} {name}")


def arguments(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """The documented arguments of one parser (not `-h`, not a subcommand selector)."""
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        if action.help == argparse.SUPPRESS:
            continue
        yield action


def undocumented(parser: argparse.ArgumentParser) -> list[str]:
    """`command argument` for each argument, anywhere under `parser`, without help text."""
    found = [f"nika {_spelling(a)}" for a in arguments(parser) if not (a.help or "").strip()]
    for name, _, sub in commands(parser):
        found += [f"{name} {_spelling(a)}" for a in arguments(sub) if not (a.help or "").strip()]
    return found


def _spelling(action: argparse.Action) -> str:
    if not action.option_strings:
        return str(action.metavar or action.dest)
    flags = ", ".join(action.option_strings)
    if action.nargs == 0:
        return flags
    if action.choices is not None:
        return f"{flags} {{{','.join(map(str, action.choices))}}}"
    return f"{flags} {action.metavar or action.dest.upper()}"


def _row(action: argparse.Action) -> str:
    text = " ".join((action.help or "").split()).replace("|", "\\|")
    if (action.option_strings and action.nargs != 0 and action.default not in (None, [], False)
            and "default" not in text):
        text += f" (default: `{action.default}`)"
    if action.required and action.option_strings:
        text += " (required)"
    return f"| `{_spelling(action)}` | {text} |"


def render() -> str:
    """The whole page."""
    parser = build_parser()
    out = [_HEAD]
    for name, help_text, sub in commands(parser):
        rows = [_row(a) for a in arguments(sub)]
        if not rows and any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
            out += [f"## `{name}`", "", f"{help_text}: one of the commands below.", ""]
            continue
        out += [f"## `{name}`", "", f"{help_text}.", "", "| argument | what it does |",
                "|---|---|", *rows, ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    page = render()
    if argv[1:] == ["--check"]:
        stale = not PAGE.exists() or PAGE.read_text(encoding="utf-8") != page
        if stale:
            print(f"{PAGE.relative_to(ROOT)} is stale: run python scripts/cli_reference.py",
                  file=sys.stderr)
        return 1 if stale else 0
    PAGE.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
