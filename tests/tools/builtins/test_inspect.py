from __future__ import annotations

from typing import Any


class Source:
    def view(self, name: str) -> dict[str, Any]:
        return {"total_usd": 0.25, "by_task": {"a": 0.25}, "by_provider": {}}


async def test_inspect_reads_the_runtime_source(make):
    result = await make(inspect=Source()).call("nika:inspect", {"view": "cost"})
    assert result.structured["available"] is True and result.structured["total_usd"] == 0.25


async def test_inspect_outside_a_run_says_unavailable(make):
    result = await make().call("nika:inspect", {"view": "threads"})
    assert result.structured == {"available": False, "view": "threads"}


async def test_inspect_refuses_an_unknown_view(make):
    err = (await make().call("nika:inspect", {"view": "memory"})).error
    assert err is not None and err.code == "NIKA-BUILTIN-INSPECT-001"
