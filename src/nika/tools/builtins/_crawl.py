"""`nika:fetch traverse:` — a bounded same-origin BFS crawl (stdlib §`traverse` semantics).

Every page request rides the same gated transport as a single fetch (permits, data-as-code,
SSRF floor on each hop). `robots.txt` is honoured by default (the `User-agent: *` group's
`Disallow` prefixes; missing or unreadable means allow-all); a disallowed ROOT fails loudly,
disallowed descendants are skipped. A failing descendant becomes an honest `{url, status}` /
`{url, error}` entry and the crawl goes on.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

import httpx2

from nika.errors import NikaError
from nika.tools.builtins import _extract_html
from nika.tools.builtins._base import Context
from nika.tools.builtins._http import Outgoing, network_error, parse_url, request

_COLOR: Final = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|rgba?\([^)]*\)")


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _strip_fragment(url: str) -> str:
    return url.split("#", 1)[0]


def robots_disallows(text: str) -> list[str]:
    """The `Disallow` prefixes of the `User-agent: *` group(s) (RFC 9309, prefixes only)."""
    prefixes: list[str] = []
    agents: list[str] = []
    in_rules = False
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip()
        if key == "user-agent":
            if in_rules:
                agents, in_rules = [], False
            agents.append(value)
        elif key in ("disallow", "allow"):
            in_rules = True
            if key == "disallow" and value and "*" in agents:
                prefixes.append(value)
    return prefixes


async def _robots(ctx: Context, root: httpx2.URL, headers: Mapping[str, str]) -> list[str]:
    probe = str(root.copy_with(path="/robots.txt", query=None, fragment=None))
    try:
        response = await request(ctx, Outgoing("GET", probe, headers))
    except NikaError as err:
        if err.category == "security_error":
            raise
        return []  # unreachable robots.txt: allow-all
    if not 200 <= response.status < 300:
        return []
    return robots_disallows(response.body.decode("utf-8", errors="replace"))


def page_summary(url: str, status: int, html: str) -> tuple[dict[str, Any], list[str]]:
    """The fixed per-page summary, and the page's same-document links (absolute)."""
    soup = _extract_html.parse(html)
    base = _extract_html.effective_base(soup, url)
    meta = _extract_html.metadata(html, url)
    links = _extract_html.links(html, url)
    images = list(
        dict.fromkeys(urljoin(base, str(img["src"])) for img in soup.find_all("img", src=True))
    )
    styles = " ".join(
        [
            *(s.get_text() for s in soup.find_all("style")),
            *(str(t["style"]) for t in soup.find_all(style=True)),
        ]
    )
    colors = list(dict.fromkeys(c.lower() for c in _COLOR.findall(styles)))
    headings = [h.get_text(" ", strip=True) for h in soup.find_all(["h1", "h2", "h3"])]
    page = {
        "url": url,
        "status": status,
        "title": meta.get("title"),
        "description": meta.get("description"),
        "headings": [h for h in headings if h][:16],
        "links": links[:30],
        "images": images[:24],
        "colors": colors[:20],
        "text": _extract_html.to_text(html)[:4000],
    }
    return page, links


async def crawl(
    ctx: Context, start: str, options: Mapping[str, Any], headers: Mapping[str, Any]
) -> dict[str, Any]:
    """BFS from `start` over same-origin links, at most `max_pages` pages."""
    root = parse_url(start)
    sent = {str(k): str(v) for k, v in headers.items()}
    disallowed = await _robots(ctx, root, sent) if options.get("respect_robots", True) else []

    def allowed(url: httpx2.URL) -> bool:
        return not any(url.path.startswith(prefix) for prefix in disallowed)

    if not allowed(root):
        raise network_error(
            f"robots.txt of {root.host} disallows {root.path!r}; crawl an "
            "allowed page or set `respect_robots: false` if you own the site",
            transient=False,
            url=start,
        )
    queue: deque[str] = deque([_strip_fragment(str(root))])
    seen = set(queue)
    pages: list[dict[str, Any]] = []
    images: dict[str, None] = {}
    colors: dict[str, None] = {}
    while queue and len(pages) < options["max_pages"]:
        url = queue.popleft()
        try:
            response = await request(ctx, Outgoing("GET", url, sent))
        except NikaError as err:
            if not pages or err.category == "security_error":
                raise
            pages.append({"url": url, "error": err.code})
            continue
        if not 200 <= response.status < 300:
            if not pages:
                raise network_error(
                    f"the crawl root {url} answered HTTP {response.status}",
                    transient=response.status >= 500,
                    url=url,
                    status_code=response.status,
                )
            pages.append({"url": url, "status": response.status})
            continue
        page, links = page_summary(
            str(response.url),
            response.status,
            response.body.decode(response.charset or "utf-8", "replace"),
        )
        pages.append(page)
        images.update(dict.fromkeys(page["images"]))
        colors.update(dict.fromkeys(page["colors"]))
        for link in links:
            target = _strip_fragment(link)
            if target in seen or urlsplit(target).scheme not in ("http", "https"):
                continue
            parsed = httpx2.URL(target)
            if _origin(parsed) == _origin(root) and allowed(parsed):
                seen.add(target)
                queue.append(target)
    return {
        "url": str(root),
        "page_count": len(pages),
        "pages": pages,
        "assets": {"images": list(images)[:40], "colors": list(colors)[:30]},
    }
