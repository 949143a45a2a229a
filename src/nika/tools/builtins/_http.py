"""The guarded HTTP transport under `nika:fetch` and `nika:notify`.

Every hop — the first request and each redirect — passes the same gates BEFORE a byte leaves:

1. the permits judge rules on the `net` effect for the hop's host (`NIKA-SEC-004`);
2. the data-as-code sink: a code-bearing final extension is refused unless the task lifted
   that law (`NIKA-SEC-004` at run, 10-authority §the data-as-code sink);
3. the SSRF floor: the host is resolved and EVERY address must be public, save the author's
   exact loopback grant (`NIKA-SEC-005`).

The connection then goes to the address that was judged (the URL's host is swapped for the IP,
the `Host` header and TLS SNI keep the name), so a second DNS answer cannot rebind the request
to an address nobody judged. Redirects are followed by hand for the same reason; a redirect to
another origin drops the caller's headers, so credentials never follow a hop the author did
not name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import httpx2

from nika import codes
from nika.check.effects import Effect
from nika.errors import NikaError
from nika.netfloor import UnresolvableHost, code_bearing_class, resolve_and_check
from nika.stdlib import CONTRACT
from nika.tools.builtins._base import Context, fail
from nika.tools.builtins._paths import judge_effect
from nika.tools.builtins._provider_wire import transient_status

_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One request as the caller shaped it (the body already encoded)."""

    method: str
    url: str
    headers: Mapping[str, str]
    content: bytes | None = None


@dataclass(frozen=True, slots=True)
class Response:
    """The final response: where it came from, its status, headers and (capped) body."""

    url: httpx2.URL
    status: int
    headers: httpx2.Headers
    body: bytes

    @property
    def content_type(self) -> str:
        return str(self.headers.get("content-type", "")).split(";", 1)[0].strip().lower()

    @property
    def charset(self) -> str | None:
        for part in str(self.headers.get("content-type", "")).split(";")[1:]:
            key, _, value = part.strip().partition("=")
            if key.lower() == "charset" and value:
                return str(value.strip("\"'"))
        return None


def network_error(detail: str, *, transient: bool, **details: Any) -> NikaError:
    """A `NIKA-BUILTIN-FETCH-001` network failure, transience engine-assessed."""
    return NikaError(
        codes.BUILTIN_FETCH_001,
        detail,
        category="network_error",
        transient=transient,
        details=details or None,
    )


def parse_url(raw: str) -> httpx2.URL:
    """An absolute http(s) URL, or `NIKA-BUILTIN-001` naming what is wrong (the declarations
    judged the URL already; this is the transport's own reading of it)."""
    try:
        url = httpx2.URL(raw)
    except (httpx2.InvalidURL, TypeError):
        raise fail(CONTRACT, f"`url: {raw!r}` is not a valid URL", arg="url") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise fail(
            CONTRACT,
            f"`url: {raw!r}` must be an absolute http(s) URL (e.g. https://example.com/page)",
            arg="url",
        )
    return url


async def gate(ctx: Context, url: httpx2.URL) -> list[str]:
    """Judge one hop (permits → data-as-code → SSRF floor); returns the judged addresses."""
    judge_effect(ctx, Effect(kind="net", target=url.host, task=ctx.task))
    klass = code_bearing_class(url.path)
    if klass is not None and not ctx.data_as_code_lifted:
        raise NikaError(
            codes.SEC_004,
            f"fetch of {url.path!r} on {url.host} names a code-bearing artifact ({klass} class, "
            "data-as-code law): loading it would execute code; if the task never loads it, "
            'declare `lift: [{law: data-as-code, because: "…"}]`, or model the acquisition '
            "as the `exec` it feeds under a program permit",
            details={"url": str(url), "law": "data-as-code", "class": klass},
        )
    try:
        addresses = await resolve_and_check(
            url.host,
            url.port or (443 if url.scheme == "https" else 80),
            allow_loopback_hosts=ctx.loopback_grants,
        )
    except UnresolvableHost as err:
        raise network_error(f"{err}; check the host name", transient=True, host=url.host) from None
    return [str(a) for a in addresses]


