"""`nika:chart` served: permits before I/O, rows inline or from a JSON file, the record, the
hash-equal skip, the Vega-Lite sibling, cancellation, and hostile inputs (bounded memory)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.media._chart_cases import CASES, GOLDEN

from nika.errors import NikaError
from nika.tools.builtins import BuiltinExecutor
from nika.tools.builtins.chart import parse_rows

ROOT = Path(__file__).resolve().parents[3]
SPEC = next(p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared")
            if (p / "nika-spec").is_dir()) / "nika-spec"
"""The spec beside the checkout (a worktree sits one level deeper than the main one)."""

BAR = CASES["bar"]


def _args(name: str = "bar", **extra: Any) -> dict[str, Any]:
    case = CASES[name]
    return {"data": case["data"], "semantics": case["semantics"], "chart": case["chart"],
            "out": f"out/{name}.svg", **extra}


async def test_writes_the_golden_svg_and_its_record(make: Callable[..., BuiltinExecutor],
                                                    judge: Any, base: Path) -> None:
    result = await make().call("nika:chart", _args())
    assert result.error is None, result.error
    record = result.structured
    golden = (GOLDEN / "chart_bar.svg").read_bytes()
    assert (base / "out" / "bar.svg").read_bytes() == golden
    assert record == {
        "path": "out/bar.svg", "sha256": hashlib.sha256(golden).hexdigest(),
        "data_sha256": hashlib.sha256(json.dumps(
            BAR["data"], sort_keys=True, separators=(",", ":")).encode()).hexdigest(),
        "width": 800, "height": 450, "bytes": len(golden), "wrote": True, "warnings": [],
    }
    assert [(e.kind, e.target) for e in judge.seen] == [("fs.write", "out/bar.svg")]


async def test_an_equal_rerun_is_not_rewritten(make: Callable[..., BuiltinExecutor],
                                               base: Path) -> None:
    await make().call("nika:chart", _args())
    target = base / "out" / "bar.svg"
    os.utime(target, (1, 1))
    again = await make().call("nika:chart", _args())
    assert again.structured["wrote"] is False and target.stat().st_mtime == 1
    changed = _args(chart={**BAR["chart"], "title": "Other"})
    assert (await make().call("nika:chart", changed)).structured["wrote"] is True


async def test_a_refused_out_touches_nothing(make: Callable[..., BuiltinExecutor], judge: Any,
                                             base: Path) -> None:
    judge.refuse.add("out/bar.svg")
    os.mkfifo(base / "rows.json")  # opening it would block: it is never reached
    args = _args(data={"path": "rows.json"}, compile_to="vega_lite")
    result = await make().call("nika:chart", args)
    assert result.error is not None and result.error.code == "NIKA-SEC-004"
    assert not (base / "out").exists()
    assert [(e.kind, e.target) for e in judge.seen] == [("fs.write", "out/bar.svg")]


async def test_the_sibling_rides_the_out_grant_beside_it(
        make: Callable[..., BuiltinExecutor], judge: Any, base: Path, tmp_path: Path) -> None:
    (base / "out").mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    (base / "out" / "bar.vl.json").symlink_to(elsewhere)  # replaced, never followed
    result = await make().call("nika:chart", _args(compile_to="vega_lite"))
    assert result.error is None, result.error
    assert [(e.kind, e.target) for e in judge.seen] == [("fs.write", "out/bar.svg")]
    sibling = base / "out" / "bar.vl.json"
    assert not sibling.is_symlink() and not elsewhere.exists()
    assert json.loads(sibling.read_text())["mark"] == "bar"


async def test_rows_from_a_json_file(make: Callable[..., BuiltinExecutor], judge: Any,
                                     base: Path) -> None:
    (base / "rows.json").write_text(json.dumps(BAR["data"], indent=2))
    result = await make().call("nika:chart", _args(data={"path": "rows.json"}))
    assert result.error is None, result.error
    assert (base / "out" / "bar.svg").read_bytes() == (GOLDEN / "chart_bar.svg").read_bytes()
    assert ("fs.read", "rows.json") in [(e.kind, e.target) for e in judge.seen]


@pytest.mark.parametrize(("text", "code"), [
    ('[{"region": "A", "revenue": NaN}]', "NIKA-BUILTIN-CHART-003"),
    ('[{"region": "A", "revenue": Infinity}]', "NIKA-BUILTIN-CHART-003"),
    ('[{"region": "A", "revenue": 1e999}]', "NIKA-BUILTIN-CHART-003"),
    ('{"region": "A"}', "NIKA-BUILTIN-CHART-006"),
    ('[{"region": "A", "revenue": 1}', "NIKA-BUILTIN-CHART-006"),
    ('[{"region": "A", "revenue": 1}] [', "NIKA-BUILTIN-CHART-006"),
    ('[{"region": "A", "revenue": 1} {"x": 2}]', "NIKA-BUILTIN-CHART-006"),
    ("[]", "NIKA-BUILTIN-CHART-001"),
    ("", "NIKA-BUILTIN-CHART-006"),
    ("[" * 200_000, "NIKA-BUILTIN-CHART-006"),
    ('[{"a": ' * 100_000, "NIKA-BUILTIN-CHART-006"),
])
async def test_a_bad_data_file_is_refused_with_the_charts_code(
        make: Callable[..., BuiltinExecutor], base: Path, text: str, code: str) -> None:
    (base / "rows.json").write_text(text)
    result = await make().call("nika:chart", _args(data={"path": "rows.json"}))
    assert result.error is not None and result.error.code == code, result.error


async def test_io_failures_are_chart_008(make: Callable[..., BuiltinExecutor],
                                         base: Path) -> None:
    missing = await make().call("nika:chart", _args(data={"path": "nope.json"}))
    assert missing.error is not None and missing.error.code == "NIKA-BUILTIN-CHART-008"
    (base / "out").mkdir()
    os.mkfifo(base / "out" / "bar.svg")
    fifo = await make().call("nika:chart", _args())
    assert fifo.error is not None and fifo.error.code == "NIKA-BUILTIN-CHART-008"
    assert "not a regular file" in fifo.error.detail
    extra = await make().call("nika:chart", _args(data={"path": "x", "rows": 1}))
    assert extra.error is not None and extra.error.code == "NIKA-BUILTIN-CHART-004"


async def test_unhashable_rows_in_undrawn_fields_are_refused(
        make: Callable[..., BuiltinExecutor]) -> None:
    deep: Any = 1
    for _ in range(100_000):
        deep = [deep]
    for extra, code in ((float("nan"), "NIKA-BUILTIN-CHART-003"),
                        (deep, "NIKA-BUILTIN-CHART-006")):
        rows = [{"region": "A", "revenue": 1, "note": extra}]
        result = await make().call("nika:chart", _args(data=rows))
        assert result.error is not None and result.error.code == code, result.error


async def test_a_million_inline_rows_are_refused(make: Callable[..., BuiltinExecutor],
                                                 base: Path) -> None:
    rows = [{"region": "A", "revenue": 1}] * 1_000_000
    result = await make().call("nika:chart", _args(data=rows))
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-CHART-007"
    assert "250000" in result.error.detail and not (base / "out").exists()


async def test_cancellation_stops_the_render(make: Callable[..., BuiltinExecutor],
                                             base: Path) -> None:
    rows = [{"x": i, "y": (i * 7919) % 1000} for i in range(240_000)]
    args = {"data": rows, "chart": {"type": "line", "x": "x", "y": "y"}, "out": "big.svg"}
    before = threading.active_count()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(make().call("nika:chart", args), 0.05)
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert threading.active_count() == before  # the worker saw its stop event and ended
    assert not (base / "big.svg").exists()


_RSS_CHILD = """
import asyncio, json, resource, sys
from pathlib import Path
from nika.tools.builtins import BuiltinExecutor, Context

