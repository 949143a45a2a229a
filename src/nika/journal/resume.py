"""`nika run WF --resume JOURNAL`: judge the journal, then fold it into a `ResumePlan`
(ADR-099 · 17 §the fold law).

The order is the trust amendment's (ADR-099 §5): a resume journal is an authority claim —
its recorded successes are served as results — so it is judged before anything is read
from it.

1. **The chain walk** — the same walk as `nika trace verify`, over EVERY journal, whatever
   its first line says. A walk that holds (clean · finding · incomplete, a torn tail
   included: a crash leaves an honest journal, and crash resumption is the point) proceeds,
   and the head it trusted is printed and journaled (`resume_head`). Anything else REFUSES
   with exit 2 (`NIKA-RESUME-001`): a broken chain (edited, inserted, dropped, reordered,
   unreadable mid-journal, over a bound) — a line 1 stripped of its `chain` member included —
   and a journal that carries no chain at all (a `--json` capture), which has nothing to
   verify. The refusal names the finding, `nika trace verify` and the opt-out:
   `--resume-unverified` proceeds loudly and journals `resume_unverified: declared` with the
   finding on the new run's boot manifest, which `nika trace verify` then reads as a
   FINDING, never CLEAN — and a journal resumed from such a run inherits the claim
   (`resume_unverified: inherited`), so no number of resumes launders it. The flag is
   consumed only when the walk objects.
   `--head HEX` pins the head the original run printed (the full 64 hex digits:
   `NIKA-RESUME-006` otherwise): a journal whose last verified line does not hash to it is
   refused with exit 2 (`NIKA-RESUME-005`), `--resume-unverified` or not. The chain is
   unkeyed — whoever can write the file can re-chain an edit — so only the pin, kept apart
   from the file, binds the journal to the run that printed it (docs/journal.md).
2. **The version judgment** — a journal records the `engine_version` that wrote it. Another
   version is refused with exit 3 (`NIKA-RESUME-002`) naming both, unless the operator
   declares the compatibility with `--resume-compat V`, V being the recorded version
   exactly (`unrecorded` for a journal without one). No blanket force exists. The declared
   crossing is journaled on the new boot manifest (`resume_compat`).
3. **The fold** — every `task_completed` frame carrying both hashes and a replayable output
   becomes a task record; every `checkpoint_written` frame an iteration record (the latest
   wins). A child workflow's frames (`call/fetch`, `call[2]/fetch`) fold into the plan of
   its invoking unit (`ResumePlan.children`): a re-run invoking task's child serves its own
   settled tasks under the same two-hash rule. `--from TASK` forces the task and its
   transitive downstream to run live (a forced invoking task's child runs whole).

A journal this engine cannot read (missing, not NDJSON) is refused with exit 2
(`NIKA-RESUME-003`): an engine facing a trace it cannot read says so, never guesses a
partial skip.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.check.graph import Graph
from nika.errors import NikaError
from nika.journal.decoded import ReadSettled, ReadWorkflowStarted, read_as
from nika.journal.replay import Record, ResumePlan
from nika.journal.verify import (
    MAX_LINE,
    UNVERIFIED_CLAIMS,
    frame_fields,
    parse_frame,
    read_journal,
    verify,
)
from nika.journal.writer import ENGINE_VERSION
from nika.syntax.model import TaskId

EXIT_BROKEN: Final = 2
EXIT_VERSION: Final = 3
UNRECORDED: Final = "unrecorded"
HEAD_DIGITS: Final = 64
_FOLDED: Final = (b'"task_completed"', b'"checkpoint_written"')


class ResumeRefusal(Exception):
    """The resume cannot proceed: the coded error and the exit status."""

    def __init__(self, error: NikaError, exit_code: int) -> None:
        super().__init__(error.detail)
        self.error = error
        self.exit_code = exit_code


def _refuse(code: str, detail: str, exit_code: int, **details: Any) -> ResumeRefusal:
    return ResumeRefusal(NikaError(code, detail, details=details or None), exit_code)


def pinned_head(text: str) -> str:
    """`--head HEX` as the lowercase head it pins; raises `ResumeRefusal` (exit 2) unless
    it is a full sha256 head: a short prefix is a weak pin against the very writer it guards
    against (a few hex digits are cheap to grind)."""
    value = text.strip().lower()
    if len(value) == HEAD_DIGITS and all(c in "0123456789abcdef" for c in value):
        return value
    prefix = bool(value) and all(c in "0123456789abcdef" for c in value)
    why = (f"is a {len(value)}-digit prefix; a prefix is not accepted" if prefix
           else "is not a sha256 head")
    raise _refuse(codes.RESUME_006, f"--head {text[:80]!r} {why} — pass the full "
                  f"{HEAD_DIGITS} hex digits `nika run` printed at the end of the run "
                  "(`journal … · head HEX`)", EXIT_BROKEN, head=text[:80])


def head_without_journal() -> ResumeRefusal:
    """The refusal of `--head` passed to a run that resumes nothing (exit 2)."""
    return _refuse(codes.RESUME_006, "--head pins the head of the journal --resume reads; "
                   "pass it with --resume JOURNAL (`nika trace verify JOURNAL --head HEX` "
                   "checks a journal alone)", EXIT_BROKEN)


def load_plan(path: Path, graph: Graph, *, compat: str | None = None,
              unverified: bool = False, from_task: str | None = None,
              head: str | None = None) -> ResumePlan:
    """Judge `path` and fold it (see the module docstring); raises `ResumeRefusal`.
    `head` is `--head` as typed (judged by `pinned_head`), or None."""
    head = pinned_head(head) if head is not None else None
    try:
        data = read_journal(path, what="the --resume journal")
    except NikaError as exc:  # missing, or a FIFO / device / directory, never opened to block
        raise _refuse(codes.RESUME_003, f"{exc.detail} (a --resume journal is the path "
                      "`nika run` printed at the end of the run, .nika/traces/*.ndjson)",
                      EXIT_BROKEN, journal=str(path)) from None
    lines = data.split(b"\n")
    first = parse_frame(lines[0]) if lines and len(lines[0]) <= MAX_LINE else None
    if first is None:
        raise _refuse(codes.RESUME_003, f"{str(path)!r} is not a run journal (its first line "
                      "is not a JSON frame); pass the .ndjson file `nika run` wrote",
                      EXIT_BROKEN, journal=str(path))
    plan = ResumePlan(journal=path.name, head=None)
    plan.manifest["resume_of"] = path.name
    prologue = frame_fields(first)
    _walk(data, path, plan, unverified, head, lines)
    _inherit(prologue, path, plan)
    _judge_version(read_as(ReadWorkflowStarted, prologue).engine_version, compat, plan)
    _fold(lines, plan)
    if from_task is not None:
        plan.forced = _downstream(graph, from_task)
    return plan


def _walk(data: bytes, path: Path, plan: ResumePlan, unverified: bool, head: str | None,
          lines: list[bytes]) -> None:
    verdict = verify(data)
    if verdict.walks:
        if head is not None and verdict.head != head:
            raise _refuse(
                codes.RESUME_005,
                f"the --resume journal {path.name} ends at head {verdict.head}, not at the "
                f"head --head pins ({head}): lines were added, removed or re-chained after "
                "the run printed its head — resume from the journal that run wrote, or "
                f"check the pin with `nika trace verify {path} --head {head}`",
                EXIT_BROKEN, journal=str(path), head=head, found=verdict.head)
        plan.head = verdict.head
        pinned = "pinned by --head" if head is not None else "unpinned: pass --head to bind it"
        if verdict.head is not None:
            plan.manifest["resume_head"] = verdict.head
            plan.manifest["resume_head_pinned"] = head is not None
        plan.notices.append(f"resuming from {path.name} · chain verified · head "
                            f"{verdict.head} ({pinned})")
        if verdict.status == "incomplete":
            plan.notices.append(f"the journal {path.name} is incomplete (the run was killed or "
                                "crashed): resuming from its settled tasks")
        if unverified:
            plan.notices.append("--resume-unverified was not needed: the journal's chain holds "
                                "(nothing is claimed on the manifest)")
        return
    chainless = not any(_chained(line) for line in lines)
    finding = ("no line carries a hash chain (a --json capture, or a journal stripped of its "
               "chain): nothing can be verified") if chainless else verdict.render()
    if head is not None:
        raise _refuse(
            codes.RESUME_005,
            f"--head pins {head}, but the --resume journal {path.name} does not verify — "
            f"{finding}; a pinned head is confirmed only by a chain that walks to it",
            EXIT_BROKEN, journal=str(path), head=head)
    if not unverified:
        raise _refuse(
            codes.RESUME_001,
            f"the --resume journal {path.name} does not verify — {finding}. A resumed run "
            "serves that journal's results as its own, so an unverified journal is refused: "
            f"run `nika trace verify {path}` to see why; if you edited or truncated the "
            "journal yourself and trust it, pass --resume-unverified (the claim is journaled "
            "on the new run's boot manifest)",
            EXIT_BROKEN, journal=str(path), line=verdict.line)
    plan.notices.append(f"--resume-unverified: proceeding on a journal that does not verify "
                        f"({finding}); the claim is journaled on this run's boot manifest")
    plan.manifest["resume_unverified"] = "declared"
    plan.manifest["resume_unverified_finding"] = finding


def _chained(line: bytes) -> bool:
    """Does this line carry a `chain` member (wherever the walk broke)?"""
    if b"chain" not in line or len(line) > MAX_LINE:
        return False
    frame = parse_frame(line)
    return frame is not None and "chain" in frame


def _inherit(prologue: Mapping[str, Any], path: Path, plan: ResumePlan) -> None:
    """A journal whose own run resumed unverified passes the claim on: a second resume
    never turns an unverified ancestry into a clean one."""
    if "resume_unverified" in plan.manifest:
        return
    if not any(key in prologue for key in UNVERIFIED_CLAIMS):
        return
    why = prologue.get("resume_unverified_finding")
    ancestor = prologue.get("resume_of")
    finding = (f"{path.name} was itself resumed from an unverified journal "
               f"({str(ancestor)[:200] if ancestor is not None else 'unrecorded'}: "
               f"{str(why)[:400] if why is not None else 'trusted without verification'})")
    plan.notices.append(f"the journal {finding}; the claim is carried onto this run's boot "
                        "manifest")
    plan.manifest["resume_unverified"] = "inherited"
    plan.manifest["resume_unverified_finding"] = finding


def _judge_version(raw: str | None, compat: str | None, plan: ResumePlan) -> None:
    recorded = raw or UNRECORDED
    if recorded == ENGINE_VERSION:
        if compat is not None:
            plan.notices.append(f"--resume-compat {compat}: not needed, the journal was "
                                f"recorded by this engine ({ENGINE_VERSION})")
        return
    door = f"--resume-compat {recorded}"
    if compat is None:
        raise _refuse(
            codes.RESUME_002,
            f"the journal was recorded under engine {recorded} · this engine is "
            f"{ENGINE_VERSION} — a cross-version resume is judged, never assumed (17 §the "
            f"fold law): re-run without --resume, or declare the compatibility with {door}",
            EXIT_VERSION, recorded=recorded, engine=ENGINE_VERSION)
    if compat != recorded:
        raise _refuse(
            codes.RESUME_002,
            f"--resume-compat {compat} does not name the version the journal records "
            f"({recorded}; this engine is {ENGINE_VERSION}) — the declaration must name the "
            f"recorded version exactly: {door}",
            EXIT_VERSION, recorded=recorded, declared=compat, engine=ENGINE_VERSION)
    plan.notices.append(f"cross-version compatibility declared: the journal was recorded under "
                        f"engine {recorded}, this engine is {ENGINE_VERSION} (attested on the "
                        "run's boot manifest)")
    plan.manifest["resume_compat"] = recorded


def _fold(lines: list[bytes], plan: ResumePlan) -> None:
    for n, line in enumerate(lines, 1):
        if len(line) > MAX_LINE or not any(marker in line for marker in _FOLDED):
            continue
        frame = parse_frame(line)
        if frame is None:
            continue
        kind = frame.get("kind")
        if kind not in ("task_completed", "checkpoint_written"):
            continue
        uuid = frame.get("id", {}).get("uuid") if isinstance(frame.get("id"), dict) else None
        settled = read_as(ReadSettled, frame_fields(frame))
        record = _record(settled, n, uuid if isinstance(uuid, str) else None)
        if record is not None:
            plan.file(record.task, record, iteration=kind == "checkpoint_written")


def _record(f: ReadSettled, line: int, uuid: str | None) -> Record | None:
    task, def_hash, input_hash, held = f.task, f.def_hash, f.input_hash, f.output
    if task is None or def_hash is None or input_hash is None or held is None:
        return None
    if f.replayable is False or held.truncated:
        return None  # a value the journal cannot give back
    try:
        output = json.loads(held.text)
        bindings = json.loads(f.bindings) if f.bindings is not None else {}
    except ValueError:
        return None
    if not isinstance(bindings, dict):
        return None
    return Record(task, def_hash, input_hash, output, bindings, line, uuid,
                  attempts=_count(f.attempts, 1), duration_ms=_count(f.duration_ms, 0),
                  iteration=f.iteration)


def _count(value: float | None, default: int) -> int:
    return int(value) if value is not None and value >= 0 else default


def _downstream(graph: Graph, task: str) -> frozenset[str]:
    """`task` and every task reachable from it (data and control edges alike)."""
    seen: set[str] = set()
    work = [TaskId(task)]
    while work:
        current = work.pop()
        if current in seen:
            continue
        seen.add(current)
        work.extend(graph.consumers(current))
    return frozenset(seen)
