"""The run receipt, `receipt_format: 1` (15 §the one receipt · §the verifier is a fortress).

A receipt folds four things into one JSON document — the check `certificate` of the workflow
the run booted, the `trace_verdict` of its journal (the chain walk: chain, events, head,
outcome, verdict), the `assertions` (none: the `assert:` key left the language) and the
`lock_digest` (the `nika.lock` digest the boot manifest records, else `unrecorded`) — plus
`proves`, the semantic hash of the workflow it attests (`journal.semantic`), and `digest`,
blake3 over the `receipt` domain tag and the RFC 8785 canonical JSON of every other field,
which binds them. Both are spelled `blake3:<domain>:<version>:<hex>`, so a receipt from
before that spelling (a bare sha256 hex) is told apart: `verify_receipt` refuses it as
`OlderFormat`, never judging it forged.

`build` folds a journal and its workflow; `verify_receipt` is the proof: it re-derives
every claim the receipt makes — the digest over the other fields; each `trace_verdict`
member (verdict, chain, events, head, outcome, sealing) from the journal's walk; `proves`
and the `certificate` from the workflow (its semantic hash, its check); that the journal ran
that workflow and the `lock_digest` it booted with (its verified boot manifest) — and
reports a claim it was not given the evidence for as `unchecked`, never as holding. The
digest is unkeyed: anyone can recompute it after an edit, so a receipt given alone proves
nothing but its own consistency. Reading (`receipt_schema.explain`) never recomputes
anything: a projection is not evidence.

A receipt is untrusted input. `decode` runs the untrusted-JSON decode step
(`journal.untrusted`: the artifact bounds of 15 in their fixed order — size, nesting depth
scanned before parsing, parse, structure — with their typed classes `Oversized` · `TooDeep`
· `Malformed` · `ProofFlood` · `IdOverflow`), then refuses as `Malformed` what that step
admits but no receipt is: another top-level value, a duplicate key, a non-finite number
(`NaN`, `1e999`), an integer beyond ±2^53 (its digest is over RFC 8785 JSON, which cannot
spell one), a lone surrogate, a missing or mistyped field, a `receipt_format` other than 1.
Nothing is repaired.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from nika.canonical import canonical_json, plain
from nika.errors import NikaError
from nika.journal.semantic import domain_hash, parse_spelling
from nika.journal.untrusted import MAX_ARTIFACT_BYTES, Decoded, DecodeRefused, decode_untrusted
from nika.journal.verify import Frame, verify

RECEIPT_FORMAT: Final = 1
MAX_ARTIFACT: Final = MAX_ARTIFACT_BYTES
LOCK_UNRECORDED: Final = "unrecorded — the journal does not carry the run's nika.lock digest"
_OUTCOMES: Final = {"workflow_completed": "completed", "workflow_failed": "failed",
                    "workflow_cancelled": "cancelled", "workflow_paused": "paused",
                    "run_sealed": "sealed"}
_SAFE_INT: Final = (1 << 53) - 1
_OLDER: Final = (
    "this receipt is of an older format: its digest is a bare 64-hex value (an earlier nika's "
    "sha256, or another engine's), where this engine spells a digest "
    "blake3:<domain>:<version>:<hex>; it is neither verified nor judged forged — rebuild it "
    "with `nika trace receipt build JOURNAL --workflow FILE`")
_FIELDS: Final[dict[str, tuple[type, str]]] = {
    "receipt_format": (int, "number"), "proves": (str, "string"),
    "certificate": (dict, "object"), "trace_verdict": (dict, "object"),
    "assertions": (list, "array"), "lock_digest": (str, "string"), "digest": (str, "string"),
}
"""Every field of a `receipt_format: 1` receipt, with the JSON type it must hold."""
_WALKED: Final[dict[str, tuple[type, ...]]] = {
    "chain": (str,), "events": (int,), "head": (str, type(None)), "outcome": (str,),
    "sealed": (bool,), "verdict": (str,),
}
"""The `trace_verdict` members the walk re-derives, with the types they may hold."""

Refusal = Literal["Oversized", "TooDeep", "Malformed", "ProofFlood", "IdOverflow",
                  "OlderFormat"]
Status = Literal["holds", "BROKEN", "unchecked"]


class ReceiptRefused(Exception):
    """A receipt refused before it is read: past a decode bound, not a receipt at all
    (`Malformed`), or of a format this engine does not judge (`OlderFormat`). `kind` is the
    typed class."""

    def __init__(self, kind: Refusal, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


def decode(data: bytes) -> dict[str, Any]:
    """A receipt's bytes as a `receipt_format: 1` document: the untrusted decode step's
    bounds (`journal.untrusted`), then the receipt's own shape (raises `ReceiptRefused`)."""
    try:
        decoded = decode_untrusted(data)
    except DecodeRefused as refused:
        raise ReceiptRefused(refused.kind, refused.detail) from None
    return _receipt(decoded)


