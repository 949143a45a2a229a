"""one-obvious-way · a decision is `nika:decide` over a bundle (spec 11 §One obvious way).

An `infer:` whose prompt asks the model to decide makes its closed output a decision with no
contract: no rubric, no receipt, no abstention. The rule reads the prompt and system text
the file writes (outside `${{ }}` islands: a value the run interpolates is data, not the
ask) and hints toward the shape spec 11 teaches: the model extracts cited facts, and
`nika:decide` applies the organisation's bundle to them. The spec gives this rule no number;
its id names it (`one-obvious-way/decide`), so no future numbered rule is taken.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from nika.check.context import CheckContext
from nika.check.lint._finding import Lint, found
from nika.syntax.model import InferBody

RULE: Final = "one-obvious-way/decide"
_ASKS: Final = re.compile(r"\b(decides?|deciding)\b", re.IGNORECASE)
"""The verb, as spec 11 writes the smell (« decide »): the noun is often just a topic (« the
one decision this week needs », in a brief)."""


def infer_decides(ctx: CheckContext) -> Iterator[Lint]:
    """An `infer:` task whose prompt (or system text) says « decide »."""
    for task in ctx.workflow.tasks.values():
        body = task.body
        if not isinstance(body, InferBody):
            continue
        asked = next((m.group(0) for text in (body.prompt, body.system)
                      for m in [_ASKS.search(_written(text))] if m is not None), None)
        if asked is None:
            continue
        yield found(
            ctx, RULE, task,
            f"the prompt of `{task.id}` asks the model to decide (« {asked} »): its output "
            "would be a decision with no contract — no rubric, no receipt, no abstention",
            "have the `infer:` extract closed, cited facts, then apply the rubric with "
            "`invoke: { tool: nika:decide, args: { bundle: …, evidence: … } }` (spec 11: the "
            "model never decides)",
        )


def _written(text: Any) -> str:
    """The text the file writes, islands left out (only a string prompt is read)."""
    if not isinstance(text, str):
        return ""
    return re.sub(r"\$\{\{.*?\}\}", " ", text, flags=re.DOTALL)
