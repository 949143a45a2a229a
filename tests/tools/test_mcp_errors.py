"""The translation table: third-party exceptions in, prescriptive `NikaError`s out."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import pydantic
import pytest
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_PARAMS, REQUEST_TIMEOUT

from nika.masking import MASK
from nika.tools._mcp_errors import Phase, StartTimeout, Translated, translate
from nika.tools._mcp_secrets import registry_masker

SECRET = "hunter2-secret-value"


def _translate(exc: BaseException, phase: Phase = "call", **kw: Any) -> Translated:
    args: dict[str, Any] = {
        "server": "srv",
        "tool": "do_it" if phase == "call" else None,
        "how": "srv-cmd --flag",
        "where": "/p/.nika/mcp.json",
        "call_timeout": 7,
        "start_timeout": 3,
        "mask": registry_masker((SECRET,)),
    }
    args.update(kw)
    return translate(exc, phase=phase, **args)


@pytest.mark.parametrize(
    ("exc", "phase", "code", "transient", "lost", "needle"),
    [
        (MCPError(REQUEST_TIMEOUT, "t"), "call", "NIKA-MCP-002", True, False, "within 7s"),
        (MCPError(CONNECTION_CLOSED, "c"), "call", "NIKA-MCP-001", False, True, "closed"),
        (MCPError(INVALID_PARAMS, "bad x"), "call", "NIKA-MCP-002", False, False, "inputSchema"),
        (MCPError(INTERNAL_ERROR, "boom"), "start", "NIKA-MCP-001", False, True, "handshake"),
        (MCPError(INTERNAL_ERROR, "boom"), "call", "NIKA-MCP-002", False, False, "-32603: boom"),
        (StartTimeout(), "start", "NIKA-MCP-001", True, True, "within 3s"),
        (httpx2.ConnectError("refused"), "start", "NIKA-MCP-001", True, True, "fix its 'url'"),
        (httpx2.ReadTimeout("slow"), "call", "NIKA-MCP-001", True, True, "stopped responding"),
        (FileNotFoundError(2, "nope"), "start", "NIKA-MCP-001", False, True, "PATH"),
        (anyio.BrokenResourceError(), "call", "NIKA-MCP-001", False, True, "broke"),
        (RuntimeError("odd"), "start", "NIKA-MCP-001", False, True, "failed to start"),
        (RuntimeError("odd"), "call", "NIKA-MCP-002", False, False, "inside the MCP client"),
    ],
)
def test_rows(
    exc: BaseException, phase: Phase, code: str, transient: bool, lost: bool, needle: str
) -> None:
    out = _translate(exc, phase)
    assert (out.error.code, out.error.transient, out.lost) == (code, transient, lost)
    assert needle in out.error.detail
    assert out.error.category == "tool_error"
    assert out.error.details["server"] == "srv"


def test_exception_groups_are_unwrapped_to_their_first_leaf() -> None:
    group = ExceptionGroup("tg", [ExceptionGroup("inner", [httpx2.ConnectError("x")])])
    assert "cannot connect" in _translate(group, "start").error.detail


def test_invalid_replies_are_call_failures() -> None:
    class Reply(pydantic.BaseModel):
        n: int

    with pytest.raises(pydantic.ValidationError) as err:
        Reply.model_validate({"n": "many"})
    out = _translate(err.value)
    assert (out.error.code, out.lost) == ("NIKA-MCP-002", False)
    assert "not valid MCP" in out.error.detail


def test_secrets_are_masked_and_the_stderr_tail_is_added_when_the_server_is_down() -> None:
    down = _translate(MCPError(CONNECTION_CLOSED, f"closed {SECRET}"), tail=f"panic: {SECRET}")
    assert SECRET not in down.error.detail
    assert f"Its stderr ended with: panic: {MASK}" in down.error.detail
    failed = _translate(MCPError(INTERNAL_ERROR, "boom"), tail="irrelevant")
    assert "stderr" not in failed.error.detail
