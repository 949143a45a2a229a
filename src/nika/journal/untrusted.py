"""The untrusted-JSON decode step (15 §the verifier is a fortress · NEP-0012 laws 1 and 4).

ONE artifact's bytes become ONE JSON value, or a typed refusal — never a partial value,
never a traceback. The bounds and their fixed order are the spec's, and the decode admits
exactly what the spec's reference decoder admits (`conformance/proof_core.py`,
`decode_untrusted`: a differential test holds the two to one verdict):

1. size — more than `MAX_ARTIFACT_BYTES` bytes is `Oversized`, before anything is read;
2. depth — a scan of the raw bytes (brackets inside strings skipped, escapes honoured, a
   close below zero saturating at zero) refuses nesting beyond `MAX_JSON_DEPTH` as
   `TooDeep`, before the parser could recurse;
3. parse — text that is not UTF-8 or not one JSON document is `Malformed`;
4. structure — on the decoded value, wherever it sits: a proof-bearing array
   (`PROOF_FIELDS`) longer than `MAX_PROOF_NODES` is `ProofFlood`, an identifier-class
   string (`ID_FIELDS`) longer than `MAX_ID_BYTES` bytes of UTF-8 is `IdOverflow`.

What the reference admits, this step admits too, and says so: `NaN`, `Infinity` and
`-Infinity`, a number that overflows to infinity (`1e999`), a lone surrogate escape
(`"\\ud800"`), a duplicate key (the last value wins, as the reference's parser keeps it),
any top-level value. `Decoded` carries each of these as a flag, so the layer that reads a
KIND of artifact (a receipt: `receipt.decode`) refuses what it cannot be — this step judges
bounds, never meaning.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final, Literal

MAX_ARTIFACT_BYTES: Final = 1 << 20
MAX_JSON_DEPTH: Final = 32
MAX_PROOF_NODES: Final = 64
MAX_ID_BYTES: Final = 256
PROOF_FIELDS: Final = frozenset({"assertions", "proof", "covers"})
"""Members holding proof-bearing arrays (bounded by `MAX_PROOF_NODES`)."""
ID_FIELDS: Final = frozenset({"proves", "digest", "lock_digest", "workflow_semantic"})
"""Members holding identifier-class strings (bounded by `MAX_ID_BYTES`)."""

Refusal = Literal["Oversized", "TooDeep", "Malformed", "ProofFlood", "IdOverflow"]
REFUSAL_ORDER: Final[tuple[Refusal, ...]] = (
    "Oversized", "TooDeep", "Malformed", "ProofFlood", "IdOverflow")
"""The refusal classes in the order their bounds are checked."""


class DecodeRefused(Exception):
    """An artifact refused by a bound: `kind` is the spec's typed class."""

    def __init__(self, kind: Refusal, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind: Refusal = kind
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Decoded:
    """An admitted artifact: its value, and what the decode admitted that a typed reader may
    refuse — the duplicated keys (each once, in first-seen order), whether a number is not
    finite, whether a string or key holds a lone surrogate."""

    value: Any
    duplicate_keys: tuple[str, ...] = ()
    non_finite: bool = False
    lone_surrogate: bool = False


def decode_untrusted(data: bytes) -> Decoded:
    """Decode one untrusted artifact under the bounds, in their fixed order (see the module
    docstring); raises `DecodeRefused`, and nothing else."""
    if len(data) > MAX_ARTIFACT_BYTES:
        raise DecodeRefused("Oversized", f"the artifact is {len(data)} bytes, beyond the "
                            f"bound ({MAX_ARTIFACT_BYTES} bytes)")
    _scan_depth(data)
    seen = _Seen()
    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=seen.pairs,
                           parse_float=seen.number, parse_constant=seen.constant)
    except UnicodeDecodeError as exc:
        raise DecodeRefused("Malformed", f"not UTF-8 text (byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, a 5,000-digit integer
        raise DecodeRefused("Malformed", f"not one JSON document ({str(exc)[:200]})") from None
    surrogate = _scan_structure(value)
    return Decoded(value, tuple(dict.fromkeys(seen.duplicates)), seen.non_finite, surrogate)


def _scan_depth(data: bytes) -> None:
    depth = 0
    in_string = escaped = False
    for byte in data:  # UTF-8 never hides an ASCII byte inside a multi-byte character
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise DecodeRefused("TooDeep", f"the artifact nests beyond {MAX_JSON_DEPTH} "
                                    "levels")
        elif byte in (0x5D, 0x7D) and depth:  # ] } — a stray close never goes below zero
            depth -= 1


class _Seen:
    """The parser hooks: they build the same value the reference's parser builds, and note
    what a typed reader may refuse."""

    def __init__(self) -> None:
        self.duplicates: list[str] = []
        self.non_finite = False

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                self.duplicates.append(key)
            out[key] = value  # the last one wins, as in a plain dict
        return out

    def number(self, text: str) -> float:
        value = float(text)
        if not math.isfinite(value):  # 1e999
            self.non_finite = True
        return value

    def constant(self, name: str) -> float:
        self.non_finite = True  # NaN, Infinity, -Infinity
        return float(name)


def _utf8_length(text: str) -> int:
    """Bytes of UTF-8, a lone surrogate counted as the 3 bytes its escape decodes to."""
    return len(text.encode("utf-8", "surrogatepass"))


def _lone(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _scan_structure(value: Any) -> bool:
    """Refuse a proof flood or an identifier overflow (depth-first, the last member of a
    container first, as the reference walks); return whether a lone surrogate was seen."""
    surrogate = False
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                surrogate = surrogate or _lone(key)
                if key in PROOF_FIELDS and isinstance(child, list) \
                        and len(child) > MAX_PROOF_NODES:
                    raise DecodeRefused("ProofFlood", f"`{key}` holds {len(child)} nodes, "
                                        f"beyond the bound ({MAX_PROOF_NODES})")
                if key in ID_FIELDS and isinstance(child, str) \
                        and _utf8_length(child) > MAX_ID_BYTES:
                    raise DecodeRefused("IdOverflow", f"`{key}` is {_utf8_length(child)} "
                                        f"bytes, beyond the bound ({MAX_ID_BYTES})")
                stack.append(child)
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            surrogate = surrogate or _lone(node)
    return surrogate
