"""HTML extract modes of `nika:fetch` (stdlib/extract-modes-v0.1): markdown · article · text ·
selector · metadata · links. Parsing is BeautifulSoup over the standard library's parser, CSS
selection is soupsieve, Markdown rendering is markdownify.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final
from urllib.parse import urljoin

from bs4 import BeautifulSoup, Tag
from markdownify import markdownify

_NEVER_CONTENT: Final = ("script", "style", "noscript", "template", "iframe", "svg", "canvas")
_CHROME: Final = ("nav", "footer", "aside", "form", "dialog")
_BOILERPLATE: Final = re.compile(
    r"(^|[-_\s])(nav|menu|sidebar|footer|share|social|related|comments?|advert|ads?|promo|"
    r"cookie|banner|newsletter|subscribe|breadcrumbs?)([-_\s]|$)",
    re.IGNORECASE,
)


def parse(html: str) -> BeautifulSoup:
    """The document tree (the stdlib parser: no native dependency)."""
    return BeautifulSoup(html, "html.parser")


def effective_base(soup: BeautifulSoup, url: str) -> str:
    """The document's base URL: `<base href>` when present (WHATWG), else the fetch URL."""
    base = soup.find("base", href=True)
    if isinstance(base, Tag):
        return urljoin(url, str(base["href"]))
    return url


def _drop(soup: BeautifulSoup | Tag, names: tuple[str, ...]) -> None:
    for tag in soup.find_all(list(names)):
        tag.decompose()


def _largest_srcset(srcset: str) -> str | None:
    best: tuple[float, str] | None = None
    for candidate in srcset.split(","):
        bits = candidate.strip().split()
        if not bits:
            continue
        size = 1.0
        if len(bits) > 1 and bits[1][:-1].replace(".", "", 1).isdigit():
            size = float(bits[1][:-1])
        if best is None or size > best[0]:
            best = (size, bits[0])
    return best[1] if best else None


def _absolutise(root: BeautifulSoup | Tag, base: str) -> None:
    """Lazy images resolve to their real (largest) source; links and images become absolute."""
    for img in root.find_all("img"):
        src = (
            img.get("data-src")
            or _largest_srcset(str(img.get("srcset") or img.get("data-srcset") or ""))
            or img.get("src")
        )
        if src:
            img["src"] = urljoin(base, str(src))
    for a in root.find_all("a", href=True):
        a["href"] = urljoin(base, str(a["href"]))


def _markdown(root: BeautifulSoup | Tag) -> str:
    text = markdownify(str(root), heading_style="ATX", bullets="-", strip=["button"])
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def to_markdown(html: str, url: str) -> str:
    """`markdown`: the page as Markdown, without scripts, styles and site chrome."""
    soup = parse(html)
    base = effective_base(soup, url)
    _drop(soup, _NEVER_CONTENT + _CHROME)
    _absolutise(soup, base)
    body = soup.body or soup
    return _markdown(body)


def _text_len(tag: Tag) -> int:
    return len(tag.get_text(" ", strip=True))


def _is_boilerplate(tag: Tag) -> bool:
    if tag.attrs is None:
        return False
    marks = " ".join(
        [
            str(tag.get("id") or ""),
            *[str(c) for c in tag.get("class") or []],
            str(tag.get("role") or ""),
        ]
    )
    return bool(_BOILERPLATE.search(marks))


def _main_zone(soup: BeautifulSoup) -> Tag:
    """The content container: the largest `<article>`, else `<main>`/`[role=main]`, else the
    block with the most paragraph text (the shallow text-density floor)."""
    for selector in ("article", "main", "[role=main]"):
        found = [t for t in soup.select(selector) if _text_len(t) > 0]
        if found:
            return max(found, key=_text_len)
    best: Tag | None = None
    best_score = 0
    for block in soup.find_all(["div", "section", "td"]):
        score = sum(_text_len(p) for p in block.find_all("p", recursive=False))
        if score > best_score:
            best, best_score = block, score
    return best or soup.body or soup


def to_article(html: str, url: str) -> str:
    """`article`: the main content block only, boilerplate pruned, as Markdown."""
    soup = parse(html)
    base = effective_base(soup, url)
    _drop(soup, _NEVER_CONTENT)
    zone = _main_zone(soup)
    _drop(zone, _CHROME)
    for tag in zone.find_all(True):
        if not tag.decomposed and _is_boilerplate(tag):
            tag.decompose()
    _absolutise(zone, base)
    return _markdown(zone)


def to_text(html: str) -> str:
    """`text`: every tag stripped, one line per text block, blank runs collapsed."""
    soup = parse(html)
    _drop(soup, _NEVER_CONTENT)
    lines = (line.strip() for line in soup.get_text("\n").splitlines())
    return "\n".join(line for line in lines if line) + "\n"


