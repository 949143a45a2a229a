"""What the local renderers cost: `nika:chart` on 1k and 100k rows, and `nika:image_fx` per op
on a 1-megapixel image (`_media_image_fx.py`), each next to baselines.

- chart: `nika.media.svg.render` of a line chart (1k rows drawn as they are; 100k decimated by
  LTTB to 2,000 points, extremes kept), and the whole builtin call (render, the rows'
  canonical data hash, the atomic write) — next to matplotlib's SVG backend drawing the same
  rows (the `bench` extra; it draws every point, with its own path simplification) and to
  `json.dumps` of the rows (the floor: serialising the data at all).
- image_fx: each op alone on the decoded pixels, next to Pillow's nearest counterpart on the
  same pixels; decode and encode have rows of their own.

Every baseline is measured in the same run, so the ratios hold on any machine. Times are
best-of-N wall seconds of a warm process.
Run: `.venv/bin/python bench/media_bench.py`
"""

from __future__ import annotations

import asyncio
import gc
import io
import json
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _media_image_fx import image_fx_section  # noqa: I001 (a bench-local module)

from nika.media.svg import DECIMATE_ABOVE, render
from nika.tools.builtins import BuiltinExecutor, Context

SIZES = (1_000, 100_000)
CHART = {"type": "line", "x": "t", "y": "cost", "title": "Cost per request"}
SEMANTICS = {"cost": "usd"}


def rows(n: int) -> list[dict[str, Any]]:
    """A deterministic random walk: `t` 0…n-1, `cost` in dollars."""
    out, level, state = [], 50.0, 12345
    for t in range(n):
        state = (state * 1103515245 + 12345) % 2**31
        level = max(0.0, level + (state % 2001 - 1000) / 1000)
        out.append({"t": t, "cost": round(level, 4)})
    return out


def best(work: Callable[[], object], repeat: int) -> float:
    """Best-of-`repeat` wall seconds of `work()`, the collector paused while it runs."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


def matplotlib_svg(data: list[dict[str, Any]]) -> bytes:
    import matplotlib

    matplotlib.use("svg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.plot([r["t"] for r in data], [r["cost"] for r in data])
    ax.set_title(str(CHART["title"]))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    return buffer.getvalue()


def builtin_call(data: list[dict[str, Any]], base: Path) -> None:
    executor = BuiltinExecutor(Context(base_dir=base))
    args = {"data": data, "chart": CHART, "semantics": SEMANTICS, "out": "bench.svg"}
    result = asyncio.run(executor.call("nika:chart", args))
    assert result.error is None, result.error
    (base / "bench.svg").unlink()  # every call writes: no hash-equal skip in the timing


def chart_section() -> None:
    print("chart · line chart, best-of-N wall seconds (ratio = nika / baseline)")
    print(f"  decimation past {DECIMATE_ABOVE} points per series (LTTB, extremes kept)")
    header = f"  {'rows':>8} {'nika render':>12} {'builtin call':>13} {'matplotlib':>11} " \
             f"{'json.dumps':>11} {'÷ mpl':>7} {'÷ json':>7} {'svg bytes':>10}"
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            data = rows(n)
            repeat = 5 if n <= 10_000 else 3
            svg = render(CHART, SEMANTICS, data).svg
            ours = best(partial(render, CHART, SEMANTICS, data), repeat)
            call = best(partial(builtin_call, data, Path(tmp)), repeat)
            mpl = best(partial(matplotlib_svg, data), repeat)
            floor = best(partial(json.dumps, data), repeat)
            print(f"  {n:>8,} {ours:>12.4f} {call:>13.4f} {mpl:>11.4f} {floor:>11.4f} "
                  f"{ours / mpl:>7.2f} {ours / floor:>7.1f} {len(svg):>10,}")


def main() -> None:
    chart_section()
    image_fx_section()


if __name__ == "__main__":
    main()
