"""`nika trace verify`'s reading: the walk's verdict, then what the journal claims about itself.

Three blocks, each a scoped statement that never moves the chain verdict or the exit code:

1. the verdict line (`trace.TraceVerdict.render`) — CLEAN · FINDING · INCOMPLETE · FORGED ·
   REFUSED, with the finding and the torn tail named;
2. the boot manifest (17 §the prologue): one `field: value` line per field of a FIXED list
   (the spec's identity and contract fields, then the inputs' origins, the pricing pin, the
   budget and the lock digest), `unrecorded` for a field the journal does not carry — a
   manifest claims only what exists, and a reader never guesses. An older journal's `inputs`
   held input VALUES, not their origins (04): it reads `unrecorded`, never a value;
3. the cost-replay leg (15 §the semantic hash: the rate table is part of the run's pin):
   `unrecorded` when the boot frame pins no pricing table, `refused` when it pins one this
   engine does not hold (an unknown table never silently re-prices yesterday's run), and
   `replayed` when it pins this engine's table: every `cost_incurred` frame is re-priced
   from its model and token counts and the sum is compared with the journaled
   `total_cost_usd` at the micro-dollar grain.

Every journal-derived string passes `printable` (15 §the verifier: the terminal is escaped).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, Final

from nika._term import printable
from nika.journal.decoded import ReadCostIncurred, ReadModelCalled, ReadWorkflowEnded
from nika.journal.frames import INPUT_ORIGINS, PricedCall
from nika.journal.ledger import fold, reported
from nika.journal.verify import TERMINAL_KINDS, Frame, TraceVerdict, verify
from nika.journal.writer import ENGINE_PREFIX
from nika.prices import table_pin
from nika.view.figures import usd_text

MANIFEST_FIELDS: Final = (
    "workflow", "permits", "permits_json", "workflow_sha256", "workflow_sha256_lf",
    "semantic_hash", "sandbox", "trace_format", "engine_version", "platform", "spec_pin",
    "stamper_kind", "clock", "seed", "inputs", "pricing", "budget", "lock_digest",
)
"""The boot-manifest fields `trace verify` always prints: 17 §the prologue's, in its order,
then the launch's (04 input origins, 15 pricing pin, 13 budget, 15 lock digest)."""
_CLAIMS: Final = ("resume_of", "resume_head", "resume_head_pinned", "resume_compat",
                  "resume_unverified",
                  "resume_unverified_finding", "resume_chainless")


class _Collector:
    """Keeps what the report needs from the chain-verified frames."""

    def __init__(self) -> None:
        self.prologue: Mapping[str, Any] | None = None
        self.calls: list[PricedCall] = []
        self.spent: list[Decimal] = []
        self.total: float | None = None
        self._ended = False

    def __call__(self, frame: Frame) -> None:
        if frame.line == 1 and frame.kind == "workflow_started":
            self.prologue = frame.fields  # the boot manifest: an open set of claims
        elif frame.kind == "cost_incurred":
            record = frame.read()
            if isinstance(record, ReadCostIncurred) and record.cost_usd is not None:
                dollars = reported(record.cost_usd)  # a tool's own bill, when it is one
                self.spent.extend(() if dollars is None else (dollars,))
            elif isinstance(record, ReadCostIncurred | ReadModelCalled):
                self.calls.append((record.model or "", record.input_tokens,
                                   record.output_tokens))
        elif frame.kind in TERMINAL_KINDS and not self._ended:
            self._ended = True
            record = frame.read()
            if isinstance(record, ReadWorkflowEnded):
                self.total = record.total_cost_usd


def report(data: bytes, *, head: str | None = None) -> tuple[TraceVerdict, list[str]]:
    """The verdict and every line `nika trace verify` prints."""
    seen = _Collector()
    verdict = verify(data, head=head, visit=seen)
    lines = [verdict.render()]
    if verdict.findings[1:]:
        lines += [f"  finding: {f}" for f in verdict.findings[1:]]
    if seen.prologue is not None:
        lines.append("boot manifest (17 §the prologue · what the run booted under):")
        lines += [f"  {name}: {_value(_claim(seen.prologue, name))}"
                  for name in MANIFEST_FIELDS]
        lines += [f"  {name}: {_value(seen.prologue[name])}" for name in _CLAIMS
                  if name in seen.prologue]
    if verdict.walks:
        lines.append(cost_replay(seen.prologue, seen.calls, seen.total, seen.spent))
    return verdict, [printable(line) for line in lines]


_ABSENT: Final = object()


def _claim(prologue: Mapping[str, Any], name: str) -> Any:
    value = prologue.get(name, _ABSENT)
    if name == "inputs" and value is not _ABSENT and (_valued(prologue) or not _origins(value)):
        return _ABSENT
    return value


def _valued(prologue: Mapping[str, Any]) -> bool:
    """A journal this engine wrote before origins (no `spec_pin` yet): its `inputs` held input
    VALUES, and a value that merely reads like an origin word must not pass for one."""
    version = prologue.get("engine_version")
    return isinstance(version, str) and version.startswith(ENGINE_PREFIX) \
        and "spec_pin" not in prologue


def _origins(raw: Any) -> bool:
    """Whether `raw` is an origins object (name → one of 04's origins; `{}`: no inputs)."""
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return False
    return isinstance(value, dict) and all(v in INPUT_ORIGINS for v in value.values())


def _value(value: Any) -> str:
    if value is _ABSENT:
        return "unrecorded"
    if isinstance(value, str):
        return value or '""'
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _pin(raw: Any) -> dict[str, str] | None:
    try:
        pin = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    if not isinstance(pin, dict) or not all(isinstance(pin.get(k), str)
                                            for k in ("schema", "as_of", "sha256_16")):
        return None
    return {k: pin[k] for k in ("schema", "as_of", "sha256_16")}


def _render_pin(pin: Mapping[str, str]) -> str:
    return f"{pin['schema']} as of {pin['as_of']} (sha256 {pin['sha256_16']})"


def cost_replay(prologue: Mapping[str, Any] | None, calls: list[PricedCall],
                total: float | None, spent: Sequence[Decimal] = ()) -> str:
    """The cost-replay leg's line (see the module docstring)."""
    if prologue is None or "pricing" not in prologue:
        return ("cost-replay: unrecorded · the boot manifest pins no pricing table (the run "
                "predates the pin) · cost replay not attempted, the trace verdict stands")
    local = table_pin().to_dict()
    pinned = _pin(prologue["pricing"])
    if pinned != local:
        shown = _render_pin(pinned) if pinned else "an unreadable pin"
        return (f"cost-replay: refused · the journal pins {shown}, this engine holds "
                f"{_render_pin(local)}: an unknown rate table never silently re-prices a run")
    spend = fold(calls, spent)
    line = (f"cost-replay: replayed · {len(calls)} model call(s) re-priced at the pinned table "
            f"({_render_pin(local)}): {usd_text(spend.usd)} over {spend.priced} priced call(s), "
            f"{spend.unpriced_count or 0} unpriced")
    if total is not None:
        agrees = math.isfinite(total) and _micros(spend.usd) == _micros(Decimal(str(total)))
        line += (" · agrees with the journaled total" if agrees else
                 f" · DIVERGES from the journaled total {usd_text(total)}")
    elif spend.priced:
        line += " · the journal carries no total to compare"
    return line


def _micros(usd: Decimal) -> int:
    return int((usd * 1_000_000).to_integral_value())