def select(html: str, selector: str) -> str:
    """`selector`: the outer HTML of every match, in document order, newline-joined (a
    selector that does not compile never gets here: its declaration refuses it)."""
    return "\n".join(str(tag) for tag in parse(html).select(selector))


def links(html: str, url: str) -> list[str]:
    """`links`: every `<a href>` resolved against the effective base, first-seen order."""
    soup = parse(html)
    base = effective_base(soup, url)
    seen: dict[str, None] = {}
    for a in soup.find_all("a", href=True):
        href = str(a["href"]).strip()
        if href and not href.lower().startswith(("javascript:", "data:")):
            seen.setdefault(urljoin(base, href).split("#", 1)[0] or base, None)
    return list(seen)


def _meta(soup: BeautifulSoup, attr: str, key: str) -> str | None:
    tag = soup.find("meta", attrs={attr: key})
    if isinstance(tag, Tag) and tag.get("content") is not None:
        return str(tag["content"]).strip()
    return None


def _prefixed(soup: BeautifulSoup, prefix: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for tag in soup.find_all("meta"):
        key = str(tag.get("property") or tag.get("name") or "")
        if key.startswith(prefix) and tag.get("content") is not None:
            out.setdefault(key[len(prefix) :], str(tag["content"]).strip())
    return out


def _microdata_item(item: Tag, base: str) -> dict[str, Any]:
    props: dict[str, list[Any]] = {}
    for prop in item.find_all(itemprop=True):
        owner = prop.find_parent(itemscope=True)
        if owner is not item:
            continue
        if prop.has_attr("itemscope"):
            value: Any = _microdata_item(prop, base)
        elif prop.name == "meta":
            value = str(prop.get("content", ""))
        elif prop.name in ("a", "link", "area") and prop.get("href"):
            value = urljoin(base, str(prop["href"]))
        elif prop.name in ("img", "audio", "video", "source") and prop.get("src"):
            value = urljoin(base, str(prop["src"]))
        elif prop.name == "time" and prop.get("datetime"):
            value = str(prop["datetime"])
        else:
            value = prop.get("content") or prop.get_text(" ", strip=True)
        for name in str(prop["itemprop"]).split():
            props.setdefault(name, []).append(value)
    out: dict[str, Any] = {"properties": props}
    if item.get("itemtype"):
        out = {"type": str(item["itemtype"]).split(), **out}
    return out


def metadata(html: str, url: str) -> dict[str, Any]:
    """`metadata`: title, description, og, twitter, canonical, lang, author, dates, favicon,
    alternates, JSON-LD and microdata — keys present only when the page carries them."""
    soup = parse(html)
    base = effective_base(soup, url)
    og, twitter = _prefixed(soup, "og:"), _prefixed(soup, "twitter:")
    for group, keys in ((og, ("image", "url")), (twitter, ("image",))):
        for key in keys:
            if key in group:
                group[key] = urljoin(base, group[key])
    out: dict[str, Any] = {"og": og, "twitter": twitter}
    title = soup.title.get_text(strip=True) if soup.title else None
    scalars = {
        "title": title or og.get("title") or twitter.get("title"),
        "description": _meta(soup, "name", "description")
        or og.get("description")
        or twitter.get("description"),
        "author": _meta(soup, "name", "author") or _meta(soup, "property", "article:author"),
        "published_time": _meta(soup, "property", "article:published_time"),
    }
    out.update({k: v for k, v in scalars.items() if v})
    html_tag = soup.find("html")
    if isinstance(html_tag, Tag) and html_tag.get("lang"):
        out["lang"] = str(html_tag["lang"])
    for rel, key in (("canonical", "canonical"), ("icon", "favicon"), ("shortcut icon", "favicon")):
        link = soup.find(
            "link",
            rel=lambda r, rel=rel: (
                r is not None and " ".join(r if isinstance(r, list) else [r]).lower() == rel
            ),
            href=True,
        )
        if isinstance(link, Tag) and key not in out:
            out[key] = urljoin(base, str(link["href"]))
    alternates = [
        {"href": urljoin(base, str(link["href"])), "hreflang": str(link["hreflang"])}
        for link in soup.find_all("link", rel="alternate", href=True, hreflang=True)
    ]
    if alternates:
        out["alternates"] = alternates
    jsonld: list[Any] = []
    for script in soup.find_all("script", type="application/ld+json"):
        try:
            data = json.loads(script.string or "")
        except ValueError:
            continue  # a broken block is skipped: the others still carry data
        jsonld.extend(data if isinstance(data, list) else [data])
    if jsonld:
        out["jsonld"] = jsonld
    items = [
        _microdata_item(tag, base)
        for tag in soup.find_all(itemscope=True)
        if not tag.has_attr("itemprop")
    ]
    if items:
        out["microdata"] = items
    return out
