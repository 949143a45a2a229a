"""The seeded stream of the stochastic ops (grain, glitch): counter-based, so any draw is a
pure function of (seed, op position, stream, index) — no generator state, no dependence on
Python's `random` or numpy's generators (whose streams may change between releases).

Algorithm (fixed; part of the bytes): SplitMix64 (Steele, Lea & Flood 2014) in its
counter form. The key is
    k = mix(mix(seed mod 2^64) ^ (op_index · 2^8 + stream))
and draw i is
    mix(k + (i + 1) · 0x9E3779B97F4A7C15 mod 2^64),
where mix is SplitMix64's finalizer (xor-shift 30, · 0xBF58476D1CE4E5B9, xor-shift 27,
· 0x94D049BB133111EB, xor-shift 31), all arithmetic modulo 2^64 on numpy uint64 arrays.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

_GOLDEN: Final = 0x9E3779B97F4A7C15
_M1: Final = 0xBF58476D1CE4E5B9
_M2: Final = 0x94D049BB133111EB
_MASK: Final = (1 << 64) - 1

U64 = npt.NDArray[np.uint64]


def _mix(x: U64) -> U64:
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(_M1)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(_M2)
    return x ^ (x >> np.uint64(31))


def _mix_int(x: int) -> int:
    return int(_mix(np.array([x & _MASK], np.uint64))[0])


class Stream:
    """The draws of one op's one stream (see the module doc)."""

    def __init__(self, seed: int, op_index: int, stream: int) -> None:
        self._key = _mix_int(_mix_int(seed) ^ ((op_index << 8) + stream))

    def words(self, start: int, count: int) -> U64:
        """Draws `start .. start+count` as 64-bit words."""
        index = np.arange(start + 1, start + count + 1, dtype=np.uint64)
        return _mix(np.uint64(self._key) + index * np.uint64(_GOLDEN))

    def below(self, start: int, count: int, bound: int) -> npt.NDArray[np.int64]:
        """Draws `start .. start+count` reduced to 0..bound-1 (the high 32 bits times `bound`,
        shifted down: Lemire's multiply-shift, without rejection — its bias is under 2^-24
        for the bounds used here, and it is the same bias everywhere)."""
        high = self.words(start, count) >> np.uint64(32)
        return ((high * np.uint64(bound)) >> np.uint64(32)).astype(np.int64)
