"""Everything on the `nika run` command line is judged before the first task starts.

A run has side effects; an argument that can only fail at the end (a report path in a missing
directory, an MCP registry that does not parse) must fail at the start instead, with a coded
message and exit 2, while nothing has run. `arguments` judges what needs no workflow, before
the check even reads it (the report target, `--model`, a registry named by `--mcp-config` or
`NIKA_MCP_CONFIG`); the launch then binds `--var` against the declared inputs and reads the
default registry when a task needs MCP, still before the first task. The first refusal is
raised as a `NikaError`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from nika import codes
from nika.errors import NikaError
from nika.guarded_read import special_kind
from nika.syntax.model import AgentBody, InferBody, Workflow
from nika.syntax.providers import MISSING_API_KEY, ProviderInfo, parse_model
from nika.tools.mcp_registry import ENV_VAR, McpRegistry, load_registry

UNUSABLE_ARGUMENT: Final = codes.CLI_001


@dataclass(frozen=True, slots=True)
class Arguments:
    """The parts of the command line that need no workflow to judge."""

    file: Path
    report: Path | None
    model: str | None
    mcp_config: Path | None


def arguments(args: Arguments, environ: Mapping[str, str], project: Path) -> McpRegistry | None:
    """Judge the report target, `--model`, and a registry named by `--mcp-config` or
    `NIKA_MCP_CONFIG`; returns that registry (None when none is named)."""
    if args.report is not None:
        _report_target(args.report, args.file)
    if args.model is not None:
        parse_model(args.model)
    if args.mcp_config is not None or environ.get(ENV_VAR):
        return load_registry(project, explicit=args.mcp_config, environ=environ)
    return None


def credentials(workflow: Workflow, default: str | None, environ: Mapping[str, str],
                secrets: Mapping[str, str]) -> None:
    """Every cloud provider the workflow's tasks will call has its API key (in the run's
    secrets or the environment, as the provider reads it) or an endpoint override, else ONE
    `NIKA-PROVIDER-002` naming them all, before any task starts and spends. A `${{ }}` model
    is known only at run time; it keeps its own refusal at the task. Never part of `check`:
    a verdict must not depend on, nor reveal, which keys the engine holds."""
    wanting: dict[str, tuple[ProviderInfo, list[str]]] = {}
    for task in workflow.tasks.values():
        if not isinstance(task.body, InferBody | AgentBody):
            continue
        model = task.body.model or default
        if model is None or "${{" in model:
            continue
        try:
            info = parse_model(model).info
        except NikaError:  # the check refused it already; nothing to add here
            continue
        if info.local or environ.get(info.base_url_var):
            continue
        if any(secrets.get(var) or environ.get(var) for var in info.key_vars):
            continue
        wanting.setdefault(info.id, (info, []))[1].append(task.id)
    if not wanting:
        return
    listed = "; ".join(
        f"{pid} (task{'s' if len(tasks) > 1 else ''} {', '.join(tasks)}): set "
        f"{' or '.join(info.key_vars)}, or {info.base_url_var} for a keyless server"
        for pid, (info, tasks) in sorted(wanting.items()))
    raise NikaError(
        MISSING_API_KEY,
        f"{len(wanting)} provider{'s' if len(wanting) > 1 else ''} this run would call "
        f"{'have' if len(wanting) > 1 else 'has'} no API key, so nothing was started — "
        f"{listed} (in the engine environment, or through the workflow's `secrets:`)",
        details={"providers": {pid: sorted(tasks) for pid, (_, tasks) in wanting.items()}},
    )


def _report_target(path: Path, workflow: Path) -> None:
    shown = str(path)
    if path.is_dir():
        raise _unusable(f"--report {shown!r} is a directory; name a file in it, e.g. "
                        f"{str(path / 'report.json')!r}", path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise _unusable(f"--report {shown!r}: its directory {str(parent)!r} does not exist; "
                        "create it first or write the report elsewhere", path)
    if path.exists():
        kind = special_kind(path)
        if kind in ("a named pipe (FIFO)", "a socket"):  # opened to write, it would block
            raise _unusable(f"--report {shown!r} is {kind}, which a run's report would wait "
                            "on forever; name a regular file", path)
        if _same_file(path, workflow):
            raise _unusable(f"--report {shown!r} is the workflow file itself; writing the "
                            "report there would destroy it — name another file", path)
        if not os.access(path, os.W_OK):
            raise _unusable(f"--report {shown!r} exists and is not writable; fix its "
                            "permissions or write the report elsewhere", path)
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise _unusable(f"--report {shown!r}: its directory {str(parent)!r} is not writable; "
                        "write the report elsewhere", path)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def _unusable(detail: str, path: Path) -> NikaError:
    return NikaError(UNUSABLE_ARGUMENT, detail, details={"argument": "--report",
                                                          "path": str(path)})