def _malformed(why: str) -> ReceiptRefused:
    return ReceiptRefused("Malformed", f"not a receipt: {why}")


def _receipt(decoded: Decoded) -> dict[str, Any]:
    """Refuse what the decode admitted but no receipt holds, then the wrong shape."""
    doc = decoded.value
    if not isinstance(doc, dict):
        raise _malformed(f"the document is a JSON {_kind(doc)}, a receipt is one object")
    if decoded.duplicate_keys:
        raise _malformed(f"the key {decoded.duplicate_keys[0][:80]!r} appears twice (two "
                         "readers would disagree on which value counts)")
    if decoded.non_finite:
        raise _malformed("a number is not finite (NaN, Infinity, or one that overflows like "
                         "1e999): no receipt field holds one")
    if decoded.lone_surrogate:
        raise _malformed("a string holds a lone surrogate escape (like \\ud800): it is not "
                         "Unicode text")
    if _beyond_safe(doc):
        raise _malformed("an integer lies beyond ±2^53: the digest is over RFC 8785 JSON, "
                         "which cannot spell one exactly, so no receipt field holds one")
    version = doc.get("receipt_format")
    if version != RECEIPT_FORMAT or isinstance(version, bool):
        shown = "absent" if "receipt_format" not in doc else repr(version)[:40]
        raise _malformed(f"receipt_format is {shown}; this engine reads receipt_format "
                         f"{RECEIPT_FORMAT}")
    for name, (kind, spelled) in _FIELDS.items():
        value = doc.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            found = "absent" if name not in doc else f"a JSON {_kind(value)}"
            raise _malformed(f"`{name}` is {found}; it must be a JSON {spelled}")
    verdict: dict[str, Any] = doc["trace_verdict"]
    for name, kinds in _WALKED.items():
        value = verdict.get(name)
        if name in verdict and (not isinstance(value, kinds)
                                or isinstance(value, bool) and bool not in kinds
                                or name == "events" and isinstance(value, int) and value < 0):
            raise _malformed(f"`trace_verdict.{name}` is a JSON {_kind(value)} "
                             f"({repr(value)[:40]}), not what the walk reports")
    return doc


def _beyond_safe(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, int) and not isinstance(node, bool) and abs(node) > _SAFE_INT:
            return True
        stack.extend(node.values() if isinstance(node, dict)
                     else node if isinstance(node, list) else ())
    return False


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    return "array" if isinstance(value, list) else "null"


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
    """One claim of a receipt and what re-deriving it found: it `holds`, it is `BROKEN`, or
    it is `unchecked` — the evidence to re-derive it was not given (or this engine has no
    way to), and an unchecked claim is never reported as holding."""

    claim: str
    status: Status
    detail: str


def verify_receipt(receipt: Mapping[str, Any], *, journal: bytes | None = None,
                   proves: str | None = None, certificate: Mapping[str, Any] | None = None,
                   source: bytes | None = None) -> list[Check]:
    """Re-derive every claim of a decoded receipt: its digest always; with the journal, each
    `trace_verdict` member from the walk (verdict, chain, events, head, outcome, sealing);
    with the workflow (`proves` its semantic hash, `certificate` its check certificate,
    `source` its bytes), what it proves and its certificate; with both, that the journal ran
    that workflow and its lock digest. Every claim left without its evidence is `unchecked`.
    A receipt of an older format is `ReceiptRefused("OlderFormat")`: never judged forged."""
    older = older_format(receipt)
    if older is not None:
        raise ReceiptRefused("OlderFormat", older)
    recorded, actual = receipt.get("digest"), digest_of(receipt)
    checks = [Check("digest", "holds" if recorded == actual else "BROKEN",
                    "binds every other field (an unkeyed digest: it shows the fields were not "
                    "edited after it was computed, not who computed it)"
                    if recorded == actual else f"recorded {recorded!r}, recomputed {actual}")]
    checks += _workflow_claims(receipt, proves, certificate)
    walked, prologue = trace_verdict(journal) if journal is not None else ({}, None)
    checks.append(_ran(receipt, journal is not None, prologue, proves, source))
    claimed: Mapping[str, Any] = receipt.get("trace_verdict") or {}
    for name in sorted(claimed):
        label = f"trace_verdict.{name}"
        if name not in _WALKED:
            checks.append(Check(label, "unchecked", "the walk derives no such member"))
        elif journal is None:
            checks.append(Check(label, "unchecked", "pass --journal to re-walk the chain"))
        else:
            held = claimed[name] == walked[name] and type(claimed[name]) is type(walked[name])
            checks.append(Check(label, "holds" if held else "BROKEN",
                                f"the walk gives {walked[name]!r}" if held else
                                f"claims {claimed[name]!r}, the walk gives {walked[name]!r}"))
    assertions = receipt.get("assertions")
    checks.append(Check("assertions", "holds", "claims no assert: obligation") if not assertions
                  else Check("assertions", "unchecked", f"{len(assertions)} obligation(s): "
                             "this engine judges no assert: (the key left the language)"))
    checks.append(_lock(receipt.get("lock_digest"), journal is not None, prologue))
    checks += [Check(name, "unchecked", "a field this engine derives nothing for")
               for name in sorted(receipt) if name not in _FIELDS]
    return checks