def _reason(err: Exception) -> str:
    """An exception's message, or its kind when it has none (httpx TLS errors often do not)."""
    return str(err) or type(err).__name__


def _same_origin(a: httpx2.URL, b: httpx2.URL) -> bool:
    return (a.scheme, a.host, a.port) == (b.scheme, b.host, b.port)


async def _open(
    client: httpx2.AsyncClient, hop: Outgoing, url: httpx2.URL, addresses: list[str]
) -> httpx2.Response:
    """Connect to the first judged address that accepts (a dual-stack name may resolve to
    an address family the server does not listen on)."""
    headers = httpx2.Headers(hop.headers)
    headers["host"] = url.netloc.decode("ascii")
    extensions = {"sni_hostname": url.host} if url.scheme == "https" else {}
    for ip in addresses[:-1]:
        request = client.build_request(
            hop.method,
            url.copy_with(host=ip),
            headers=headers,
            content=hop.content,
            extensions=extensions,
        )
        try:
            return await client.send(request, stream=True)
        except httpx2.ConnectError:
            continue
    request = client.build_request(
        hop.method,
        url.copy_with(host=addresses[-1]),
        headers=headers,
        content=hop.content,
        extensions=extensions,
    )
    return await client.send(request, stream=True)


async def _send(
    client: httpx2.AsyncClient, ctx: Context, hop: Outgoing, url: httpx2.URL, addresses: list[str]
) -> Response:
    try:
        response = await _open(client, hop, url, addresses)
    except httpx2.TimeoutException:
        raise network_error(
            f"{hop.method} {url} timed out after {ctx.fetch_timeout_s:g}s",
            transient=True,
            url=str(url),
        ) from None
    except httpx2.HTTPError as err:
        raise network_error(
            f"{hop.method} {url} failed: {_reason(err)}", transient=True, url=str(url)
        ) from None
    try:
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > ctx.max_body_bytes:
                raise network_error(
                    f"the response of {url} exceeds {ctx.max_body_bytes} bytes",
                    transient=False,
                    url=str(url),
                )
    except httpx2.HTTPError as err:
        raise network_error(
            f"reading {url} failed: {_reason(err)}", transient=True, url=str(url)
        ) from None
    finally:
        await response.aclose()
    return Response(url, response.status_code, response.headers, bytes(body))


async def request(ctx: Context, outgoing: Outgoing) -> Response:
    """Send `outgoing`, following redirects by hand (up to `ctx.max_redirects`), each hop
    gated. Returns the final response whatever its status (the caller judges it)."""
    hop, url = outgoing, parse_url(outgoing.url)
    async with httpx2.AsyncClient(
        follow_redirects=False, timeout=ctx.fetch_timeout_s, trust_env=False
    ) as client:
        for _ in range(ctx.max_redirects + 1):
            addresses = await gate(ctx, url)
            response = await _send(client, ctx, hop, url, addresses)
            location = response.headers.get("location")
            if response.status not in _REDIRECTS or not location:
                return response
            try:
                target = parse_url(str(url.join(location)))
            except (httpx2.InvalidURL, NikaError):
                raise network_error(
                    f"{url} redirects to {location!r}, not an http(s) URL; fetch the "
                    "final resource directly",
                    transient=False,
                    url=str(url),
                ) from None
            method, content = hop.method, hop.content
            if response.status == 303 or (response.status in (301, 302) and method == "POST"):
                method, content = ("HEAD" if method == "HEAD" else "GET"), None
            headers = dict(hop.headers) if _same_origin(url, target) else {}
            if content is None:
                headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
            hop, url = Outgoing(method, str(target), headers, content), target
    raise network_error(
        f"{outgoing.url} redirected more than {ctx.max_redirects} times; "
        "fetch the final URL directly",
        transient=False,
        url=outgoing.url,
    )


def status_error(response: Response) -> NikaError:
    """The `NIKA-BUILTIN-FETCH-001` a non-2xx final status is (5xx/408/429 transient)."""
    status = response.status
    return network_error(
        f"{response.url} answered HTTP {status}; a non-2xx response fails the fetch (retry "
        "transient 5xx/408/429 with `retry:`)",
        transient=transient_status(status),
        status_code=status,
        url=str(response.url),
    )
