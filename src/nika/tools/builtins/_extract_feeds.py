"""XML/JSON extract modes of `nika:fetch`: `feed` (RSS 2.0 · RSS 1.0 · Atom · JSON Feed) and
`sitemap` (urlset · sitemap index). XML goes through defusedxml (no entity expansion, no
external entities): a fetched document is untrusted input.
"""

from __future__ import annotations

import json
from typing import Any
from xml.etree.ElementTree import Element

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException

from nika.tools.builtins._http import network_error


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(node: Element, name: str) -> Element | None:
    for child in node:
        if _local(child.tag) == name:
            return child
    return None


def _children(node: Element, name: str) -> list[Element]:
    return [child for child in node if _local(child.tag) == name]


def _text(node: Element, name: str) -> str | None:
    child = _child(node, name)
    if child is None:
        return None
    text = "".join(child.itertext()).strip()
    return text or None


def _xml(body: bytes, url: str, what: str) -> Element:
    try:
        root: Element = ElementTree.fromstring(body)
    except (ElementTree.ParseError, DefusedXmlException) as err:
        raise network_error(
            f"{url} is not a parseable {what} ({err}); check the URL or use `mode: raw`",
            transient=False,
            url=url,
        ) from None
    return root


def _prune(item: dict[str, Any]) -> dict[str, Any]:
    """Absence over null: drop empty fields."""
    return {k: v for k, v in item.items() if v not in (None, "", [], {})}


def _media(node: Element) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for child in node:
        if _local(child.tag) not in ("enclosure", "content") or not child.get("url"):
            continue
        entry: dict[str, Any] = {"url": child.get("url"), "type": child.get("type")}
        for attr, key in (("length", "size"), ("fileSize", "size"), ("duration", "duration_secs")):
            raw = child.get(attr)
            if raw and raw.isdigit():
                entry[key] = int(raw)
        found.append(_prune(entry))
    return found


def _rss_item(node: Element) -> dict[str, Any]:
    return _prune(
        {
            "id": _text(node, "guid") or _text(node, "link"),
            "title": _text(node, "title"),
            "link": _text(node, "link"),
            "author": _text(node, "author") or _text(node, "creator"),
            "summary": _text(node, "description"),
            "content": _text(node, "encoded"),
            "published": _text(node, "pubDate") or _text(node, "date"),
            "categories": [c.text.strip() for c in _children(node, "category") if c.text],
            "media": _media(node),
        }
    )


def _atom_link(node: Element) -> str | None:
    links = _children(node, "link")
    for link in links:
        if link.get("rel", "alternate") == "alternate" and link.get("href"):
            return link.get("href")
    return links[0].get("href") if links else None


def _atom_entry(node: Element) -> dict[str, Any]:
    author = _child(node, "author")
    return _prune(
        {
            "id": _text(node, "id"),
            "title": _text(node, "title"),
            "link": _atom_link(node),
            "author": _text(author, "name") if author is not None else None,
            "summary": _text(node, "summary"),
            "content": _text(node, "content"),
            "published": _text(node, "published") or _text(node, "updated"),
            "categories": [c.get("term") for c in _children(node, "category") if c.get("term")],
            "media": [
                _prune(
                    {
                        "url": link.get("href"),
                        "type": link.get("type"),
                        "size": int(link.get("length", ""))
                        if link.get("length", "").isdigit()
                        else None,
                    }
                )
                for link in _children(node, "link")
                if link.get("rel") == "enclosure"
            ],
        }
    )


def _json_feed(data: dict[str, Any]) -> dict[str, Any]:
    items = []
    for item in data.get("items", []):
        authors = item.get("authors") or ([item["author"]] if item.get("author") else [])
        items.append(
            _prune(
                {
                    "id": item.get("id"),
                    "title": item.get("title"),
                    "link": item.get("url"),
                    "author": authors[0].get("name") if authors else None,
                    "summary": item.get("summary"),
                    "content": item.get("content_html") or item.get("content_text"),
                    "published": item.get("date_published"),
                    "categories": item.get("tags", []),
                    "media": [
                        _prune(
                            {
                                "url": a.get("url"),
                                "type": a.get("mime_type"),
                                "size": a.get("size_in_bytes"),
                                "duration_secs": a.get("duration_in_seconds"),
                            }
                        )
                        for a in item.get("attachments", [])
                    ],
                }
            )
        )
    head = {
        "title": data.get("title"),
        "description": data.get("description"),
        "link": data.get("home_page_url"),
    }
    return _prune(head) | {"items": items}


def feed(body: bytes, url: str) -> dict[str, Any]:
    """`feed`: a normalised `{title, description, link, updated, items: [...]}`."""
    if body.lstrip()[:1] == b"{":
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict) and str(data.get("version", "")).startswith(
            "https://jsonfeed.org"
        ):
            return _json_feed(data)
    root = _xml(body, url, "feed")
    kind = _local(root.tag)
    if kind == "feed":
        entries = [_atom_entry(e) for e in _children(root, "entry")]
        head = {
            "title": _text(root, "title"),
            "description": _text(root, "subtitle"),
            "link": _atom_link(root),
            "updated": _text(root, "updated"),
        }
        return _prune(head) | {"items": entries}
    channel = _child(root, "channel")
    if kind in ("rss", "RDF") and channel is not None:
        holder = channel if kind == "rss" else root
        items = [_rss_item(i) for i in _children(holder, "item")]
        head = {
            "title": _text(channel, "title"),
            "description": _text(channel, "description"),
            "link": _text(channel, "link"),
            "updated": _text(channel, "lastBuildDate") or _text(channel, "pubDate"),
        }
        return _prune(head) | {"items": items}
    raise network_error(
        f"{url} is XML but not RSS, Atom or a JSON Feed (root <{kind}>)", transient=False, url=url
    )


def sitemap(body: bytes, url: str) -> list[dict[str, Any]]:
    """`sitemap`: `[{loc, lastmod?}]` of a urlset, or of the sitemaps of a sitemap index."""
    root = _xml(body, url, "sitemap")
    kind = _local(root.tag)
    if kind not in ("urlset", "sitemapindex"):
        raise network_error(
            f"{url} is not a sitemap (root <{kind}>, expected <urlset> or <sitemapindex>)",
            transient=False,
            url=url,
        )
    entries = _children(root, "url" if kind == "urlset" else "sitemap")
    return [
        _prune({"loc": _text(entry, "loc"), "lastmod": _text(entry, "lastmod")})
        for entry in entries
        if _text(entry, "loc")
    ]
