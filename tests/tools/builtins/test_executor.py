"""The executor boundary: definitions, schema validation, unknown tools, masking, crashes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from nika.agent.seams import ToolExecutor
from nika.masking import Masker
from nika.stdlib import NAMES
from nika.tools.builtins import BUILTINS, BuiltinExecutor


def test_definitions_sorted_builtin_and_satisfy_the_seam(make: Callable[..., BuiltinExecutor]):
    ex = make()
    assert isinstance(ex, ToolExecutor)
    names = [d.name for d in ex.definitions()]
    assert names == sorted(names)
    assert {d.source for d in ex.definitions()} == {"builtin"}
    assert "nika:done" not in names and "nika:compose" not in names
    media = next(d for d in ex.definitions() if d.name == "nika:image_generate")
    assert "never the image bytes" in media.description


def test_every_declared_builtin_is_answered_except_loop_served():
    assert set(BUILTINS) == NAMES - {"nika:done", "nika:compose"}
    assert all(b.declaration.name == name for name, b in BUILTINS.items())


async def test_unknown_tool_is_invoke_001_with_a_suggestion(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:raed", {"path": "x"})
    assert result.is_error and result.error is not None
    assert result.error.code == "NIKA-INVOKE-001"
    assert "nika:read" in result.error.detail


async def test_loop_served_names_are_refused_with_their_home(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:done", {})
    assert result.error is not None and result.error.code == "NIKA-INVOKE-001"
    assert "agent" in result.error.detail


async def test_schema_failure_names_the_path(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:read", {"path": 3})
    err = result.error
    assert err is not None and err.code == "NIKA-BUILTIN-001"  # the check's code for it
    assert err.details["path"] == ["path"]
    assert "`path: 3` is an integer" in err.detail


async def test_missing_required_arg_names_it(make: Callable[..., BuiltinExecutor]):
    err = (await make().call("nika:write", {"path": "a.txt"})).error
    assert err is not None and err.code == "NIKA-BUILTIN-001"
    assert err.details["path"] == ["content"]


async def test_unknown_arg_is_refused(make: Callable[..., BuiltinExecutor]):
    err = (await make().call("nika:jq", {"expression": ".", "query": "."})).error
    assert err is not None and err.code == "NIKA-BUILTIN-001"
    assert "query" in err.detail


async def test_masker_hides_secrets_in_values_and_errors(make: Callable[..., BuiltinExecutor]):
    ex = make(masker=Masker(["hunter2"]))
    ok = await ex.call("nika:jq", {"expression": ".pw", "input": {"pw": "hunter2"}})
    assert ok.structured == "••••••" and "hunter2" not in ok.content
    bad = await ex.call("nika:assert", {"condition": False, "message": "pw hunter2 leaked"})
    assert bad.error is not None and "hunter2" not in bad.error.detail
    assert "hunter2" not in bad.content and "hunter2" not in str(bad.structured)


async def test_a_crash_is_an_internal_error_result(make: Callable[..., BuiltinExecutor]):
    def broken(kind: str, fields: Any) -> None:
        raise RuntimeError("boom")

    # nika:log swallows sink failures by contract; nika:inspect's source does not.
    class Exploding:
        def view(self, name: str) -> Any:
            raise RuntimeError("boom")

    ex = make(events=broken, inspect=Exploding())
    assert not (await ex.call("nika:log", {"message": "hi"})).is_error
    err = (await ex.call("nika:inspect", {"view": "cost"})).error
    assert err is not None and err.code == "NIKA-IMPL-001" and err.category == "internal_error"


async def test_for_task_rebinds_the_effect_owner(make: Callable[..., BuiltinExecutor], judge, base):
    (base / "a.txt").write_text("x")
    await make().for_task("other").call("nika:read", {"path": "a.txt"})
    assert judge.seen[-1].task == "other"


async def test_error_results_carry_transience_and_details(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:read", {"path": "missing.txt"})
    err = result.error
    assert err is not None and err.code == "NIKA-BUILTIN-READ-001"
    assert err.category == "tool_error" and err.transient is False
    # The model reads the same wire shape every executor feeds back.
    assert json.loads(result.content) == err.to_error().to_dict()
    assert (await make().call("nika:uuid", {})).error is None
