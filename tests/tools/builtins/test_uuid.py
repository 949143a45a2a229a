from __future__ import annotations

import uuid
from datetime import UTC, datetime

NOW = datetime(2026, 5, 23, 9, 0, 0, tzinfo=UTC)


async def test_uuid_v7_is_time_ordered_and_deterministic_under_injection(make):
    ex = make(now=lambda: NOW, random_bytes=lambda n: b"\xab" * n)
    first = (await ex.call("nika:uuid", {})).structured
    again = (await ex.call("nika:uuid", {"version": "v7"})).structured
    parsed = uuid.UUID(first)
    assert first == again == first.lower()
    assert parsed.version == 7 and parsed.variant == uuid.RFC_4122
    assert int(parsed.hex[:12], 16) == int(NOW.timestamp() * 1000)
    later = make(now=lambda: NOW.replace(second=1), random_bytes=lambda n: b"\x00" * n)
    assert (await later.call("nika:uuid", {})).structured > first


async def test_uuid_v4_and_bad_version(make):
    ex = make(random_bytes=lambda n: bytes(range(n)))
    v4 = uuid.UUID((await ex.call("nika:uuid", {"version": "v4"})).structured)
    assert v4.version == 4
    err = (await ex.call("nika:uuid", {"version": "v1"})).error
    assert err is not None and err.code == "NIKA-BUILTIN-001"
