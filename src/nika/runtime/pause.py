"""The durable human gate (ADR-099 rider): a prompt nobody can answer pauses the run.

A non-interactive `nika run` (no terminal) that reaches a blocking `nika:prompt` without a
usable `default:` does not fail `NIKA-BUILTIN-PROMPT-001` and does not hang: the invoke
raises `PauseRequested`, the scheduler parks the task and everything downstream of it, lets
the rest of the run settle, and ends with a `workflow_paused` frame carrying the prompt's
(masked) payload — run state `paused`, exit status `EXIT_PAUSED`. `nika run --resume JOURNAL`
re-arms it: settled work is served from the journal and the prompt asks again, binds the
answer given with `--answer TASK=VALUE`, or pauses again (a paused journal can be resumed
any number of times). An embedding that builds `RunServices` itself keeps the stdlib
contract (`pausable=False`: the prompt fails `NIKA-BUILTIN-PROMPT-001`), and so does a
prompt inside a child workflow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

EXIT_PAUSED: Final = 75
"""`nika run`'s exit status for a paused run: sysexits' EX_TEMPFAIL ("temporary failure,
retry later"). Not 0, so `nika run flow.yaml && deploy` never walks past an unanswered
approval gate; not 1, because nothing failed — the run waits for `--resume --answer`."""


class PauseRequested(Exception):
    """Raised by a prompt that needs a human in a pausable run; `payload` is what the
    `workflow_paused` frame journals (task · mode · message · choices)."""

    def __init__(self, payload: Mapping[str, Any]) -> None:
        super().__init__(f"paused at {payload.get('task_id')!r}: a prompt awaits an answer")
        self.payload = dict(payload)


def prompt_payload(task: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """The journaled face of a pending prompt."""
    payload: dict[str, Any] = {"task_id": task, "mode": args.get("mode", "confirm"),
                               "message": args.get("message")}
    if "choices" in args:
        payload["choices"] = list(args["choices"])
    return payload