base = Path(sys.argv[1])
rows = int(sys.argv[2])
with open(base / "rows.json", "w") as out:  # streamed: the writer's own peak stays small
    out.write("[")
    for i in range(rows):
        out.write('%s{"x":%d,"y":%d}' % ("," if i else "", i, (i * 7919) % 1000))
    out.write("]")
start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
args = {"data": {"path": "rows.json"}, "chart": {"type": "line", "x": "x", "y": "y"},
        "out": "big.svg", "compile_to": sys.argv[3]} if sys.argv[3] else {
        "data": {"path": "rows.json"}, "chart": {"type": "line", "x": "x", "y": "y"},
        "out": "big.svg"}
result = asyncio.run(BuiltinExecutor(Context(base_dir=base)).call("nika:chart", args))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"code": result.error.code if result.error else None,
                  "start_kib": start, "peak_kib": peak,
                  "warnings": (result.structured or {}).get("warnings", [])}))
"""


def _rss(tmp_path: Path, rows: int, compile_to: str = "") -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(tmp_path), str(rows),
                          compile_to], env=env, capture_output=True, text=True, timeout=300,
                         check=True)
    return dict(json.loads(out.stdout))


def test_a_million_row_file_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    seen = _rss(tmp_path, 1_000_000)
    assert seen["code"] == "NIKA-BUILTIN-CHART-007"
    # the file (~25 MB) and at most 250,001 parsed rows: never a million dicts (~400 MB)
    assert seen["peak_kib"] - seen["start_kib"] < 200 * 1024, seen


def test_the_row_cap_renders_decimated_in_bounded_memory(tmp_path: Path) -> None:
    seen = _rss(tmp_path, 250_000)
    assert seen["code"] is None and "250000 points, drawn as" in seen["warnings"][0]
    assert seen["peak_kib"] - seen["start_kib"] < 400 * 1024, seen
    svg = (tmp_path / "big.svg").stat().st_size
    assert svg < 200_000  # 2,000 points drawn, not 250,000
    with_sibling = _rss(tmp_path, 250_000, "vega_lite")  # every row, one line each
    assert with_sibling["code"] is None
    assert with_sibling["peak_kib"] - with_sibling["start_kib"] < 300 * 1024, with_sibling


def test_the_spec_example_runs_to_success(tmp_path: Path) -> None:
    shutil.copytree(SPEC / "examples", tmp_path / "examples")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    argv = [sys.executable, "-m", "nika.cli", "run", "examples/csv-chart-report.nika.yaml",
            "--report", "report.json"]
    for attempt in (1, 2):
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        report = json.loads((tmp_path / "report.json").read_text())
        assert report["workflow_state"] == "success"
        record = report["tasks"]["chart"]["output"]
        svg = (tmp_path / "out" / "revenue-by-region.svg").read_bytes()
        assert record["sha256"] == hashlib.sha256(svg).hexdigest()
        assert record["wrote"] is (attempt == 1)  # the second run leaves the file alone
    assert b"<title>Revenue by region</title>" in svg and b"$300,000" in svg
    assert "revenue-by-region.svg" in (tmp_path / "out" / "revenue-report.md").read_text()


_TIMED = """nika: chart-timeout
permits:
  tools: ["nika:chart"]
  fs: { read: ["big.json"], write: ["out/**"] }
