"""The executor under the real `PermitJudge` — the runtime fixtures' refusals, end to end."""

from __future__ import annotations

from pathlib import Path

from nika.check.judge import PermitJudge
from nika.tools.builtins import BuiltinExecutor, Context


def _executor(base: Path, permits: dict) -> BuiltinExecutor:
    judge = PermitJudge.from_permits(permits)
    return BuiltinExecutor(
        Context(base_dir=base, judge=judge, task="t", loopback_grants=judge.loopback_hosts())
    )


async def test_untrusted_path_escape_is_sec_004(base: Path):
    ex = _executor(base, {"fs": {"read": ["datasets/**"]}, "tools": ["nika:read"]})
    (base / "datasets").mkdir()
    (base / "datasets" / "a.csv").write_text("x")
    assert (await ex.call("nika:read", {"path": "datasets/a.csv"})).structured == "x"
    err = (await ex.call("nika:read", {"path": "../../etc/shadow"})).error
    assert err is not None and err.code == "NIKA-SEC-004"


async def test_dynamic_host_outside_net_http_is_sec_004(base: Path):
    ex = _executor(base, {"net": {"http": ["allowed.example.com"]}})
    err = (
        await ex.call("nika:fetch", {"url": "https://evil.example.net/payload", "mode": "text"})
    ).error
    assert err is not None and err.code == "NIKA-SEC-004"


async def test_code_bearing_fetch_is_sec_004_before_dns(base: Path):
    ex = _executor(base, {"net": {"http": ["data.example.com"]}})
    err = (
        await ex.call("nika:fetch", {"url": "https://data.example.com/models/legacy.pkl"})
    ).error
    assert err is not None and err.code == "NIKA-SEC-004"
    assert "data-as-code" in err.detail


async def test_glob_root_and_write_grant(base: Path):
    ex = _executor(base, {"fs": {"read": ["./docs/**"], "write": ["out/**"]}})
    (base / "docs").mkdir()
    (base / "docs" / "a.md").write_text("a")
    assert (await ex.call("nika:glob", {"pattern": "docs/*.md"})).structured == ["docs/a.md"]
    wrote = await ex.call("nika:write", {"path": "out/deep/x.txt", "content": "x"})
    assert wrote.structured == "out/deep/x.txt"
    refused = (await ex.call("nika:write", {"path": "elsewhere.txt", "content": "x"})).error
    assert refused is not None and refused.code == "NIKA-SEC-004"


async def test_exact_loopback_grant_reaches_a_local_server(base: Path, server):
    server.route("/", "local", content_type="text/plain")
    ex = _executor(base, {"net": {"http": ["127.0.0.1"]}})
    assert (
        await ex.call("nika:fetch", {"url": server.url("/"), "mode": "raw"})
    ).structured == "local"
    server.route("/hop", status=302, location="http://192.168.0.1/")
    err = (await ex.call("nika:fetch", {"url": server.url("/hop")})).error
    assert err is not None and err.code == "NIKA-SEC-005"  # the floor speaks before the grant
