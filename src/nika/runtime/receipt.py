"""The run receipt, `receipt_format: 1` (15 §the one receipt · §the verifier is a fortress).

A receipt folds four things into one JSON document — the check `certificate` of the workflow
the run booted, the `trace_verdict` of its journal (the chain walk: chain, events, head,
outcome, verdict), the `assertions` (none: the `assert:` key left the language) and the
`lock_digest` (the `nika.lock` digest the boot manifest records, else `unrecorded`) — plus
`proves`, the semantic hash of the workflow it attests, and `digest`, blake3 over the
`receipt` domain tag and the RFC 8785 canonical JSON of every other field, which binds them.

`build` folds a journal and its workflow; `verify` is the proof: it recomputes the digest,
and, given the journal and the workflow, re-walks the one and re-hashes the other. Reading
(`receipt_schema.explain`) never recomputes anything: a projection is not evidence.

A receipt is untrusted input. `decode` is `nika.journal.untrusted` (the artifact bounds of
15 in the fixed order, the reference decoder's verdict on every document: `Oversized` ·
`TooDeep` · `Malformed` · `ProofFlood` · `IdOverflow`), then this layer refuses what decodes
but is no receipt (`NotAReceipt`: not an object, a key twice, a number or string JCS cannot
encode). `proves` and `digest` are spelled `blake3:<domain>:1:<hex>`
(`nika.journal.semantic`); a receipt from before that spelling (bare sha256 hex) is refused
as `OlderFormat` by `verify_receipt`, never judged forged.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from nika.errors import NikaError
from nika.journal.semantic import domain_hash, parse_spelling
from nika.journal.untrusted import DecodeRefused, RefusalClass, decode_document
from nika.runtime.trace import Frame, verify

RECEIPT_FORMAT: Final = 1
MAX_ARTIFACT: Final = 1 << 20
LOCK_UNRECORDED: Final = "unrecorded — the journal does not carry the run's nika.lock digest"
_SAFE_INT: Final = (1 << 53) - 1
_OLDER: Final = (
    "this receipt is of an older format: its digest is a bare 64-hex value (an earlier nika's "
    "sha256, or another engine's), where this engine spells a digest "
    "blake3:<domain>:<version>:<hex>; it is neither verified nor judged forged — rebuild it "
    "with `nika trace receipt build JOURNAL --workflow FILE`")
_OUTCOMES: Final = {"workflow_completed": "completed", "workflow_failed": "failed",
                    "workflow_cancelled": "cancelled", "workflow_paused": "paused",
                    "run_sealed": "sealed"}

Refusal = RefusalClass | Literal["NotAReceipt", "OlderFormat"]


class ReceiptRefused(Exception):
    """A receipt refused before it is judged: `kind` is the typed class (a decode bound's,
    `NotAReceipt` for a document that decodes but is none, `OlderFormat`)."""

    def __init__(self, kind: Refusal, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


def decode(data: bytes) -> dict[str, Any]:
    """A receipt's bytes as a JSON object: the artifact bounds of 15, then a receipt's shape
    (raises `ReceiptRefused`)."""
    try:
        doc, duplicates = decode_document(data)
    except DecodeRefused as refused:
        raise ReceiptRefused(refused.cls, refused.detail) from None
    if not isinstance(doc, dict):
        raise ReceiptRefused("NotAReceipt", f"the document is a JSON {type(doc).__name__}, "
                             "not an object: a receipt is one JSON object")
    if duplicates:
        raise ReceiptRefused("NotAReceipt", f"the key {duplicates[0]!r} appears twice in one "
                             "object: two readers would disagree on which one counts")
    problem = _unencodable(doc)
    if problem is not None:
        raise ReceiptRefused("NotAReceipt", f"{problem}, which no receipt carries (its "
                             "digest is over RFC 8785 canonical JSON)")
    return doc


def _unencodable(value: Any) -> str | None:
    """What in `value` RFC 8785 cannot encode exactly, or None."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return f"a non-finite number ({node})"
        if isinstance(node, int) and not isinstance(node, bool) and abs(node) > _SAFE_INT:
            return "an integer beyond ±2^53"
        texts = [node] if isinstance(node, str) else list(node) if isinstance(node, dict) \
            else []
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return "a lone surrogate in a string"
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def digest_of(receipt: Mapping[str, Any]) -> str:
    """The receipt's self-binding digest: every field but `digest`, in the `receipt` domain."""
    return domain_hash("receipt", {k: v for k, v in receipt.items() if k != "digest"})


def older_format(receipt: Mapping[str, Any]) -> str | None:
    """Why this engine cannot judge `receipt` (an older or unknown digest spelling), or None."""
    recorded = receipt.get("digest")
    spelled = parse_spelling(recorded)
    if spelled is None and isinstance(recorded, str) and len(recorded) == 64 \
            and all(c in "0123456789abcdef" for c in recorded):
        return _OLDER
    if spelled is not None and not (spelled.current and spelled.domain == "receipt"):
        return (f"this receipt's digest is spelled {spelled.algorithm}:{spelled.domain}:"
                f"{spelled.version}, a format this engine does not verify (it writes "
                "blake3:receipt:1); it is neither verified nor judged forged")
    return None


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
    verdict, prologue = trace_verdict(journal)
    lock = (prologue or {}).get("lock_digest")  # the boot manifest's, when a lock was present
    receipt: dict[str, Any] = {
        "assertions": [], "certificate": dict(certificate),
        "lock_digest": lock if isinstance(lock, str) and lock else LOCK_UNRECORDED,
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
    with the workflow's semantic hash, what it proves. A receipt of an older format is
    `ReceiptRefused("OlderFormat")`: it is never judged forged."""
    older = older_format(receipt)
    if older is not None:
        raise ReceiptRefused("OlderFormat", older)
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
    from nika.journal.semantic import semantic_hash

    source = path.read_bytes()
    checked = check_workflow(source, path=str(path))
    verdict, workflow = checked.verdict, checked.runnable
    if workflow is None:
        first = verdict.errors[0]
        raise NikaError(first.code, f"the workflow {str(path)!r} is refused by the check "
                        f"({first.detail}); a receipt folds the certificate of a valid one")
    semantic = semantic_hash(workflow, path.parent.resolve(), source=path)
    return dict(verdict.sections.get("certificate", {})), semantic, source


def ran(prologue: Mapping[str, Any] | None, semantic: str, source: bytes) -> bool:
    """Did the journal with this prologue run the workflow with this identity?"""
    if prologue is None:
        return False
    lf = hashlib.sha256(source.replace(b"\r\n", b"\n").replace(b"\r", b"\n")).hexdigest()
    return prologue.get("semantic_hash") == semantic or prologue.get("workflow_sha256") == \
        hashlib.sha256(source).hexdigest() or prologue.get("workflow_sha256_lf") == lf