tasks:
  draw:
    timeout: 100ms
    invoke:
      tool: "nika:chart"
      args:
        data: { path: big.json }
        chart: { type: line, x: x, y: y }
        out: out/big.svg
"""


def test_a_task_timeout_stops_the_render_through_the_cli(tmp_path: Path) -> None:
    (tmp_path / "big.json").write_text(json.dumps(
        [{"x": i, "y": (i * 7919) % 1000} for i in range(240_000)]))
    (tmp_path / "t.nika.yaml").write_text(_TIMED)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-m", "nika.cli", "run", "t.nika.yaml", "--report",
                           "report.json"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["tasks"]["draw"]["error"]["code"] == "NIKA-TIMEOUT-001"
    assert not (tmp_path / "out" / "big.svg").exists()


_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(),
                    st.sampled_from(["", "EMEA", "é\u2028", '"q"']),
                    st.floats(allow_nan=False, allow_infinity=False))
_ROWS = st.lists(st.fixed_dictionaries({}, optional={"a": _SCALAR, "b c": _SCALAR,
                                                     "日": _SCALAR}), max_size=8)


@given(rows=_ROWS, indent=st.sampled_from([None, 0, 2]))
def test_the_row_parser_reads_what_json_writes(rows: list[dict[str, Any]],
                                               indent: int | None) -> None:
    raw = json.dumps(rows, indent=indent).encode()
    assert parse_rows(raw, "rows.json", threading.Event()) == rows


@given(st.binary(max_size=64) | st.sampled_from(['[{"a": 1}', "[1,]", "[{}] x", "[\x00]",
                                                 '[{"a": NaN}]', "\ufeff[]"]).map(str.encode))
def test_the_row_parser_refuses_garbage_with_a_chart_code(raw: bytes) -> None:
    try:
        parse_rows(raw, "rows.json", threading.Event())
    except NikaError as err:
        assert err.code.startswith("NIKA-BUILTIN-CHART-"), err.code
