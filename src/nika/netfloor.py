"""The always-on network floors of `nika:fetch` and `nika:notify` (05 §SEC-005, 10 §data-as-code).

Two classifiers, shared by the run-time builtins and the static check:

- the SSRF floor: `is_blocked_address` says whether one IP is off-limits (loopback, private,
  link-local, CGNAT, cloud metadata, unspecified, multicast, reserved, documentation, and every
  IPv6 form that embeds such an IPv4 address); `resolve_and_check` resolves a host with the
  running loop's resolver and refuses unless EVERY resolved address passes. The one carve-out
  is the author's exact loopback grant (01 §permits, exact-loopback declassification): a host
  named in `allow_loopback_hosts` may resolve to loopback, and to nothing else non-public.
- the data-as-code sink: `code_bearing_class` names the closed class of a URL path whose final
  extension executes at load (`.pkl`, `.js`, `.so`, ...).

This module sits at the bottom of the import graph: the standard library and `nika.errors` only.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Final

from nika import codes
from nika.errors import NikaError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

SSRF_CODE: Final = codes.SEC_005

BLOCKED_NETWORKS: Final[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]] = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",  # "this network", incl. the unspecified 0.0.0.0
        "10.0.0.0/8",
        "100.64.0.0/10",  # CGNAT (also Alibaba's metadata 100.100.100.200)
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local, incl. the cloud metadata 169.254.169.254
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, incl. broadcast
        "::/128",
        "::1/128",
        "100::/64",  # discard-only
        "2001:db8::/32",
        "fc00::/7",  # unique-local, incl. the AWS metadata fd00:ec2::254
        "fe80::/10",
        "fec0::/10",  # deprecated site-local
        "ff00::/8",
    )
)
"""The networks the floor refuses outright (embedded IPv4 forms are judged on the IPv4)."""

_NAT64: Final = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE: Final = ipaddress.ip_network("::/96")

CODE_BEARING: Final[dict[str, frozenset[str]]] = {
    "serialized-executable": frozenset(
        {".pkl", ".pickle", ".dill", ".joblib", ".pt", ".pth", ".ckpt"}
    ),
    "script": frozenset(
        {
            ".py",
            ".sh",
            ".bash",
            ".zsh",
            ".ps1",
            ".bat",
            ".cmd",
            ".rb",
            ".pl",
            ".php",
            ".js",
            ".mjs",
            ".ipynb",
        }
    ),
    "executable": frozenset({".exe", ".dll", ".so", ".dylib", ".wasm", ".jar"}),
}
"""The closed data-as-code classes (10-authority §the data-as-code sink), by final extension."""


class UnresolvableHost(OSError):
    """The resolver returned no address for a host (a network failure, not a refusal)."""


def embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form routes to (mapped, compatible, NAT64, 6to4, Teredo)."""
    if isinstance(ip, ipaddress.IPv4Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def as_address(ip: str | IPAddress) -> IPAddress:
    """Parse an address literal (brackets and an IPv6 zone id are tolerated)."""
    if isinstance(ip, ipaddress.IPv4Address | ipaddress.IPv6Address):
        return ip
    text = ip.strip().strip("[]").split("%", 1)[0]
    return ipaddress.ip_address(text)


def is_blocked_address(ip: str | IPAddress) -> bool:
    """Is `ip` below the SSRF floor (not a public unicast address)?"""
    addr = as_address(ip)
    inner = embedded_ipv4(addr)
    if inner is not None and is_blocked_address(inner):
        return True
    if any(addr in net for net in BLOCKED_NETWORKS if net.version == addr.version):
        return True
    # Belt and braces: anything the standard library does not call globally routable
    # (IANA special-purpose registry) is refused too, unless it is an embedding judged above.
    return inner is None and not addr.is_global


def normalise_host(host: str) -> str:
    """A URL host as the floor compares it: lower-case, no brackets, no trailing dot."""
    return host.strip().strip("[]").rstrip(".").lower()


def is_loopback_literal(host: str) -> bool:
    """Is `host` an exact loopback literal an author may grant (`localhost`, 127.x.y.z, ::1)?"""
    name = normalise_host(host)
    if name == "localhost":
        return True
    try:
        addr = ipaddress.ip_address(name)
    except ValueError:
        return False
    return addr.is_loopback and embedded_ipv4(addr) is None


def _refuse(host: str, addr: IPAddress, granted: bool) -> NikaError:
    hint = (
        "a loopback grant admits only loopback resolutions"
        if granted
        else "the SSRF floor refuses loopback, private, link-local, CGNAT and metadata targets"
    )
    fix = (
        "; for a local service, name its exact loopback literal (localhost, 127.0.0.1, ::1) "
        "in permits.net.http"
        if addr.is_loopback and not granted
        else ""
    )
    return NikaError(
        SSRF_CODE,
        f"host {host!r} resolves to {addr}, a non-public address: {hint}{fix}",
        details={"host": host, "address": str(addr)},
    )


def check_address(host: str, addr: IPAddress, allow_loopback_hosts: frozenset[str]) -> None:
    """Raise `NIKA-SEC-005` unless `addr` (a resolution of `host`) passes the floor."""
    name = normalise_host(host)
    granted = name in {normalise_host(h) for h in allow_loopback_hosts if is_loopback_literal(h)}
    loopback = addr.is_loopback or (
        (inner := embedded_ipv4(addr)) is not None and inner.is_loopback
    )
    if granted and loopback:
        return
    if is_blocked_address(addr):
        raise _refuse(host, addr, granted)


async def resolve_and_check(
    host: str, port: int, *, allow_loopback_hosts: frozenset[str] = frozenset()
) -> list[IPAddress]:
    """Resolve `host` and return its addresses, refusing (`NIKA-SEC-005`) if ANY is blocked.

    Judging every address (not just the first) keeps a DNS answer that mixes a public and a
    private address from slipping through on a later connection attempt. Raises
    `UnresolvableHost` when the resolver has no answer.
    """
    import asyncio  # here, not at the top: the static check imports this module too
    import socket

    name = normalise_host(host)
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise UnresolvableHost(f"cannot resolve host {host!r}: {err.strerror}") from None
    found: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        addr = as_address(str(sockaddr[0]))
        if addr not in found:
            found.append(addr)
    if not found:
        raise UnresolvableHost(f"cannot resolve host {host!r}: no address")
    for addr in found:
        check_address(host, addr, allow_loopback_hosts)
    return found


PICKLE_COMPRESSIONS: Final = frozenset({".gz", ".bz2", ".xz", ".lzma", ".z", ".zst", ".zip"})
"""Compression suffixes a pickle loader sees through (`joblib.load("m.pkl.z")`,
`pandas.read_pickle("df.pkl.gz")`): the artifact still unpickles, so it still executes."""

_VERSIONED: Final = re.compile(r"(\.[0-9]+)+\Z")
_NATIVE: Final = frozenset({".so", ".dylib"})


def code_bearing_class(url_path: str) -> str | None:
    """The data-as-code class a URL path's final extension names, or None (query excluded).

    Two spellings hide a class behind a last suffix, and are seen through: a compressed
    serialized-executable (`model.pkl.gz` · the loader decompresses, then unpickles) and a
    versioned native library (`libx.so.1.2.3`).
    """
    path = url_path.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    last = path.rsplit("/", 1)[-1].lower()
    outer = _suffix(last)
    klass = _class_of(outer)
    if klass is not None:
        return klass
    inner = _suffix(last[: len(last) - len(outer)])
    if outer in PICKLE_COMPRESSIONS and _class_of(inner) == "serialized-executable":
        return "serialized-executable"
    unversioned = _VERSIONED.sub("", last)
    if unversioned != last and _suffix(unversioned) in _NATIVE:
        return "executable"
    return None


def _suffix(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:] if dot >= 0 else ""


def _class_of(ext: str) -> str | None:
    return next((klass for klass, exts in CODE_BEARING.items() if ext in exts), None)
