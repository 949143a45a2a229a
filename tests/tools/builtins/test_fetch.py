"""nika:fetch against loopback servers the tests start (allowed only through the exact
loopback grant): the SSRF floor on the first request and every redirect hop, the
data-as-code sink, the permits judge, non-2xx handling and request shapes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from nika.tools.builtins import BuiltinExecutor

GRANT = frozenset({"127.0.0.1"})


@pytest.fixture
def fetcher(make: Callable[..., BuiltinExecutor]) -> BuiltinExecutor:
    return make(loopback_grants=GRANT)


async def test_fetch_raw_through_the_loopback_grant(fetcher, server, judge):
    server.route("/hello", "hi there", content_type="text/plain")
    result = await fetcher.call("nika:fetch", {"url": server.url("/hello"), "mode": "raw"})
    assert result.structured == "hi there"
    assert [(e.kind, e.target) for e in judge.seen] == [("net", "127.0.0.1")]
    assert server.requests[0].headers["host"] == f"127.0.0.1:{server.port}"


async def test_loopback_without_a_grant_is_ssrf_blocked_before_connecting(make, server):
    server.route("/", "x")
    err = (await make().call("nika:fetch", {"url": server.url("/")})).error
    assert err is not None and err.code == "NIKA-SEC-005" and err.category == "security_error"
    assert server.requests == []


async def test_localhost_grant_does_not_clear_127_0_0_1(make, server):
    server.route("/", "x")
    ex = make(loopback_grants=frozenset({"localhost"}))
    err = (await ex.call("nika:fetch", {"url": server.url("/")})).error
    assert err is not None and err.code == "NIKA-SEC-005"
    ok = await ex.call("nika:fetch", {"url": f"http://localhost:{server.port}/", "mode": "raw"})
    assert ok.structured == "x"


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.7/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest",
        "http://[::ffff:192.168.1.1]/",
        "http://2130706433/",  # 127.0.0.1 spelled as one integer
    ],
)
async def test_private_addresses_are_refused_before_any_connection(fetcher, url):
    err = (await fetcher.call("nika:fetch", {"url": url})).error
    assert err is not None and err.code == "NIKA-SEC-005"


@pytest.mark.parametrize(
    "target",
    ["http://169.254.169.254/latest/meta-data/iam", "http://10.1.2.3:8080/internal"],
)
async def test_a_redirect_to_a_private_address_is_refused(fetcher, server, target):
    server.route("/go", status=302, location=target)
    err = (await fetcher.call("nika:fetch", {"url": server.url("/go")})).error
    assert err is not None and err.code == "NIKA-SEC-005"
    assert [r.path for r in server.requests] == ["/go"]


async def test_redirects_are_followed_and_every_hop_judged(fetcher, server, judge):
    server.route("/a", status=301, location="/b")
    server.route("/b", status=307, location=server.url("/c"))
    server.route("/c", "done", content_type="text/plain")
    result = await fetcher.call("nika:fetch", {"url": server.url("/a"), "mode": "raw"})
    assert result.structured == "done"
    assert [r.path for r in server.requests] == ["/a", "/b", "/c"]
    assert len([e for e in judge.seen if e.kind == "net"]) == 3


async def test_a_cross_origin_redirect_drops_caller_headers(fetcher, server, server2):
    server.route("/a", status=302, location=server2.url("/b"))
    server.route("/same", status=302, location="/c")
    server.route("/c", "same-origin")
    server2.route("/b", "other origin")
    headers = {"authorization": "Bearer tok", "x-api-key": "k"}
    await fetcher.call("nika:fetch", {"url": server.url("/a"), "headers": headers})
    await fetcher.call("nika:fetch", {"url": server.url("/same"), "headers": headers})
    elsewhere = server2.requests[0].headers
    assert "authorization" not in elsewhere and "x-api-key" not in elsewhere
    assert server.requests[-1].headers["x-api-key"] == "k"


async def test_too_many_redirects(make, server):
    server.route("/loop", status=302, location="/loop")
    ex = make(loopback_grants=GRANT)
    err = (await ex.call("nika:fetch", {"url": server.url("/loop")})).error
    assert err is not None and err.code == "NIKA-BUILTIN-FETCH-001"
    assert "redirected more than" in err.detail


async def test_permits_refusal_comes_first(fetcher, server, judge):
    judge.refuse.add("127.0.0.1")
    err = (await fetcher.call("nika:fetch", {"url": server.url("/")})).error
    assert err is not None and err.code == "NIKA-SEC-004"
    assert server.requests == []


@pytest.mark.parametrize("path", ["/models/legacy.pkl", "/dist/app.JS", "/x/lib.so?v=1"])
async def test_code_bearing_paths_are_refused_unless_lifted(make, server, path):
    blocked = make(loopback_grants=GRANT)
    err = (await blocked.call("nika:fetch", {"url": server.url(path)})).error
    assert err is not None and err.code == "NIKA-SEC-004"
    assert err.details["law"] == "data-as-code" and "lift" in err.detail
    assert server.requests == []
    lifted = make(loopback_grants=GRANT, data_as_code_lifted=True)
    answered = (await lifted.call("nika:fetch", {"url": server.url(path)})).error
    assert answered is not None and answered.code == "NIKA-BUILTIN-FETCH-001"  # the 404


async def test_a_redirect_into_a_code_bearing_path_is_refused(fetcher, server):
    server.route("/latest", status=302, location="/weights.ckpt")
    err = (await fetcher.call("nika:fetch", {"url": server.url("/latest")})).error
    assert err is not None and err.code == "NIKA-SEC-004"
    assert [r.path for r in server.requests] == ["/latest"]


@pytest.mark.parametrize(("status", "transient"), [(503, True), (429, True), (404, False)])
async def test_non_2xx_is_fetch_001(fetcher, server, status, transient):
    server.route("/s", "nope", status=status)
    err = (await fetcher.call("nika:fetch", {"url": server.url("/s")})).error
    assert err is not None and err.code == "NIKA-BUILTIN-FETCH-001"
    assert err.category == "network_error" and err.transient is transient
    assert err.details["status_code"] == status


async def test_post_json_body_and_headers(fetcher, server):
    server.route("/api", '{"ok": true}', content_type="application/json")
    result = await fetcher.call(
        "nika:fetch",
        {
            "url": server.url("/api"),
            "method": "POST",
            "body": {"q": "x"},
            "headers": {"x-api-key": "k"},
            "mode": "jq",
            "jq": ".ok",
        },
    )
    assert result.structured is True
    seen = server.requests[0]
    assert seen.method == "POST" and json.loads(seen.body) == {"q": "x"}
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["x-api-key"] == "k"


async def test_form_and_multipart(fetcher, server, judge, base: Path):
    server.route("/up", "ok")
    (base / "report.txt").write_text("file body")
    await fetcher.call(
        "nika:fetch",
        {"url": server.url("/up"), "method": "POST", "form": {"a": 1, "b": True}, "mode": "raw"},
    )
    await fetcher.call(
        "nika:fetch",
        {
            "url": server.url("/up"),
            "method": "PUT",
            "mode": "raw",
            "multipart": [{"name": "note", "value": "hi"}, {"name": "f", "path": "report.txt"}],
        },
    )
    form, multi = server.requests
    assert form.body == b"a=1&b=true"
    assert form.headers["content-type"] == "application/x-www-form-urlencoded"
    assert b'name="f"; filename="report.txt"' in multi.body and b"file body" in multi.body
    assert ("fs.read", "report.txt") in [(e.kind, e.target) for e in judge.seen]


async def test_multipart_file_outside_the_grant_is_refused(fetcher, server, judge, base):
    (base / "secret.txt").write_text("s")
    judge.refuse.add("secret.txt")
    err = (
        await fetcher.call(
            "nika:fetch",
            {
                "url": server.url("/up"),
                "method": "POST",
                "multipart": [{"name": "f", "path": "secret.txt"}],
            },
        )
    ).error
    assert err is not None and err.code == "NIKA-SEC-004"
    assert server.requests == []


@pytest.mark.parametrize(
    "args",
    [
        {"method": "GET", "form": {"a": 1}},
        {"method": "POST", "body": "x", "form": {"a": 1}},
        {"jq": ".a"},
        {"mode": "selector"},
        {"mode": "llm-txt"},
        {"method": "POST", "form": {"a": 1}, "headers": {"Content-Type": "text/plain"}},
        {"traverse": {"max_pages": 30}},
    ],
)
async def test_request_shape_refusals(fetcher, server, args):
    err = (await fetcher.call("nika:fetch", {"url": server.url("/"), **args})).error
    assert err is not None and err.code == "NIKA-BUILTIN-001"
    assert server.requests == []


async def test_url_must_be_http(fetcher):
    err = (await fetcher.call("nika:fetch", {"url": "file:///etc/passwd"})).error
    assert err is not None and err.code == "NIKA-BUILTIN-001"


async def test_a_redirect_off_http_is_fetch_001(fetcher, server):
    server.route("/x", status=302, location="file:///etc/passwd")
    err = (await fetcher.call("nika:fetch", {"url": server.url("/x")})).error
    assert err is not None and err.code == "NIKA-BUILTIN-FETCH-001"
    assert "file:///etc/passwd" in err.detail
