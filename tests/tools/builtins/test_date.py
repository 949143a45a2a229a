from __future__ import annotations

from datetime import UTC, datetime

import pytest

NOW = datetime(2026, 5, 23, 9, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "2026-05-23T09:00:00Z"),
        ({"op": "now", "tz": "Europe/Paris"}, "2026-05-23T11:00:00+02:00"),
        (
            {"op": "add", "base": "2026-01-31T23:00:00Z", "duration": "1h30m"},
            "2026-02-01T00:30:00Z",
        ),
        ({"op": "subtract", "duration": "24h"}, "2026-05-22T09:00:00Z"),
        (
            {"op": "format", "input": "2026-05-23T09:00:00Z", "format": "%Y/%m/%d %H"},
            "2026/05/23 09",
        ),
        ({"op": "parse", "input": "23.05.2026", "format": "%d.%m.%Y"}, "2026-05-23T00:00:00Z"),
        (
            {
                "op": "diff",
                "start": "2026-05-01T00:00:00Z",
                "end": "2026-05-23T12:00:00Z",
                "unit": "d",
            },
            22,
        ),
    ],
)
async def test_date_ops(make, args, expected):
    result = await make(now=lambda: NOW).call("nika:date", args)
    assert result.error is None and result.structured == expected


@pytest.mark.parametrize(
    "args",
    [
        {"op": "yesterday"},
        {"op": "now", "tz": "Mars/Olympus"},
        {"op": "format", "input": "not a date", "format": "%Y"},
        {"op": "add", "base": "2026-01-01T00:00:00Z"},
        {"op": "now", "input": "stray"},
    ],
)
async def test_date_refusals_are_date_001(make, args):
    err = (await make(now=lambda: NOW).call("nika:date", args)).error
    assert err is not None and err.code == "NIKA-BUILTIN-DATE-001"


AGREEMENT = [
    {"op": "add", "base": "2026-01-01T00:00:00Z", "duration": "7d"},
    {"op": "subtract", "duration": "2w"},
    {"op": "add", "duration": "1d12q"},
    {"op": "diff", "start": "2026-05-01T00:00:00Z", "end": "2026-05-02T00:00:00Z",
     "unit": "minutes"},
    {"op": "add", "duration": "168h"},
    {"op": "add", "base": "yesterday", "duration": "1h"},
    {"op": "format", "input": "2026-05-23", "format": "%Y"},
    {"op": "diff", "start": "2026-05-01T00:00:00Z", "end": "soon"},
    {"op": "diff", "start": "2026-05-01T00:00:00Z", "end": "2026-05-02T00:00:00Z", "unit": "y"},
    {"op": "add"},
    {"op": "now", "duration": "1h"},
    {"op": "tomorrow"},
]


@pytest.mark.parametrize("args", AGREEMENT)
async def test_check_refuses_exactly_the_literals_the_run_refuses(make, args):
    # issue 14: `duration: "7d"` passed check and failed here; one code on both sides.
    import json

    from nika.check import check

    source = (
        'nika: d\npermits: { tools: ["nika:date"] }\ntasks:\n  t:\n'
        f"    invoke: {{ tool: nika:date, args: {json.dumps(args)} }}\n"
    )
    verdict = check(source)
    result = await make(now=lambda: NOW).call("nika:date", args)
    ran = result.error
    static = [e.code for e in verdict.errors]
    assert static == ([ran.code] if ran is not None else []), (static, ran)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"op": "subtract", "duration": "7d"}, "2026-05-16T09:00:00Z"),
        ({"op": "add", "duration": "1w2d"}, "2026-06-01T09:00:00Z"),
        ({"op": "add", "duration": "1d12h30m"}, "2026-05-24T21:30:00Z"),
        ({"op": "diff", "start": "2026-05-23T08:00:00Z", "end": "2026-05-23T09:30:00Z",
          "unit": "minutes"}, 90),
        ({"op": "diff", "start": "2026-05-01T00:00:00Z", "end": "2026-05-23T00:00:00Z",
          "unit": "week"}, 3),
    ],
)
async def test_windows_count_days_and_weeks_and_units_read_as_spelled(make, args, expected):
    # the spec's own examples write `duration: "7d"` (competitor-radar) and `unit: minutes`
    # (release-train)
    result = await make(now=lambda: NOW).call("nika:date", args)
    assert result.error is None and result.structured == expected


@pytest.mark.parametrize("duration", ["1.5d", "2d1w", "1d12q", "0d"])
async def test_a_malformed_window_is_date_001(make, duration):
    err = (await make(now=lambda: NOW).call("nika:date",
                                             {"op": "add", "duration": duration})).error
    assert err is not None and err.code == "NIKA-BUILTIN-DATE-001"
