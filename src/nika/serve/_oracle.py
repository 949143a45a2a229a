"""What the servers answer, as plain functions: a workflow read inside the working directory,
its verdict, its projection, a code's meaning, the workflow schema and the shipped examples.

Each answer is text the CLI would print for the same question (the verdict is `nika check
--json --lint`'s bytes, the projection `nika inspect`'s), or a `NikaError` whose detail
names the fix; the MCP and language servers only wrap them in their protocol.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.check.projection import Projection, inspect_source
from nika.errors import NikaError
from nika.syntax.loader import MAX_DOCUMENT_BYTES

EXAMPLES: Final = "data/templates"
"""The shipped examples are the `nika new` templates (`nika.packaged.TEMPLATES`): one folder of
package data under `nika/`, which the wheel, `nika new` and this server share."""

_FIX_BY_CATEGORY: Final = {
    "parse_error": "make the file valid under the strict YAML profile at the position the "
    "finding names (no anchors, aliases, tags or duplicate keys), then re-run `nika check`",
    "validation_error": "edit the workflow where the finding points: its detail quotes the "
    "offending value and names the change; re-run `nika check` until it is clean",
    "security_error": "declare the authority in `permits:` (`nika check --infer-permits` "
    "prints the block the body needs) or remove the effect; never widen past what the task uses",
    "budget_error": "raise the bound the run hit (`max_turns`, `max_tokens_total`, a budget) "
    "or narrow the task so it finishes inside it",
}
_FIX_AT_RUN: Final = ("the run failed while executing: read the detail for the cause; if the "
                      "code is transient a `retry:` may help, otherwise fix the input or the "
                      "environment it names")


@dataclass(frozen=True, slots=True)
class Source:
    """A workflow's bytes and the name its findings are located by."""

    data: bytes
    name: str | None


def source_of(arguments: dict[str, Any], root: Path) -> Source:
    """The workflow an MCP or LSP request names: `source` (text) or `path` (a file inside
    `root`, the server's working directory)."""
    text, path = arguments.get("source"), arguments.get("path")
    if isinstance(text, str) and path is None:
        data = text.encode("utf-8")
        if len(data) > MAX_DOCUMENT_BYTES:
            raise NikaError(codes.SERVE_003, f"the source is {len(data)} bytes, past the "
                            f"{MAX_DOCUMENT_BYTES}-byte cap of a workflow; send a smaller one")
        return Source(data, None)
    if isinstance(path, str) and text is None:
        return Source(read_inside(path, root), path)
    raise NikaError(codes.SERVE_001, "give exactly one of `path` (a workflow file under the "
                    "working directory) or `source` (the workflow text)")


def read_inside(path: str, root: Path) -> bytes:
    """The bytes of the regular file `path` (relative to `root`, symlinks resolved), refused
    when it resolves outside `root` or past the document cap."""
    from nika._term import printable
    from nika.guarded_read import Unreadable, read_capped

    if "\x00" in path:
        raise NikaError(codes.SERVE_001, "the path holds a NUL byte; name a workflow file")
    base = root.resolve()
    target = Path(os.path.normpath(base / path))
    try:
        real = target.resolve(strict=False)
    except (OSError, RuntimeError):
        real = target
    if real != base and base not in real.parents:
        raise NikaError(codes.SERVE_002, f"path {printable(path)!r} resolves outside the working "
                        f"directory {printable(str(base))!r}; name a file under it, or start "
                        "the server in the directory that holds the workflow")
    data = read_capped(real, MAX_DOCUMENT_BYTES)
    if isinstance(data, Unreadable):
        code = codes.SERVE_003 if data.reason == "too_large" else codes.SERVE_001
        raise NikaError(code, f"workflow {printable(path)!r} {data.why}")
    return data


def check_json(source: Source) -> str:
    """`nika check --json --lint`'s stdout for `source`."""
    from nika._term import json_printable
    from nika.check import check

    verdict = check(source.data, path=source.name, lint=True)
    return json_printable(verdict.to_json()) + "\n"


def projection_of(source: Source) -> Projection:
    """The one projection of `source` (the check runs once)."""
    return inspect_source(source.data, source.name)


def findings_text(projection: Projection, name: str | None) -> str:
    """What `nika inspect` writes to stderr when there is no graph: the findings."""
    from nika.check.render import render_human

    return render_human(projection.checked.verdict, name or "<source>")


def explain(code: str) -> dict[str, Any]:
    """A registered code's meaning, category, transience and the way to fix it."""
    from nika.check._suggest import Suggestions

    wanted = code.strip().upper()
    if wanted and not wanted.startswith("NIKA-"):
        wanted = f"NIKA-{wanted}"
    row = codes.CODES.get(wanted)
    if row is None:
        from nika._term import printable

        near = Suggestions().closest(wanted, codes.CODES)
        hint = f"; did you mean {near}?" if near else ""
        raise NikaError(codes.SERVE_001, f"{printable(code)!r} is no nika error code{hint} "
                        "(codes read like `NIKA-DAG-002`)")
    fix = _FIX_BY_CATEGORY.get(row.category, _FIX_AT_RUN)
    return {"code": wanted, "meaning": row.summary, "category": row.category,
            "transient": row.transient, "fix": fix}


def workflow_schema_text() -> str:
    """The shipped workflow JSON Schema (`nika schema` prints the same bytes)."""
    return files("nika").joinpath("data/workflow.schema.json").read_text("utf-8")


def example_names() -> list[str]:
    """The shipped examples' file names, sorted."""
    folder = files("nika").joinpath(EXAMPLES)
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".nika.yaml"))


def example_text(name: str) -> str:
    """One shipped example's text, by file name (with or without `.nika.yaml`)."""
    wanted = name if name.endswith(".nika.yaml") else f"{name}.nika.yaml"
    names = example_names()
    if wanted not in names:
        raise NikaError(codes.SERVE_001, f"no shipped example is named {name!r}; pick one of "
                        f"{', '.join(names)}")
    return files("nika").joinpath(EXAMPLES).joinpath(wanted).read_text("utf-8")
