from __future__ import annotations

import pytest


async def test_convert_json_rows_to_csv_as_the_fixture_measures(make):
    rows = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]
    result = await make().call("nika:convert", {"input": rows, "from": "json", "to": "csv"})
    assert result.structured == "a,b\n1,x\n2,y\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"input": "a,b\n1,x\n", "from": "csv", "to": "json"}, [{"a": "1", "b": "x"}]),
        (
            {"input": "a,b\n1,x\n", "from": "csv", "to": "json", "has_header": False},
            [["a", "b"], ["1", "x"]],
        ),
        (
            {"input": "k: [1, 2]\nd: 2024-01-02\n", "from": "yaml", "to": "json"},
            {"k": [1, 2], "d": "2024-01-02"},
        ),
        ({"input": {"t": {"x": 1, "n": None}}, "from": "json", "to": "toml"}, "[t]\nx = 1\n"),
        ({"input": 'a = "b"\n', "from": "toml", "to": "yaml"}, "a: b\n"),
        (
            {
                "input": [{"f": "=cmd()"}, {"f": "-5"}],
                "from": "json",
                "to": "csv",
                "formula_guard": True,
            },
            "f\n'=cmd()\n'-5\n",
        ),
    ],
)
async def test_convert_directions(make, args, expected):
    result = await make().call("nika:convert", args)
    assert result.error is None and result.structured == expected


async def test_convert_refusals(make):
    ex = make()
    identity = (
        await ex.call("nika:convert", {"input": "{}", "from": "json", "to": "json"})
    ).error
    unparsable = (
        await ex.call("nika:convert", {"input": "{nope", "from": "json", "to": "yaml"})
    ).error
    guard = (
        await ex.call(
            "nika:convert", {"input": [], "from": "json", "to": "csv", "formula_guard": "yes"}
        )
    ).error
    assert identity is not None and identity.code == "NIKA-BUILTIN-CONVERT-001"
    assert unparsable is not None and unparsable.code == "NIKA-BUILTIN-CONVERT-002"
    assert guard is not None and guard.code == "NIKA-BUILTIN-001"  # the arg contract's, as check
