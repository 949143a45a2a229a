"""nika:fetch traverse: the bounded same-origin crawl."""

from __future__ import annotations

GRANT = frozenset({"127.0.0.1"})


def _site(server) -> None:
    server.route("/robots.txt", "User-agent: *\nDisallow: /private\n")
    server.route(
        "/",
        '<title>Home</title><h1>Welcome</h1><a href="/a">A</a>'
        '<a href="/private/x">P</a><a href="https://elsewhere.example/">E</a>'
        '<a href="/a#frag">A again</a><img src="/logo.png">'
        '<p style="color: #00FF00">green</p>',
        content_type="text/html",
    )
    server.route(
        "/a", '<title>A</title><a href="/b">B</a><a href="/gone">G</a>', content_type="text/html"
    )
    server.route("/b", "<title>B</title>", content_type="text/html")


async def test_crawl_is_bfs_same_origin_and_honours_robots(make, server):
    _site(server)
    ex = make(loopback_grants=GRANT)
    out = (
        await ex.call("nika:fetch", {"url": server.url("/"), "traverse": {"max_pages": 10}})
    ).structured
    origin = f"http://127.0.0.1:{server.port}"
    assert [p["url"] for p in out["pages"]] == [
        f"{origin}/",
        f"{origin}/a",
        f"{origin}/b",
        f"{origin}/gone",
    ]
    assert out["page_count"] == 4
    assert out["pages"][0]["title"] == "Home" and out["pages"][0]["headings"] == ["Welcome"]
    assert out["pages"][3] == {"url": f"{origin}/gone", "status": 404}
    assert out["assets"] == {"images": [f"{origin}/logo.png"], "colors": ["#00ff00"]}
    assert "/private/x" not in [r.path for r in server.requests]


async def test_crawl_stops_at_max_pages(make, server):
    _site(server)
    ex = make(loopback_grants=GRANT)
    out = (
        await ex.call("nika:fetch", {"url": server.url("/"), "traverse": {"max_pages": 2}})
    ).structured
    assert out["page_count"] == 2


async def test_a_disallowed_root_fails_loudly(make, server):
    _site(server)
    ex = make(loopback_grants=GRANT)
    err = (
        await ex.call("nika:fetch", {"url": server.url("/private/x"), "traverse": {"max_pages": 3}})
    ).error
    assert err is not None and err.code == "NIKA-BUILTIN-FETCH-001"
    assert "robots.txt" in err.detail
    ignored = await ex.call(
        "nika:fetch",
        {"url": server.url("/b"), "traverse": {"max_pages": 1, "respect_robots": False}},
    )
    assert ignored.structured["page_count"] == 1


async def test_crawl_without_the_grant_is_ssrf_blocked(make, server):
    _site(server)
    err = (
        await make().call("nika:fetch", {"url": server.url("/"), "traverse": {"max_pages": 2}})
    ).error
    assert err is not None and err.code == "NIKA-SEC-005"
    assert server.requests == []
