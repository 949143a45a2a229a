"""The SSRF classifier and the data-as-code classifier (nika.netfloor)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.errors import NikaError
from nika.netfloor import (
    BLOCKED_NETWORKS,
    UnresolvableHost,
    code_bearing_class,
    is_blocked_address,
    is_loopback_literal,
    resolve_and_check,
)


@st.composite
def blocked_address(draw: st.DrawFn) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    net = draw(st.sampled_from(BLOCKED_NETWORKS))
    offset = draw(st.integers(0, net.num_addresses - 1))
    return net.network_address + offset


@given(blocked_address())
def test_every_address_in_a_blocked_network_is_blocked(addr) -> None:
    assert is_blocked_address(addr)
    assert is_blocked_address(str(addr))
    if addr.version == 4:
        assert is_blocked_address(f"::ffff:{addr}")  # IPv4-mapped
        assert is_blocked_address(f"64:ff9b::{addr}")  # NAT64
        packed = int(addr)
        assert is_blocked_address(ipaddress.IPv6Address((0x2002 << 112) | (packed << 80)))


@pytest.mark.parametrize(
    "addr",
    [
        "169.254.169.254",
        "fd00:ec2::254",
        "100.100.100.200",
        "0.0.0.0",
        "::",
        "::1",
        "255.255.255.255",
        "224.0.0.251",
        "ff02::1",
        "fe80::1%eth0",
        "[::1]",
    ],
)
def test_named_targets_are_blocked(addr: str) -> None:
    assert is_blocked_address(addr)


@pytest.mark.parametrize("addr", ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(addr: str) -> None:
    assert not is_blocked_address(addr)


def test_loopback_literals() -> None:
    assert all(is_loopback_literal(h) for h in ("localhost", "127.0.0.5", "::1", "[::1]"))
    assert not any(
        is_loopback_literal(h)
        for h in ("a.localhost", "10.0.0.1", "example.com", "::ffff:127.0.0.1")
    )


async def test_resolve_and_check_applies_the_exact_loopback_grant() -> None:
    with pytest.raises(NikaError) as refused:
        await resolve_and_check("127.0.0.1", 80)
    assert refused.value.code == "NIKA-SEC-005" and "127.0.0.1" in refused.value.detail
    granted = await resolve_and_check(
        "127.0.0.1", 80, allow_loopback_hosts=frozenset({"127.0.0.1"})
    )
    assert [str(a) for a in granted] == ["127.0.0.1"]
    with pytest.raises(NikaError):  # a grant for one literal does not clear another
        await resolve_and_check("127.0.0.2", 80, allow_loopback_hosts=frozenset({"127.0.0.1"}))
    with pytest.raises(NikaError):  # a non-loopback grant is inert
        await resolve_and_check("10.0.0.1", 80, allow_loopback_hosts=frozenset({"10.0.0.1"}))


async def test_resolve_and_check_judges_every_answer_and_reports_no_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loop's resolver is scripted (no DNS leaves the machine)."""
    loop = asyncio.get_running_loop()
    answers: dict[str, list[str]] = {
        "mixed.test": ["93.184.216.34", "10.0.0.9"],
        "public.test": ["93.184.216.34"],
    }

    async def fake_getaddrinfo(host: str, port: int, **kwargs: object) -> list[tuple]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in answers[host]]

    monkeypatch.setattr(loop, "getaddrinfo", fake_getaddrinfo)
    assert [str(a) for a in await resolve_and_check("public.test", 443)] == ["93.184.216.34"]
    with pytest.raises(NikaError) as mixed:
        await resolve_and_check("mixed.test", 443)
    assert "10.0.0.9" in mixed.value.detail
    with pytest.raises(UnresolvableHost):
        await resolve_and_check("no-such-host.test", 80)


@pytest.mark.parametrize(
    ("path", "klass"),
    [
        ("/m/legacy.pkl", "serialized-executable"),
        ("/a/model.PTH", "serialized-executable"),
        ("/s/install.sh?x=1", "script"),
        ("/nb.ipynb", "script"),
        ("/bin/tool.exe", "executable"),
        ("/data.json", None),
        ("/dir/", None),
        ("/archive.tar.gz", None),
        ("/py", None),
        # pickle-loading spellings: every family member, compressed ones seen through
        ("/d/frame.PICKLE", "serialized-executable"),
        ("/d/obj.dill", "serialized-executable"),
        ("/m/model.joblib.z", "serialized-executable"),
        ("/m/model.pkl.gz", "serialized-executable"),
        ("/m/weights.ckpt.zip", "serialized-executable"),
        ("/d/frame.pkl.zst#x", "serialized-executable"),
        ("/d/notes.txt.gz", None),
        ("/lib/libx.so.1.2.3", "executable"),
    ],
)
def test_code_bearing_class(path: str, klass: str | None) -> None:
    assert code_bearing_class(path) == klass
