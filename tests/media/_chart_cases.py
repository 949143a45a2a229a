"""One chart per type, the data fixed in code: the goldens under `golden/` pin their bytes,
and the browser and Vega-Lite tests draw the same ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

GOLDEN: Final = Path(__file__).parent / "golden"

SALES: Final = [
    {"region": "EMEA", "revenue": 227120},
    {"region": "AMER", "revenue": 329215},
    {"region": "APAC", "revenue": 230410},
]


def _hours() -> list[dict[str, Any]]:
    rows = []
    for h in range(24):
        for model, scale in (("small", 700), ("large", 2300)):
            rows.append({"hour": f"2026-07-09T{h:02d}:00:00Z", "model": model,
                         "tokens": scale * (1 + (h * 7 % 11)) + h * 13})
    return rows


def _forecast() -> list[dict[str, Any]]:
    rows = []
    for d in range(30):
        pred = 100 + d * 4 + (d % 5) * 3
        row: dict[str, Any] = {"day": d, "pred": pred, "lo": pred - 8 - d // 3,
                               "hi": pred + 9 + d // 2}
        if d < 20:
            row["actual"] = pred + ((d * 13) % 9) - 4
        rows.append(row)
    return rows


def _latency() -> list[dict[str, Any]]:
    return [{"latency": 120 + (i * 97) % 2400, "cost": round(0.002 + ((i * 31) % 50) / 1000, 4),
             "provider": ("openai", "anthropic", "local")[i % 3]} for i in range(45)]


def _week() -> list[dict[str, Any]]:
    days = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
    return [{"day": day, "hour": f"{h:02d}h", "change": ((d * 5 + h * 3) % 17) - 8}
            for d, day in enumerate(days) for h in range(0, 24, 3)]


CASES: Final[dict[str, dict[str, Any]]] = {
    "bar": {"data": SALES, "semantics": {"region": "category", "revenue": "usd"},
            "chart": {"type": "bar", "x": "region", "y": "revenue",
                      "title": "Revenue by region"}},
    "line": {"data": _hours(), "semantics": {"hour": "timestamp", "tokens": "tokens",
                                             "model": "category"},
             "chart": {"type": "line", "x": "hour", "y": "tokens", "color": "model",
                       "title": "Tokens per hour"}},
    "area_band": {"data": _forecast(), "semantics": {"pred": "count"},
                  "chart": {"type": "area_band", "x": "day", "y": "pred", "y_lo": "lo",
                            "y_hi": "hi", "y2": "actual", "title": "Forecast vs actual"}},
    "scatter": {"data": _latency(), "semantics": {"latency": "duration_ms", "cost": "usd"},
                "chart": {"type": "scatter", "x": "latency", "y": "cost",
                          "color": "provider", "title": "Cost against latency"}},
    "heatmap": {"data": _week(), "semantics": {"change": "delta"},
                "chart": {"type": "heatmap", "x": "hour", "y": "day", "color": "change",
                          "title": "Change by day and hour"}},
}
