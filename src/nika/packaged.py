"""What the installed distribution carries: its name on the package index and its data.

The distribution is `nika-engine` (`nika` on the index is an unrelated project); the import
name and the command stay `nika`. Package data lives in ONE directory, `nika/data/` (the price
and energy tables, the `nika new` templates, which the MCP server's `nika_examples` serves too):
the wheel carries it as it stands in the source.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from nika import codes
from nika.errors import NikaError

DISTRIBUTION: Final = "nika-engine"
"""The name to install: `pip install 'nika-engine[ray]'`, never `nika`."""

DATA: Final = Path(__file__).resolve().parent / "data"
"""The package data directory, inside the installed package."""


def extra(name: str) -> str:
    """How to install the optional extra `name`, e.g. `pip install 'nika-engine[ray]'`."""
    return f"pip install '{DISTRIBUTION}[{name}]'"


TEMPLATES: Final = DATA / "templates"
"""`nika new --from NAME FILE`'s skeletons: each checks clean and runs with `mock/echo`."""

_SUFFIX: Final = ".nika.yaml"


def templates() -> dict[str, str]:
    """Each template's name and its one-line summary (its first comment line), by name."""
    out: dict[str, str] = {}
    for path in sorted(TEMPLATES.glob(f"*{_SUFFIX}")):
        first = path.read_text(encoding="utf-8").partition("\n")[0]
        out[path.name.removesuffix(_SUFFIX)] = first.removeprefix("# ").partition(" · ")[2]
    return out


def scaffold(name: str, dest: Path) -> str:
    """Write template `name` to `dest` with `nika:` set to the file's own name; returns that
    name. Refused (`NIKA-CLI-001`, nothing written): an unknown template, a destination
    that is not `<name>.nika.yaml` (spec 01's file naming) or that already exists."""
    known = templates()
    if name not in known:
        import difflib

        close = difflib.get_close_matches(name, sorted(known), n=1)
        meant = f"did you mean `{close[0]}`? " if close else ""
        raise NikaError(codes.CLI_001, f"no template `{name}`; {meant}the templates are "
                        f"{', '.join(sorted(known))} (`nika new --from '?'` describes each)")
    stem = dest.name.removesuffix(_SUFFIX)
    if not dest.name.endswith(_SUFFIX) or not _NAME.fullmatch(stem):
        raise NikaError(codes.CLI_001, f"{str(dest)!r} is not a workflow file name: write "
                        f"`<name>{_SUFFIX}` with a kebab-case name, e.g. `my-{name}{_SUFFIX}`")
    text = (TEMPLATES / f"{name}{_SUFFIX}").read_text(encoding="utf-8")
    text = re.sub(rf"^nika: {re.escape(name)}$", f"nika: {stem}", text, count=1, flags=re.M)
    try:
        with dest.open("x", encoding="utf-8") as out:  # never over an existing file
            out.write(text)
    except FileExistsError:
        raise NikaError(codes.CLI_001, f"{str(dest)!r} already exists; nothing was written — "
                        "choose another name or remove it first") from None
    except OSError as exc:
        raise NikaError(codes.CLI_001, f"cannot write {str(dest)!r}: "
                        f"{exc.strerror or exc}") from None
    return stem


_NAME: Final = re.compile(r"[a-z0-9][a-z0-9-]*")
"""A workflow's kebab-case name (the `nika:` line of a scaffolded file)."""
