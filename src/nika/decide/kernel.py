"""`D = Evaluate(Bundle, EvidenceSnapshot)`: the decision kernel and its receipt (spec 11).

The snapshot is judged first (`NIKA-DECIDE-002`: an undeclared key, a value that does not
fit its key's type, an unauthorised source, integrity below the key's floor); a required key
that is simply absent is not a refusal but a fact: it is listed as `missing` and the
decision abstains (`defer`). Then, per dimension (sorted by name), each term contributes
term by term: a known integer input its transformed, weighted value; an unknown one (absent,
or not an integer) the interval its transform spans — never an invented zero. Conflicts are
authoritative items disagreeing on one key, each with its witnesses. The outcome:
a conflict on a required key forces `human_required`; missing required evidence defers;
otherwise the thresholds in order — `recommend` when a dimension's floor clears its
threshold, `defer` when the interval straddles it — and `defer` when none admits;
finally an outcome governance lists as never automatic becomes `human_required`.

The receipt is byte-equal with the spec's reference evaluator (`conformance/decision_core.py`)
on every input both accept; where spec 11's prose reads otherwise, the comments below say
which reading the reference takes and so the kernel takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.canonical import canonical_json
from nika.decide import _transform
from nika.decide._types import fits
from nika.decide.bundle import INTEGRITY, Bundle, non_json, validate
from nika.errors import NikaError

RECEIPT_FORMAT: Final = 1


def refusal(detail: str, **details: Any) -> NikaError:
    """The `NIKA-DECIDE-002` refusal: the snapshot does not satisfy the evidence schema."""
    return NikaError(codes.DECIDE_002, f"the evidence snapshot does not satisfy the bundle's "
                     f"evidence schema: {detail}", details=details or None)


def evaluate(bundle: Any, snapshot: Any) -> dict[str, Any]:
    """The Decision Receipt of `snapshot` under `bundle` (raw JSON documents, or a `Bundle`
    already validated); raises `NIKA-DECIDE-001` / `-002` (see the module docstring)."""
    checked = bundle if isinstance(bundle, Bundle) else validate(bundle)
    items, missing = _judge(checked, snapshot)
    raw = checked.raw
    conflicts = _conflicts(raw["evidence_schema"], items)
    # A key given twice scores by its LAST item: the reference keys its items by a dict
    # built in snapshot order (its comment says first-wins, its code keeps the last); byte
    # equality with it is the conformance law, so the last one counts here too. Both are in
    # the conflicts above when they are authoritative and disagree.
    latest = {item["key"]: item for item in items}
    dimensions = {name: _dimension(raw, dim, latest)
                  for name, dim in sorted(raw["rules"]["dimensions"].items())}
    outcome, why = _outcome(raw, dimensions, conflicts, missing)
    try:
        digests: list[Any] = sorted(item["digest"] for item in items if item.get("digest"))
    except TypeError:
        raise refusal("the items' `digest:` values cannot be ordered together (mixed kinds); "
                      "write every digest as a string") from None
    return {
        "decision_receipt_format": RECEIPT_FORMAT,
        "bundle": {"id": raw["manifest"]["id"], "version": raw["manifest"]["version"],
                   "digest": raw["manifest"].get("digest")},
        "snapshot": {"t": snapshot.get("t"), "digests": digests, "missing": missing},
        "dimensions": dimensions,
        "conflicts": conflicts,
        "outcome": outcome,
        "determination_provenance": why,
    }


def receipt_json(receipt: Mapping[str, Any]) -> str:
    """The receipt's canonical JSON: the bytes two evaluators must agree on."""
    return canonical_json(receipt)


