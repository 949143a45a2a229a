"""The run receipt, `receipt_format: 1` (15 §the one receipt · §the verifier is a fortress).

A receipt folds four things into one JSON document — the check `certificate` of the workflow
the run booted, the `trace_verdict` of its journal (the chain walk: chain, events, head,
outcome, verdict), the `assertions` (none: the `assert:` key left the language) and the
`lock_digest` (`unrecorded`: this engine writes no `nika.lock`) — plus `proves`, the
semantic hash of the workflow it attests, and `digest`, sha256 over the `receipt` domain tag
and the canonical JSON of every other field, which binds them.

`build` folds a journal and its workflow; `verify` is the proof: it recomputes the digest,
and, given the journal and the workflow, re-walks the one and re-hashes the other. Reading
(`receipt_schema.explain`) never recomputes anything: a projection is not evidence.

A receipt is untrusted input. `decode` applies the artifact bounds of 15 in the fixed order
— size, nesting depth (scanned before parsing), parse, structure — and refuses with a typed
class (`Oversized` · `TooDeep` · `Malformed` · `ProofFlood` · `IdOverflow`), never repairing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from nika.canonical import canonical_bytes
from nika.errors import NikaError
from nika.runtime.trace import Frame, verify

RECEIPT_FORMAT: Final = 1
DOMAIN: Final = b"nika-py/receipt/1\x00"
MAX_ARTIFACT: Final = 1 << 20
MAX_DEPTH: Final = 32
MAX_PROOF_NODES: Final = 64
MAX_IDENTIFIER: Final = 256
LOCK_UNRECORDED: Final = "unrecorded — the journal does not carry the run's nika.lock digest"
_IDENTIFIERS: Final = frozenset({"task", "assert", "proves", "digest", "head"})
_OUTCOMES: Final = {"workflow_completed": "completed", "workflow_failed": "failed",
                    "workflow_cancelled": "cancelled", "workflow_paused": "paused",
                    "run_sealed": "sealed"}

Refusal = Literal["Oversized", "TooDeep", "Malformed", "ProofFlood", "IdOverflow"]


class ReceiptRefused(Exception):
    """A receipt past one of the artifact bounds: `kind` is the typed class."""

    def __init__(self, kind: Refusal, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


def decode(data: bytes) -> dict[str, Any]:
    """A receipt's bytes as a JSON object, within the 15 bounds (raises `ReceiptRefused`)."""
    if len(data) > MAX_ARTIFACT:
        raise ReceiptRefused("Oversized", f"the receipt is {len(data)} bytes, beyond the "
                             f"artifact bound ({MAX_ARTIFACT} bytes)")
    depth = _depth(data)
    if depth > MAX_DEPTH:
        raise ReceiptRefused("TooDeep", f"the receipt nests {depth} levels, beyond the "
                             f"bound ({MAX_DEPTH})")
    try:
        doc = json.loads(data.decode("utf-8"), object_pairs_hook=_unique)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ReceiptRefused("Malformed", f"not one JSON document ({exc})") from None
    if not isinstance(doc, dict):
        raise ReceiptRefused("Malformed", "the receipt is not a JSON object")
    assertions = doc.get("assertions")
    if isinstance(assertions, list) and len(assertions) > MAX_PROOF_NODES:
        raise ReceiptRefused("ProofFlood", f"{len(assertions)} assertions, beyond the bound "
                             f"({MAX_PROOF_NODES})")
    _identifiers(doc)
    return doc


def _depth(data: bytes) -> int:
    """The deepest bracket nesting, strings skipped (a scan: no recursion, no parse)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:  # two readers would disagree on which one counts
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _identifiers(value: Any) -> None:
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, dict):
            for key, item in current.items():
                long_value = key in _IDENTIFIERS and isinstance(item, str) \
                    and len(item.encode("utf-8")) > MAX_IDENTIFIER
                if len(key.encode("utf-8")) > MAX_IDENTIFIER or long_value:
                    raise ReceiptRefused("IdOverflow", f"an identifier ({key!r}) is longer "
                                         f"than {MAX_IDENTIFIER} bytes")
                stack.append(item)


def digest_of(receipt: Mapping[str, Any]) -> str:
    """The receipt's self-binding digest: every field but `digest`, domain-separated."""
    body = {k: v for k, v in receipt.items() if k != "digest"}
    return hashlib.sha256(DOMAIN + canonical_bytes(body)).hexdigest()


