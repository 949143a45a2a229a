"""The extract modes of nika:fetch, over pages a loopback server serves."""

from __future__ import annotations

import pytest

GRANT = frozenset({"127.0.0.1"})

PAGE = """<!doctype html>
<html lang="en"><head>
<title>Widget launch</title>
<base href="/blog/">
<meta name="description" content="All about widgets">
<meta property="og:image" content="/img/og.png">
<meta name="twitter:card" content="summary">
<meta property="article:published_time" content="2026-06-01T10:00:00Z">
<link rel="canonical" href="/blog/widget">
<link rel="alternate" hreflang="fr" href="/fr/widget">
<link rel="icon" href="/favicon.ico">
<script type="application/ld+json">{"@type": "Article", "headline": "Widget"}</script>
<script>var tracking = 1;</script>
<style>.x { color: #ff0000 }</style>
</head><body>
<nav><a href="/home">Home</a></nav>
<article>
  <h1>Widgets are here</h1>
  <p>The <b>new</b> widget ships <a href="post-2#top">today</a>.</p>
  <img data-src="hero.png" src="placeholder.gif">
  <div class="share-buttons"><a href="https://social.example/share">Share</a></div>
</article>
<div itemscope itemtype="https://schema.org/Product">
  <span itemprop="name">Widget</span>
  <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
    <meta itemprop="price" content="19.99">
  </div>
</div>
<footer>© footer text</footer>
</body></html>"""


@pytest.fixture
async def page(server):
    server.route("/blog/post", PAGE, content_type="text/html; charset=utf-8")
    return server.url("/blog/post")


async def _get(make, url: str, **args):
    return await make(loopback_grants=GRANT).call("nika:fetch", {"url": url, **args})


async def test_markdown_drops_chrome_and_scripts(make, page, server):
    md = (await _get(make, page)).structured
    assert "# Widgets are here" in md and "**new**" in md
    assert "tracking" not in md and "footer text" not in md and "Home" not in md
    assert f"http://127.0.0.1:{server.port}/blog/hero.png" in md  # lazy image, base-resolved


async def test_article_keeps_the_body_and_prunes_share_widgets(make, page):
    md = (await _get(make, page, mode="article")).structured
    assert "Widgets are here" in md and "Share" not in md and "Widget\n" not in md


async def test_text_strips_all_tags(make, page):
    text = (await _get(make, page, mode="text")).structured
    assert "Widgets are here" in text and "<" not in text and "tracking" not in text


async def test_selector_returns_outer_html(make, page):
    html = (await _get(make, page, mode="selector", selector="article h1")).structured
    assert html == "<h1>Widgets are here</h1>"
    bad = (await _get(make, page, mode="selector", selector="h1[[")).error
    assert bad is not None and bad.code == "NIKA-BUILTIN-001"


async def test_links_resolve_against_the_base_href(make, page, server):
    links = (await _get(make, page, mode="links")).structured
    origin = f"http://127.0.0.1:{server.port}"
    assert links == [f"{origin}/home", f"{origin}/blog/post-2", "https://social.example/share"]


async def test_metadata_shape(make, page, server):
    meta = (await _get(make, page, mode="metadata")).structured
    origin = f"http://127.0.0.1:{server.port}"
    assert meta["title"] == "Widget launch" and meta["description"] == "All about widgets"
    assert meta["og"] == {"image": f"{origin}/img/og.png"}
    assert meta["twitter"] == {"card": "summary"}
    assert meta["canonical"] == f"{origin}/blog/widget" and meta["lang"] == "en"
    assert meta["favicon"] == f"{origin}/favicon.ico"
    assert meta["published_time"] == "2026-06-01T10:00:00Z"
    assert meta["alternates"] == [{"href": f"{origin}/fr/widget", "hreflang": "fr"}]
    assert meta["jsonld"] == [{"@type": "Article", "headline": "Widget"}]
    product = meta["microdata"][0]
    assert product["type"] == ["https://schema.org/Product"]
    assert product["properties"]["name"] == ["Widget"]
    assert product["properties"]["offers"][0]["properties"]["price"] == ["19.99"]
    assert "author" not in meta  # absence over null