def _judge(bundle: Bundle, snapshot: Any) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The snapshot's items, each judged against its key's declaration, and the required keys
    it lacks (sorted). Every item is judged: a duplicate key is two claims."""
    if not isinstance(snapshot, Mapping):
        raise refusal(f"a snapshot is a map `{{t, evidence: [...]}}`, got {snapshot!r:.60}")
    bad = next(non_json(snapshot, "snapshot"), None)
    if bad is not None:
        raise refusal(f"`{bad}` is not a finite JSON number", where=bad)
    items = snapshot.get("evidence", [])
    if not isinstance(items, list):
        raise refusal(f"`evidence:` must be a list of evidence items, got {items!r:.60}")
    schema = bundle.raw["evidence_schema"]
    present = set()
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise refusal(f"`evidence[{i}]` must be a map (key, value, source, integrity, "
                          f"digest), got {item!r:.60}", item=i)
        key = item.get("key")
        if not isinstance(key, str) or key not in schema:
            raise refusal(f"`evidence[{i}].key` {key!r:.60} is not a declared evidence key; the "
                          f"schema is closed: {', '.join(sorted(schema))}", item=i)
        present.add(key)
        _item(schema[key], bundle.types[key], item, i)
    missing = sorted(k for k, decl in schema.items() if decl.get("required") and k not in present)
    return items, missing


def _item(decl: Mapping[str, Any], kind: Any, item: Mapping[str, Any], i: int) -> None:
    key = item["key"]
    if not fits(item.get("value"), kind):
        raise refusal(f"`evidence[{i}]` ({key}) value {item.get('value')!r:.60} does not fit "
                      f"its declared type {decl['type']!r:.60}", item=i, key=key)
    sources = decl.get("sources")
    if isinstance(sources, list) and item.get("source") not in sources:
        raise refusal(f"`evidence[{i}]` ({key}) source {item.get('source')!r:.60} is not "
                      f"authorised; the declared sources are {sources!r:.80}", item=i, key=key)
    floor = decl.get("integrity", "observed")
    got = item.get("integrity", "untrusted")
    if not isinstance(got, str) or got not in INTEGRITY:
        raise refusal(f"`evidence[{i}]` ({key}) integrity {got!r:.40} is not in the lattice "
                      f"{' ⊑ '.join(INTEGRITY)}", item=i, key=key)
    if INTEGRITY.index(got) < INTEGRITY.index(floor):
        raise refusal(f"`evidence[{i}]` ({key}) integrity {got} is below the declared floor "
                      f"{floor}", item=i, key=key)


def _conflicts(schema: Mapping[str, Any], items: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One conflict per key where authoritative items disagree (by canonical value), with
    every authoritative item as a witness, ordered by the text of its source."""
    by_key: dict[str, list[Mapping[str, Any]]] = {}
    for item in items:
        by_key.setdefault(item["key"], []).append(item)
    out = []
    for key, group in sorted(by_key.items()):
        authoritative = [item for item in group if item.get("integrity") == "authoritative"]
        if len({canonical_json(item.get("value")) for item in authoritative}) < 2:
            continue
        # `str()` of the source orders the witnesses, as the reference does (a non-string
        # source, `None` included, sorts by its Python text there too).
        witnesses = sorted(authoritative, key=lambda item: str(item.get("source")))
        out.append({
            "key": key,
            "class": "unresolved",
            "required": bool(schema[key].get("required")),
            "witness": [{"source": w.get("source"), "value": w.get("value"),
                         "digest": w.get("digest")} for w in witnesses],
        })
    return out


def _dimension(bundle: Mapping[str, Any], dimension: Mapping[str, Any],
               latest: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    low = high = 0
    contributions = []
    for term in dimension.get("terms", []):
        key, weight = term["evidence"], term["weight_bp"]
        transform = bundle["transforms"][term["transform"]]
        value = latest[key].get("value") if key in latest else None
        if isinstance(value, bool):
            value = int(value)
        known = isinstance(value, int)
        if isinstance(value, int):
            c_low = c_high = _transform.weighted(_transform.apply(transform, value), weight)
        else:  # Unknown: the interval over the transform's range, never a zero
            ends = [_transform.weighted(end, weight) for end in _transform.span(transform)]
            c_low, c_high = min(ends), max(ends)
        low, high = low + c_low, high + c_high
        contributions.append({"evidence": key, "known": known,
                              "contribution": {"lo": c_low, "hi": c_high},
                              "weight_bp": weight, "transform": term["transform"]})
    return {"interval": {"lo": low, "hi": high}, "contributions": contributions}


def _outcome(bundle: Mapping[str, Any], dimensions: Mapping[str, Any],
             conflicts: list[dict[str, Any]], missing: list[str]) -> tuple[str, list[str]]:
    """The outcome and the commitments that decided it (determination provenance)."""
    why: list[str] = []
    if any(c["required"] for c in conflicts):
        outcome = "human_required"
        why.append("conflict on a required key forces human_required (Belnap · spec 11)")
    elif missing:
        outcome = "defer"
        # The receipt spells the list as the reference evaluator prints it (Python's list
        # text): the provenance line is part of the bytes both evaluators must agree on.
        why.append(f"missing required evidence {missing!r} — abstention is a safety property")
    else:
        outcome, line = _thresholds(bundle, dimensions)
        why.append(line)
    if outcome in bundle["governance"].get("never_automatic", []):
        why.append(f"governance.never_automatic lists {outcome} — human_required")
        outcome = "human_required"
    return outcome, why


def _thresholds(bundle: Mapping[str, Any], dimensions: Mapping[str, Any]) -> tuple[str, str]:
    """Robust dominance, threshold by threshold: the first that the interval's floor clears
    recommends, the first the interval straddles defers (incomparable), one wholly below is
    passed over."""
    for threshold in bundle["rules"].get("thresholds", []):
        name, gate = threshold["dimension"], threshold["recommend_gte_bp"]
        low, high = dimensions[name]["interval"]["lo"], dimensions[name]["interval"]["hi"]
        if low >= gate:
            return "recommend", (f"dimension {name} dominates the threshold (inf {low} >= "
                                 f"{gate} bp) — robust, not point-estimated")
        if high >= gate:
            return "defer", (f"dimension {name} straddles the threshold ([{low}, {high}] vs "
                             f"{gate} bp) — incomparable with the available evidence, never a "
                             "false order")
    return "defer", "no threshold admitted — defer"