def trace_verdict(data: bytes) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The journal's `trace_verdict` (and its prologue fields, when it has one)."""
    seen: dict[str, Any] = {}

    def visit(frame: Frame) -> None:
        if frame.line == 1 and frame.kind == "workflow_started":
            seen["prologue"] = dict(frame.fields)
        if frame.kind in _OUTCOMES and "outcome" not in seen:
            seen["outcome"] = _OUTCOMES[frame.kind]

    walk = verify(data, visit=visit)
    chain = "intact" if walk.walks else "broken" if walk.status == "forged" else "refused"
    return ({"chain": chain, "events": walk.frames, "head": walk.head,
             "outcome": seen.get("outcome", "incomplete" if walk.walks else "unknown"),
             "sealed": walk.terminal == "run_sealed", "verdict": walk.status},
            seen.get("prologue"))


def build(journal: bytes, certificate: Mapping[str, Any], proves: str) -> dict[str, Any]:
    """The receipt of a run: its journal's verdict, its workflow's certificate."""
    verdict, _ = trace_verdict(journal)
    receipt: dict[str, Any] = {
        "assertions": [], "certificate": dict(certificate), "lock_digest": LOCK_UNRECORDED,
        "proves": proves, "receipt_format": RECEIPT_FORMAT, "trace_verdict": verdict,
    }
    receipt["digest"] = digest_of(receipt)
    return receipt


@dataclass(frozen=True, slots=True)
class Check:
    """One verified claim of a receipt: what, and whether it held."""

    claim: str
    held: bool
    detail: str


def verify_receipt(receipt: Mapping[str, Any], *, journal: bytes | None = None,
                   proves: str | None = None) -> list[Check]:
    """Recompute what the receipt claims: its digest; with the journal, its trace verdict;
    with the workflow's semantic hash, what it proves."""
    recorded = receipt.get("digest")
    actual = digest_of(receipt)
    checks = [Check("digest", recorded == actual,
                    "binds every folded field" if recorded == actual else
                    f"recorded {recorded!r}, recomputed {actual}")]
    if journal is not None:
        walked, _ = trace_verdict(journal)
        claimed = receipt.get("trace_verdict")
        claimed = claimed if isinstance(claimed, Mapping) else {}
        diverged = [k for k in ("chain", "events", "head", "outcome")
                    if claimed.get(k) != walked[k]]
        checks.append(Check("trace_verdict", not diverged,
                            "matches the journal's walk" if not diverged else
                            "diverges from the journal's walk on " + ", ".join(diverged)))
    if proves is not None:
        held = receipt.get("proves") == proves
        checks.append(Check("proves", held, "is this workflow's semantic hash" if held else
                            f"names {receipt.get('proves')!r}, this workflow is {proves}"))
    return checks


def workflow_identity(path: Path) -> tuple[dict[str, Any], str, bytes]:
    """A workflow file's check certificate, semantic hash and bytes (raises `NikaError`
    when the check refuses it: a refused workflow has no certificate to fold)."""
    from nika.check import check_workflow
    from nika.runtime.replay import Replay
    from nika.syntax.loader import read_source

    source = read_source(str(path))  # guarded: a FIFO or device is refused, never read
    checked = check_workflow(source, path=str(path))
    verdict, workflow = checked.verdict, checked.runnable
    if workflow is None:
        first = verdict.errors[0]
        raise NikaError(first.code, f"the workflow {str(path)!r} is refused by the check "
                        f"({first.detail}); a receipt folds the certificate of a valid one")
    semantic = Replay(workflow, path.parent.resolve(), workflow.model).semantic()
    return dict(verdict.sections.get("certificate", {})), semantic, source


def ran(prologue: Mapping[str, Any] | None, semantic: str, source: bytes) -> bool:
    """Did the journal with this prologue run the workflow with this identity?"""
    if prologue is None:
        return False
    lf = hashlib.sha256(source.replace(b"\r\n", b"\n").replace(b"\r", b"\n")).hexdigest()
    return prologue.get("semantic_hash") == semantic or prologue.get("workflow_sha256") == \
        hashlib.sha256(source).hexdigest() or prologue.get("workflow_sha256_lf") == lf