async def test_jq_mode_exactly_one_output(make, server):
    server.route(
        "/api", '{"users": [{"email": "a@x"}, {"email": "b@x"}]}', content_type="application/json"
    )
    ok = await _get(make, server.url("/api"), mode="jq", jq="[.users[].email]")
    many = (await _get(make, server.url("/api"), mode="jq", jq=".users[].email")).error
    assert ok.structured == ["a@x", "b@x"]
    assert many is not None and many.code == "NIKA-BUILTIN-FETCH-001"
    server.route("/html", "<p>no json</p>")
    not_json = (await _get(make, server.url("/html"), mode="jq", jq=".")).error
    assert not_json is not None and not_json.code == "NIKA-BUILTIN-FETCH-001"


async def test_raw_refuses_non_utf8(make, server):
    server.route("/bin", b"\xff\xfe\x00")
    err = (await _get(make, server.url("/bin"), mode="raw")).error
    assert err is not None and err.code == "NIKA-BUILTIN-FETCH-001"


RSS = """<?xml version="1.0"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>Feed</title><link>https://ex.com</link><description>d</description>
<item><title>One</title><link>https://ex.com/1</link><guid>g1</guid>
<description>short</description><content:encoded>full body</content:encoded>
<category>news</category>
<enclosure url="https://ex.com/1.mp3" type="audio/mpeg" length="123"/></item>
</channel></rss>"""

ATOM = """<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">
<title>A</title><updated>2026-01-01T00:00:00Z</updated><link href="https://ex.com/"/>
<entry><id>e1</id><title>Entry</title><link href="https://ex.com/e1"/>
<author><name>Ann</name></author><summary>s</summary></entry></feed>"""

SITEMAP = """<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://ex.com/</loc><lastmod>2026-05-20</lastmod></url>
<url><loc>https://ex.com/about</loc></url></urlset>"""


async def test_feed_rss_atom_and_json_feed(make, server):
    server.route("/rss", RSS)
    server.route("/atom", ATOM)
    server.route(
        "/json",
        '{"version": "https://jsonfeed.org/version/1.1", "title": "J", '
        '"items": [{"id": "1", "content_html": "<p>x</p>"}]}',
    )
    rss = (await _get(make, server.url("/rss"), mode="feed")).structured
    atom = (await _get(make, server.url("/atom"), mode="feed")).structured
    jf = (await _get(make, server.url("/json"), mode="feed")).structured
    assert rss["title"] == "Feed" and rss["items"] == [
        {
            "id": "g1",
            "title": "One",
            "link": "https://ex.com/1",
            "summary": "short",
            "content": "full body",
            "categories": ["news"],
            "media": [{"url": "https://ex.com/1.mp3", "type": "audio/mpeg", "size": 123}],
        }
    ]
    assert atom["items"] == [
        {"id": "e1", "title": "Entry", "link": "https://ex.com/e1", "author": "Ann", "summary": "s"}
    ]
    assert jf == {"title": "J", "items": [{"id": "1", "content": "<p>x</p>"}]}


async def test_sitemap_and_xml_bombs(make, server):
    server.route("/sitemap.xml", SITEMAP)
    urls = (await _get(make, server.url("/sitemap.xml"), mode="sitemap")).structured
    assert urls == [
        {"loc": "https://ex.com/", "lastmod": "2026-05-20"},
        {"loc": "https://ex.com/about"},
    ]
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>'
        "<urlset><url><loc>&b;</loc></url></urlset>"
    )
    server.route("/bomb.xml", bomb)
    err = (await _get(make, server.url("/bomb.xml"), mode="sitemap")).error
    assert err is not None and err.code == "NIKA-BUILTIN-FETCH-001"
