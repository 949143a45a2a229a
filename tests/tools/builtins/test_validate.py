from __future__ import annotations

SCHEMA = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}


async def test_validate_reports_valid_and_invalid_data(make):
    ex = make()
    ok = await ex.call("nika:validate", {"data": {"n": 1}, "schema": SCHEMA})
    bad = await ex.call("nika:validate", {"data": {"n": "x", "m": {}}, "schema": SCHEMA})
    assert ok.structured == {"valid": True, "errors": []}
    assert not bad.is_error and bad.structured["valid"] is False
    assert bad.structured["errors"][0]["path"] == "/n"


async def test_validate_yaml_and_string_schema(make):
    result = await make().call(
        "nika:validate",
        {
            "data": "n: 3\n",
            "format": "yaml",
            "schema": '{"type": "object", "properties": {"n": {"maximum": 2}}}',
        },
    )
    assert result.structured["valid"] is False
    assert result.structured["errors"][0]["path"] == "/n"


async def test_validate_refusals(make):
    ex = make()
    bad_schema = (await ex.call("nika:validate", {"data": 1, "schema": {"type": 5}})).error
    bad_yaml = (
        await ex.call("nika:validate", {"data": "a: [", "schema": {}, "format": "yaml"})
    ).error
    assert bad_schema is not None and bad_schema.code == "NIKA-BUILTIN-VALIDATE-001"
    assert bad_yaml is not None and bad_yaml.code == "NIKA-BUILTIN-VALIDATE-002"
