"""The resume arguments of `nika run`, judged into what the run starts from: the plan
(`--resume JOURNAL`, `--head`, `--from`, `--resume-compat`, `--resume-unverified`) and the
prompt answers (`--answer TASK=VALUE`). A refusal is a `ResumeRefusal` carrying its exit
status; nothing here starts a task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from nika import codes
from nika.check.graph import derive
from nika.errors import NikaError
from nika.journal.replay import ResumePlan
from nika.journal.resume import ResumeRefusal, head_without_journal, load_plan
from nika.run.pause import prompt_answers
from nika.syntax.model import Workflow

if TYPE_CHECKING:
    from nika.run.launch import RunOptions

EXIT_USAGE: Final = 2
"""A resume argument that fits nothing is a usage error (`launch.EXIT_USAGE`)."""


def resume_plan(options: RunOptions, workflow: Workflow) -> ResumePlan | None:
    """The judged, folded resume journal (None without `--resume`)."""
    if options.resume is None:
        if options.resume_head is not None:
            raise head_without_journal()
        if options.from_task is not None:
            raise ResumeRefusal(NikaError(
                codes.RESUME_004, f"--from {options.from_task} re-runs part of a resumed run; "
                "pass it with --resume JOURNAL (a run without --resume runs every task)"),
                EXIT_USAGE)
        return None
    if options.from_task is not None and options.from_task not in workflow.tasks:
        declared = ", ".join(workflow.tasks)
        raise ResumeRefusal(NikaError(
            codes.RESUME_004, f"--from {options.from_task!r} names no task of "
            f"{workflow.name!r} (tasks: {declared}); name the task to re-run from",
            details={"task": options.from_task}), EXIT_USAGE)
    return load_plan(options.resume, derive(workflow), compat=options.resume_compat,
                     unverified=options.resume_unverified, from_task=options.from_task,
                     head=options.resume_head)


def resume_answers(options: RunOptions, workflow: Workflow) -> dict[str, str]:
    """`--answer TASK=VALUE` as a map (a name no prompt has is a usage error: `pause`)."""
    try:
        return prompt_answers(options.answers, workflow, options.file.parent.resolve())
    except NikaError as exc:
        raise ResumeRefusal(exc, EXIT_USAGE) from None
