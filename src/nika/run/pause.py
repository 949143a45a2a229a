"""The durable human gate (ADR-099 rider): a prompt nobody can answer pauses the run.

A non-interactive `nika run` (no terminal) that reaches a blocking `nika:prompt` without a
usable `default:` does not fail `NIKA-BUILTIN-PROMPT-001` and does not hang: the invoke
raises `PauseRequested`, the scheduler parks the task and everything downstream of it, lets
the rest of the run settle, and ends with a `workflow_paused` frame carrying the prompt's
(masked) payload — run state `paused`, exit status `EXIT_PAUSED`. `nika run --resume JOURNAL`
re-arms it: settled work is served from the journal and the prompt asks again, binds the
answer given with `--answer TASK=VALUE`, or pauses again (a paused journal can be resumed
any number of times). An embedding that builds `RunServices` itself keeps the stdlib
contract (`pausable=False`: the prompt fails `NIKA-BUILTIN-PROMPT-001`).

A prompt inside a child workflow (`invoke: { workflow: … }`) pauses the whole run the same
way: the child settles what does not depend on it and ends `paused`, its invoking task parks
in the parent (with its downstream), and the prompt is named as every frame of the child
names its tasks — by the invoking unit's path: `release/approve`, `release[2]/approve` for
iteration 2 of a `for_each`, `release/inner/approve` a level deeper (`nested.py`). That name
is the `workflow_paused` frame's `task_id` and `paused` entry, and the TASK of `--answer`.
On resume the child's settled tasks are served from the journal like the parent's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.check.composition import read_child
from nika.errors import NikaError
from nika.run.nested import MAX_DEPTH
from nika.syntax.model import InvokeBody, Workflow

EXIT_PAUSED: Final = 75
"""`nika run`'s exit status for a paused run: sysexits' EX_TEMPFAIL ("temporary failure,
retry later"). Not 0, so `nika run flow.yaml && deploy` never walks past an unanswered
approval gate; not 1, because nothing failed — the run waits for `--resume --answer`."""

_ITERATION: Final = "[N]"


class PauseRequested(Exception):
    """Raised where prompts need a human in a pausable run; `prompts` maps each waiting
    prompt's name (see the module doc) to what the `workflow_paused` frame journals
    (task_id · mode · message · choices)."""

    def __init__(self, prompts: Mapping[str, Mapping[str, Any]]) -> None:
        super().__init__(f"paused at {', '.join(map(repr, sorted(prompts)))}: "
                         "a prompt awaits an answer")
        self.prompts = {name: dict(payload) for name, payload in prompts.items()}

    @classmethod
    def joined(cls, pauses: Iterable[PauseRequested]) -> PauseRequested:
        """One pause for several (the iterations of a fan-out)."""
        return cls({name: p for pause in pauses for name, p in pause.prompts.items()})

    def within(self, unit: str) -> PauseRequested:
        """This child's pause as its parent names it: each prompt under `unit` (the invoking
        task, or `task[i]` for an iteration)."""
        return PauseRequested({f"{unit}/{name}": {**p, "task_id": f"{unit}/{name}"}
                               for name, p in self.prompts.items()})


def prompt_payload(task: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """The journaled face of a pending prompt."""
    payload: dict[str, Any] = {"task_id": task, "mode": args.get("mode", "confirm"),
                               "message": args.get("message")}
    if "choices" in args:
        payload["choices"] = list(args["choices"])
    return payload


def child_answers(answers: Mapping[str, str], unit: str) -> dict[str, str]:
    """The answers meant for the child invoked by `unit`, named as the child names them."""
    prefix = f"{unit}/"
    return {name[len(prefix):]: value for name, value in answers.items()
            if name.startswith(prefix)}


def prompt_names(workflow: Workflow, workflow_dir: Path, depth: int = 0) -> list[str]:
    """Every name `--answer` may give, sorted: the workflow's prompt tasks and, through its
    local children, theirs — `[N]` standing for an iteration index of a `for_each`."""
    names: list[str] = []
    for task_id, task in workflow.tasks.items():
        body = task.body
        if task.tool == "nika:prompt":
            names.append(task_id)
        elif isinstance(body, InvokeBody) and body.workflow and depth < MAX_DEPTH:
            child = read_child(workflow_dir, body.workflow)
            if child is not None:
                unit = f"{task_id}{_ITERATION}" if task.for_each is not None else task_id
                names += [f"{unit}/{name}"
                          for name in prompt_names(child[1], child[0].parent, depth + 1)]
    return sorted(names)


def prompt_answers(raw: Sequence[str], workflow: Workflow,
                   workflow_dir: Path) -> dict[str, str]:
    """`TASK=VALUE` arguments as a map; TASK must name a prompt (`prompt_names`), `[N]` given
    as an iteration index. A misfit is `NIKA-RESUME-004` listing the names it could give."""
    if not raw:
        return {}
    names = prompt_names(workflow, workflow_dir)
    fits = [re.compile(re.escape(n).replace(re.escape(_ITERATION), r"\[(?:0|[1-9][0-9]*)\]"))
            for n in names]
    out: dict[str, str] = {}
    for text in raw:
        task, sep, value = text.partition("=")
        if not sep or not any(fit.fullmatch(task) for fit in fits):
            raise NikaError(
                codes.RESUME_004, f"--answer {text!r} must be TASK=VALUE, TASK a prompt of "
                f"the run: a task that invokes nika:prompt, or one in a child workflow named "
                f"by its invoking task (in this workflow: {', '.join(names) or 'none'}; "
                "[N]: an iteration index)", details={"answer": text})
        out[task] = value
    return out
