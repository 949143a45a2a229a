from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.media._lttb import extremes, lttb


@given(st.lists(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False), min_size=1,
                max_size=400), st.integers(min_value=3, max_value=60))
def test_keeps_ends_and_extremes_within_budget(values: list[float], threshold: int) -> None:
    ys = np.array(values, dtype=np.float64)
    xs = np.arange(len(values), dtype=np.float64)
    keep = extremes(ys)
    picked = lttb(xs, ys, threshold, keep=keep)
    assert picked == sorted(set(picked))
    if len(values) <= threshold:
        assert picked == list(range(len(values)))
        return
    assert picked[0] == 0 and picked[-1] == len(values) - 1
    assert set(keep) <= set(picked)
    assert len(picked) <= threshold + len(keep)
    assert lttb(xs, ys, threshold, keep=keep) == picked  # deterministic


def test_picks_the_peak_of_each_bucket() -> None:
    ys = np.zeros(100)
    ys[50] = 9.0
    picked = lttb(np.arange(100, dtype=np.float64), ys, 10)
    assert 50 in picked and len(picked) == 10


def test_checkpoint_is_called_and_may_stop_the_work() -> None:
    calls: list[int] = []

    def stop() -> None:
        calls.append(1)
        raise InterruptedError

    with pytest.raises(InterruptedError):
        lttb(np.arange(1000, dtype=np.float64), np.arange(1000, dtype=np.float64), 100,
             checkpoint=stop)
    assert calls == [1]
