"""Decoding one untrusted JSON artifact (a receipt, a sidecar, an anchor token) under the
bounds of spec 15 §the verifier is a fortress.

The law this module keeps is "two decoders, one verdict": `decode_untrusted` admits exactly
what the reference decoder (`conformance/proof_core.decode_untrusted`) admits and refuses the
rest with the same class, in the same fixed order —

1. size: more than `MAX_ARTIFACT_BYTES` bytes is `Oversized`;
2. depth, scanned before any parse: a `{`/`[` nesting deeper than `MAX_JSON_DEPTH` outside
   string literals is `TooDeep` (a backslash escapes inside a string; a close never takes
   the count below zero);
3. parse: not one JSON text (or not UTF-8) is `Malformed`;
4. structure, over the decoded value wherever it sits: a proof-bearing array (`assertions`,
   `proof`, `covers`) longer than `MAX_PROOF_NODES` is `ProofFlood`; an identifier-class
   string (`proves`, `digest`, `lock_digest`, `workflow_semantic`) longer than
   `MAX_ID_BYTES` UTF-8 bytes is `IdOverflow`. The walk is depth-first from the last child
   pushed, as the reference's, so a document with two faults is refused for the same one.

Like the reference it ADMITS what Python's JSON parser admits: `NaN`, `Infinity`, `1e999`
(as infinity), lone surrogate escapes, duplicate keys (the last one wins) and any top-level
value. Refusing content that is not a receipt is the job of the layer above
(`nika.runtime.receipt`), which says why in its own words. `duplicate_keys` reports what the
parse folded, for that layer.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

MAX_ARTIFACT_BYTES: Final = 1024 * 1024
MAX_JSON_DEPTH: Final = 32
MAX_PROOF_NODES: Final = 64
MAX_ID_BYTES: Final = 256
PROOF_FIELDS: Final = frozenset({"assertions", "proof", "covers"})
ID_FIELDS: Final = frozenset({"proves", "digest", "lock_digest", "workflow_semantic"})

RefusalClass = Literal["Oversized", "TooDeep", "Malformed", "ProofFlood", "IdOverflow"]
REFUSAL_ORDER: Final[tuple[RefusalClass, ...]] = (
    "Oversized", "TooDeep", "Malformed", "ProofFlood", "IdOverflow")

_OPEN: Final = frozenset(b"[{")
_CLOSE: Final = frozenset(b"]}")
_QUOTE: Final = 0x22
_BACKSLASH: Final = 0x5C


class DecodeRefused(Exception):
    """A typed refusal: `cls` is one of `REFUSAL_ORDER`, `detail` says what crossed."""

    def __init__(self, cls: RefusalClass, detail: str) -> None:
        super().__init__(f"{cls}: {detail}")
        self.cls: RefusalClass = cls
        self.detail = detail


def _depth_scan(data: bytes) -> None:
    # Bytes, not characters: the six bytes that matter never occur inside a multi-byte
    # UTF-8 sequence, so this scan sees what a character scan of the decoded text sees.
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == _BACKSLASH:
                escaped = True
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise DecodeRefused("TooDeep", f"the nesting reaches {depth} levels, beyond "
                                    f"the bound ({MAX_JSON_DEPTH})")
        elif byte in _CLOSE:
            depth = max(0, depth - 1)


def _structural_scan(value: Any) -> None:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                if key in PROOF_FIELDS and isinstance(child, list) \
                        and len(child) > MAX_PROOF_NODES:
                    raise DecodeRefused("ProofFlood", f"`{key}` holds {len(child)} nodes, "
                                        f"beyond the bound ({MAX_PROOF_NODES})")
                if key in ID_FIELDS and isinstance(child, str):
                    size = len(child.encode("utf-8", "surrogatepass"))
                    if size > MAX_ID_BYTES:
                        raise DecodeRefused("IdOverflow", f"`{key}` is {size} bytes long, "
                                            f"beyond the bound ({MAX_ID_BYTES})")
                stack.append(child)
        elif isinstance(node, list):
            stack.extend(node)


def _parse(data: bytes, seen: list[str]) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in items:
            if key in out:
                seen.append(key)
            out[key] = item
        return out

    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=pairs)
    except UnicodeDecodeError as exc:
        raise DecodeRefused("Malformed", f"not UTF-8 text ({exc.reason} at byte "
                            f"{exc.start})") from None
    except ValueError as exc:
        raise DecodeRefused("Malformed", f"not one JSON document ({exc})") from None


def decode_document(data: bytes) -> tuple[Any, tuple[str, ...]]:
    """`decode_untrusted`, with the keys the parse found twice in one object (last wins)."""
    if len(data) > MAX_ARTIFACT_BYTES:
        raise DecodeRefused("Oversized", f"the artifact is {len(data)} bytes, beyond the "
                            f"bound ({MAX_ARTIFACT_BYTES} bytes)")
    _depth_scan(data)
    duplicates: list[str] = []
    value = _parse(data, duplicates)
    _structural_scan(value)
    return value, tuple(duplicates)


def decode_untrusted(data: bytes) -> Any:
    """One untrusted artifact's bytes, decoded whole, or `DecodeRefused` — never a part."""
    return decode_document(data)[0]
