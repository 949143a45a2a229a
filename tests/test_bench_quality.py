"""`bench/_quality.py`'s BFCL loader and scoring, on a tiny synthetic copy of BFCL's layout.

The bench module is loaded by path (it is a script's helper, not a package); the fixture is a
fake `bfcl_eval` package put first on `sys.path`, so neither the network nor the real package
is needed.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from nika.agent.router import RouteContext, split_prompt

ROOT = Path(__file__).resolve().parent.parent


def load_quality() -> ModuleType:
    """`bench/_quality.py` as a module, loaded once (its dataclasses need it in `sys.modules`)."""
    if "_quality" not in sys.modules:
        spec = importlib.util.spec_from_file_location("_quality", ROOT / "bench" / "_quality.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["_quality"] = module
        spec.loader.exec_module(module)
    return sys.modules["_quality"]


Q = load_quality()

WEATHER = {
    "name": "get_weather",
    "description": "Current weather in a city.",
    "parameters": {
        "type": "dict",
        "required": ["city"],
        "properties": {
            "city": {"type": "string", "description": "The city."},
            "where": {"type": "dict", "properties": {"lat": {"type": "float"}}},
            "extra": {"type": "any", "description": "Anything."},
        },
    },
}
# The same name with a small variation, as BFCL repeats a function across queries.
WEATHER_2 = {**WEATHER, "description": "The current weather for a city."}
CONVERT = {"name": "convert", "description": "Convert a currency amount.",
           "parameters": {"type": "dict", "properties": {}, "required": []}}


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def fake_bfcl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "bfcl_eval"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('the loader must not import me')\n")
    data = package / "data"
    for category in Q.BFCL_CATEGORIES:
        _write(data / f"BFCL_v4_{category}.json", [])
        _write(data / "possible_answer" / f"BFCL_v4_{category}.json", [])
    _write(data / "BFCL_v4_simple_python.json", [
        {"id": "simple_python_0", "question": [[{"role": "user", "content": "Weather in Oslo?"}]],
         "function": [WEATHER]},
    ])
    _write(data / "possible_answer" / "BFCL_v4_simple_python.json", [
        {"id": "simple_python_0", "ground_truth": [{"get_weather": {"city": ["Oslo"]}}]},
    ])
    _write(data / "BFCL_v4_live_parallel_multiple.json", [
        {"id": "live_parallel_multiple_0-0-0",
         "question": [[{"role": "system", "content": "You are a travel assistant."},
                       {"role": "user", "content": "Weather in Rome, and 5 EUR in USD."}]],
         "function": [WEATHER_2, CONVERT, WEATHER]},
    ])
    _write(data / "possible_answer" / "BFCL_v4_live_parallel_multiple.json", [
        {"id": "live_parallel_multiple_0-0-0",
         "ground_truth": [{"get_weather": {"city": ["Rome"]}}, {"convert": {"amount": [5]}}]},
    ])
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_bfcl_pools_each_distinct_definition_once_under_its_name(fake_bfcl: Path) -> None:
    tools, cases = Q.bfcl()
    assert [t.name for t in tools] == [
        "mcp:bfcl/convert", "mcp:bfcl/get_weather", "mcp:bfcl/get_weather#2"
    ]
    weather = next(t for t in tools if t.description == WEATHER["description"])
    assert weather.parameters == {
        "type": "object",
        "required": ["city"],
        "properties": {
            "city": {"type": "string", "description": "The city."},
            "where": {"type": "object", "properties": {"lat": {"type": "number"}}},
            "extra": {"description": "Anything."},
        },
    }
    by_id = {c.id: c for c in cases}
    assert by_id["simple_python_0"].gold == {"mcp:bfcl/get_weather"}
    both = by_id["live_parallel_multiple_0-0-0"]
    assert both.gold == {"mcp:bfcl/get_weather", "mcp:bfcl/convert"}
    assert (both.source, both.kind, both.pool) == ("bfcl", "live_parallel_multiple", "bfcl")
    # The system message is the standing preamble, the user's message the request.
    assert split_prompt(both.ctx.prompt) == ("You are a travel assistant.",
                                             "Weather in Rome, and 5 EUR in USD.")


def test_bfcl_missing_names_the_no_deps_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Q, "find_spec", lambda name: None)
    with pytest.raises(SystemExit, match=r"pip install --no-deps bfcl-eval==2026\.3\.23"):
        Q.bfcl()


def _case(gold: set[str], *, by_name: bool, id: str = "q") -> Any:
    ctx = RouteContext("a request", "", (), frozenset())
    return Q.Case(id, "bfcl" if by_name else "nestful", "en", "k", ctx, frozenset(gold),
                  by_name=by_name)


def test_any_variant_of_a_gold_name_answers_it_and_each_variant_takes_a_slot() -> None:
    case = _case({"mcp:bfcl/a", "mcp:bfcl/b"}, by_name=True)
    hit = Q.score(lambda c: ["mcp:bfcl/z", "mcp:bfcl/a#3", "mcp:bfcl/b#2"], [case])
    assert (hit.all12, hit.all5, hit.mean12, hit.mrr) == (1.0, 1.0, 1.0, 0.5)
    # Eleven variants of a wrong name push the second gold name out of the offered 12.
    crowded = ["mcp:bfcl/a", *(f"mcp:bfcl/z#{i}" for i in range(2, 13)), "mcp:bfcl/b"]
    miss = Q.score(lambda c: crowded, [case])
    assert (miss.all12, miss.mean12, miss.mrr) == (0.0, 0.5, 1.0)


def test_without_by_name_gold_is_the_exact_definition() -> None:
    case = _case({"mcp:sgd/a"}, by_name=False)
    assert Q.score(lambda c: ["mcp:sgd/a#2"], [case]).all12 == 0.0
    assert Q.score(lambda c: ["mcp:sgd/a"], [case]).all12 == 1.0


def test_the_split_follows_the_gold_names_only() -> None:
    gold = {"mcp:bfcl/get_weather", "mcp:bfcl/convert"}
    splits = {_case(gold, by_name=True, id=f"q{i}").split for i in range(20)}
    assert len(splits) == 1
    # Pinned: sha256 of the sorted names, first byte even -> dev (no hash seed involved).
    assert _case(gold, by_name=True).split == "held-out"
    assert _case({"mcp:bfcl/a"}, by_name=True).split == "dev"
