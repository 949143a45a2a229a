from __future__ import annotations


async def test_jq_transforms_and_merges(make):
    ex = make()
    total = await ex.call(
        "nika:jq",
        {
            "expression": ".items | map(.price) | add",
            "input": {"items": [{"price": 2}, {"price": 3}]},
        },
    )
    merged = await ex.call(
        "nika:jq", {"expression": ".[0] * .[1]", "input": [{"a": {"x": 1}}, {"a": {"y": 2}}]}
    )
    assert total.structured == 5
    assert merged.structured == {"a": {"x": 1, "y": 2}}


async def test_jq_refusals(make):
    ex = make()
    runtime = (await ex.call("nika:jq", {"expression": ".a.b", "input": {"a": 3}})).error
    stream = (await ex.call("nika:jq", {"expression": ".[]", "input": [1, 2]})).error
    syntax = (await ex.call("nika:jq", {"expression": ".[", "input": 1})).error
    ambient = (await ex.call("nika:jq", {"expression": "$ENV.HOME"})).error
    assert runtime is not None and runtime.code == "NIKA-BUILTIN-JQ-001"
    assert stream is not None and stream.code == "NIKA-BUILTIN-JQ-001"
    assert "2 values" in stream.detail
    assert syntax is not None and syntax.code == "NIKA-VAR-005"
    assert ambient is not None and ambient.code == "NIKA-VAR-005"