def _workflow_claims(receipt: Mapping[str, Any], proves: str | None,
                     certificate: Mapping[str, Any] | None) -> list[Check]:
    if proves is None or certificate is None:
        why = "pass --workflow to re-derive it"
        return [Check("proves", "unchecked", why), Check("certificate", "unchecked", why)]
    held = receipt.get("proves") == proves
    same = canonical_json(plain(receipt.get("certificate"))) == canonical_json(
        plain(dict(certificate)))
    return [Check("proves", "holds" if held else "BROKEN",
                  "is the workflow's semantic hash" if held else
                  f"names {receipt.get('proves')!r}, the workflow's semantic hash is {proves}"),
            Check("certificate", "holds" if same else "BROKEN",
                  "is the certificate the check derives from the workflow" if same else
                  "differs from the certificate the check derives from the workflow")]


def _lock(claimed: Any, walked: bool, prologue: Mapping[str, Any] | None) -> Check:
    """The claim of the `nika.lock` the run booted with, against its boot manifest."""
    if walked and prologue is not None:
        booted = prologue.get("lock_digest")
        expected = booted if isinstance(booted, str) and booted else LOCK_UNRECORDED
        held = claimed == expected
        return Check("lock_digest", "holds" if held else "BROKEN",
                     "is the lock digest the journal's boot manifest records" if held else
                     f"claims {claimed!r}, the journal's boot manifest records {expected!r}")
    if isinstance(claimed, str) and claimed.startswith("unrecorded"):
        return Check("lock_digest", "holds", "claims no nika.lock")
    return Check("lock_digest", "unchecked", "pass --journal to compare it with the digest "
                 "its boot manifest records")


def _ran(receipt: Mapping[str, Any], walked: bool, prologue: Mapping[str, Any] | None,
         proves: str | None, source: bytes | None) -> Check:
    """The claim that the journal ran the workflow the receipt proves."""
    claim = "journal ran the workflow"
    if not walked:
        return Check(claim, "unchecked", "pass --journal (and --workflow) to check it")
    if prologue is None:
        return Check(claim, "BROKEN", "the journal has no verified boot manifest")
    if proves is not None and source is not None:
        held = ran(prologue, proves, source)
        return Check(claim, "holds" if held else "BROKEN",
                     "its boot manifest names this workflow" if held else
                     "its boot manifest names another workflow")
    recorded = prologue.get("semantic_hash")
    if not isinstance(recorded, str):
        return Check(claim, "unchecked", "the journal records no semantic hash; pass "
                     "--workflow to compare its bytes")
    held = recorded == receipt.get("proves")
    return Check(claim, "holds" if held else "BROKEN",
                 "its boot manifest names the semantic hash the receipt proves" if held else
                 f"its boot manifest names {recorded}, the receipt proves "
                 f"{receipt.get('proves')!r}")


def workflow_identity(path: Path) -> tuple[dict[str, Any], str, bytes]:
    """A workflow file's check certificate, semantic hash and bytes (raises `NikaError`
    when the check refuses it: a refused workflow has no certificate to fold)."""
    from nika.check import check_workflow
    from nika.journal.semantic import semantic_hash
    from nika.syntax.loader import read_source

    source = read_source(str(path))  # guarded: a FIFO or device is refused, never read
    checked = check_workflow(source, path=str(path))
    verdict, workflow = checked.verdict, checked.runnable
    if workflow is None:
        first = verdict.errors[0]
        raise NikaError(first.code, f"the workflow {str(path)!r} is refused by the check "
                        f"({first.detail}); a receipt folds the certificate of a valid one")
    semantic = semantic_hash(workflow, path.parent.resolve())
    return dict(verdict.sections.get("certificate", {})), semantic, source


def ran(prologue: Mapping[str, Any] | None, semantic: str, source: bytes) -> bool:
    """Did the journal with this prologue run the workflow with this identity?"""
    if prologue is None:
        return False
    lf = hashlib.sha256(source.replace(b"\r\n", b"\n").replace(b"\r", b"\n")).hexdigest()
    return prologue.get("semantic_hash") == semantic or prologue.get("workflow_sha256") == \
        hashlib.sha256(source).hexdigest() or prologue.get("workflow_sha256_lf") == lf
