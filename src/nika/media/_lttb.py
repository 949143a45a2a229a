"""Largest-Triangle-Three-Buckets decimation that keeps the extremes (stdlib §chart honesty).

A series longer than the chart's threshold keeps its first and last points and, from each of
`threshold - 2` equal buckets between them, the point that spans the largest triangle with the
point kept before it and the mean of the next bucket (Steinarsson's LTTB). LTTB alone may drop
a spike's exact peak; here every index in `keep` (the caller's minima and maxima) replaces its
bucket's choice, so the drawn line always reaches the data's true extremes.

Deterministic on every machine: bucket bounds are integer arithmetic, bucket means are
`math.fsum` (exactly rounded, unlike a SIMD-dependent sum), and the areas are elementwise
IEEE products whose first maximum is taken.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]

_CHECK_EVERY = 256
"""Buckets between two cooperative-cancellation checkpoints."""


def lttb(xs: Floats, ys: Floats, threshold: int, *, keep: Iterable[int] = (),
         checkpoint: Callable[[], None] = lambda: None) -> list[int]:
    """The sorted indices to draw of the series (`xs` ascending), at most `threshold` plus
    one per extra `keep` index that shares a bucket with another."""
    n = len(xs)
    if n <= threshold or threshold < 3:
        return list(range(n))
    buckets = threshold - 2
    inner = n - 2

    def start(i: int) -> int:
        return 1 + (i * inner) // buckets

    chosen: list[int] = [0]
    previous = 0
    for i in range(buckets):
        if i % _CHECK_EVERY == 0:
            checkpoint()
        lo, hi = start(i), start(i + 1)
        nlo, nhi = hi, (start(i + 2) if i + 2 <= buckets else n)
        nhi = max(nhi, nlo + 1)
        cx = math.fsum(xs[nlo:nhi].tolist()) / (nhi - nlo)
        cy = math.fsum(ys[nlo:nhi].tolist()) / (nhi - nlo)
        ax, ay = xs[previous], ys[previous]
        bx, by = xs[lo:hi], ys[lo:hi]
        area = np.abs((ax - cx) * (by - ay) - (ax - bx) * (cy - ay))
        previous = lo + int(np.argmax(area))
        chosen.append(previous)
    chosen.append(n - 1)
    return _forced(chosen, sorted(set(keep)), start, buckets)


def _forced(chosen: list[int], keep: list[int], start: Callable[[int], int],
            buckets: int) -> list[int]:
    """`chosen` (one index per bucket, plus both ends) with each `keep` index in its bucket:
    replacing that bucket's pick the first time, beside it after."""
    slots: dict[int, list[int]] = {}
    for k in keep:
        if k == chosen[0] or k == chosen[-1]:
            continue
        bucket = _bucket_of(k, start, buckets)
        slots.setdefault(bucket, []).append(k)
    out = [chosen[0]]
    for b in range(buckets):
        out.extend(slots.get(b, [chosen[b + 1]]))
    out.append(chosen[-1])
    return sorted(set(out))


def _bucket_of(index: int, start: Callable[[int], int], buckets: int) -> int:
    lo, hi = 0, buckets - 1
    while lo < hi:  # the last bucket whose start is <= index
        mid = (lo + hi + 1) // 2
        if start(mid) <= index:
            lo = mid
        else:
            hi = mid - 1
    return lo


def extremes(*columns: Floats) -> list[int]:
    """The first index of each column's minimum and maximum (NaN-free columns)."""
    out: list[int] = []
    for col in columns:
        if len(col):
            out += [int(np.argmin(col)), int(np.argmax(col))]
    return out
