"""`nika:fetch` — HTTP request + content extraction (stdlib §nika:fetch, extract-modes-v0.1).

The args reach `run` judged by their declaration (`nika.stdlib.net`: the method, one of
body/form/multipart, the mode and its arg, the crawl's bounds); every hop is gated by `_http`
(permits → data-as-code → SSRF floor); a non-2xx final status is `NIKA-BUILTIN-FETCH-001`
(transient for 5xx/408/429); then the `mode:` extracts. `traverse:` (the bounded crawl) lives
in `_crawl`.
"""

from __future__ import annotations

import json
import uuid as std_uuid
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlencode

from nika import codes
from nika.errors import NikaError
from nika.stdlib import CONTRACT
from nika.stdlib.net import FETCH
from nika.syntax.binding import apply_jq
from nika.tools.builtins import _extract_feeds, _extract_html
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._crawl import crawl
from nika.tools.builtins._files import offload, read_bytes
from nika.tools.builtins._http import Outgoing, Response, network_error, request, status_error
from nika.tools.builtins._paths import judged

_MAX_MULTIPART: Final = 32 * 1024 * 1024


def _form_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


async def _multipart(args: Mapping[str, Any], ctx: Context) -> tuple[bytes, str]:
    """Encode the `multipart:` parts (file parts read through the fs.read judge)."""
    parts = args["multipart"]
    boundary = f"nika-{std_uuid.UUID(bytes=ctx.random_bytes(16)).hex}"
    out = bytearray()
    for part in parts:
        name = part["name"].replace('"', "%22")
        if "path" in part:
            path = judged(ctx, part["path"], "fs.read", "multipart")
            # The whole body is capped below; each file read is capped at the same size.
            data = await read_bytes(
                path,
                part["path"],
                _MAX_MULTIPART,
                io=codes.BUILTIN_READ_002,
                missing=(codes.BUILTIN_READ_002, "check the multipart part's `path:`"),
            )
            filename = part.get("filename", path.real.name).replace('"', "%22")
            head = (
                f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                f"Content-Type: {part.get('content_type', 'application/octet-stream')}\r\n"
            )
        else:
            data = _form_value(part["value"]).encode()
            head = f'Content-Disposition: form-data; name="{name}"\r\n'
        out += f"--{boundary}\r\n{head}\r\n".encode() + data + b"\r\n"
        if len(out) > _MAX_MULTIPART:
            raise fail(CONTRACT, f"`multipart:` exceeds {_MAX_MULTIPART} bytes", arg="multipart")
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


async def outgoing(args: Mapping[str, Any], ctx: Context) -> Outgoing:
    """The request as the args shape it (body encoded, content-type set)."""
    headers = {str(k): str(v) for k, v in args.get("headers", {}).items()}
    has_type = any(k.lower() == "content-type" for k in headers)
    content: bytes | None = None
    if "body" in args:
        body = args["body"]
        if isinstance(body, bytes | bytearray):
            content = bytes(body)
        elif isinstance(body, str):
            content = body.encode()
        else:
            content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
            if not has_type:
                headers["content-type"] = "application/json"
    elif "form" in args:
        content = urlencode({k: _form_value(v) for k, v in args["form"].items()}).encode()
        headers["content-type"] = "application/x-www-form-urlencoded"
    elif "multipart" in args:
        content, headers["content-type"] = await _multipart(args, ctx)
    return Outgoing(args.get("method", "GET"), args["url"], headers, content)


def decode(response: Response, *, strict: bool) -> str:
    """The body as text: the declared charset (UTF-8 by default); `strict` fails on bad bytes."""
    charset = response.charset or "utf-8"
    try:
        return response.body.decode(charset, errors="strict" if strict else "replace")
    except LookupError:
        return response.body.decode("utf-8", errors="strict" if strict else "replace")
    except UnicodeDecodeError:
        raise network_error(
            f"{response.url} returned a body that is not {charset} text; `raw` "
            "is text only — download binaries with an `exec:` task",
            transient=False,
            url=str(response.url),
        ) from None


def extract(response: Response, args: Mapping[str, Any]) -> Any:
    """Apply the `mode:` to a 2xx response."""
    mode, url = args.get("mode", "markdown"), str(response.url)
    if mode == "raw":
        return decode(response, strict=True)
    if mode == "jq":
        try:
            data = json.loads(decode(response, strict=True))
        except ValueError:
            raise network_error(
                f"{url} did not return JSON (content-type "
                f"{response.content_type or 'unset'}); `mode: jq` reads JSON",
                transient=False,
                url=url,
            ) from None
        try:
            return apply_jq(args["jq"], data)
        except NikaError as err:
            if err.code == codes.VAR_005:
                raise
            raise network_error(err.detail, transient=False, url=url) from None
    if mode == "feed":
        return _extract_feeds.feed(response.body, url)
    if mode == "sitemap":
        return _extract_feeds.sitemap(response.body, url)
    html = decode(response, strict=False)
    if mode == "markdown":
        return _extract_html.to_markdown(html, url)
    if mode == "article":
        return _extract_html.to_article(html, url)
    if mode == "text":
        return _extract_html.to_text(html)
    if mode == "selector":
        return _extract_html.select(html, args["selector"])
    if mode == "metadata":
        return _extract_html.metadata(html, url)
    return _extract_html.links(html, url)


async def run(args: Mapping[str, Any], ctx: Context) -> Any:
    """Fetch and extract (or crawl, with `traverse:`)."""
    if "traverse" in args:
        return await crawl(ctx, args["url"], args["traverse"], args.get("headers", {}))
    response = await request(ctx, await outgoing(args, ctx))
    if not 200 <= response.status < 300:
        raise status_error(response)
    if args.get("method", "GET") == "HEAD":
        return {"status": response.status, "headers": dict(sorted(response.headers.items()))}
    # Parsing up to 32 MiB of HTML is seconds of CPU: never on the event loop.
    return await offload(lambda stop: extract(response, args))


BUILTIN = Builtin(
    FETCH,
    description=(
        "HTTP request + extraction. `url` (http/https), `method` (GET default), `headers`, one "
        "of `body` (objects sent as JSON) / `form` / `multipart`; `mode`: markdown (default), "
        "article, text, selector (+`selector`), jq (+`jq`), metadata, links, feed, sitemap, "
        "raw. `traverse: {max_pages}` crawls same-origin pages. Non-2xx fails."
    ),
    run=run,
)
