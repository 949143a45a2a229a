"""`_provider_wire`: the media builtins' one bounded client and one retry loop, against a
loopback server speaking plain HTTP/1.1 (announced and streamed oversize, truncated error
bodies, redirects never followed) and against scripted failures (transient-only retries,
`Retry-After` honoured up to its bound)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2
import pytest

from nika.tools.builtins._provider_wire import (
    Oversize,
    RetryPolicy,
    client,
    oversize_in,
    retried,
    retry_after,
    transient_status,
)

from ._image_server import ImageServer, Scripted, gzip_bomb, serving


@pytest.fixture
async def srv() -> AsyncIterator[ImageServer]:
    async with serving() as server:
        yield server


async def test_a_body_within_the_cap_is_read_whole(srv: ImageServer) -> None:
    srv.script("/a", Scripted(200, b"x" * 64))
    async with client(5.0, 64) as http:
        response = await http.get(f"{srv.base}/a")
    assert response.content == b"x" * 64


async def test_an_announcement_past_the_cap_is_refused_before_reading(srv: ImageServer) -> None:
    srv.script("/a", Scripted(behaviour="announce"))
    async with client(5.0, 1024) as http:
        with pytest.raises(Oversize) as caught:
            await http.get(f"{srv.base}/a")
    assert (caught.value.size, caught.value.cap) == (2 << 30, 1024)


async def test_a_never_ending_body_is_cut_where_it_crosses(srv: ImageServer) -> None:
    srv.script("/a", Scripted(behaviour="trickle"))
    async with client(5.0, 4096) as http:
        with pytest.raises(Oversize) as caught:
            await http.get(f"{srv.base}/a")
    assert caught.value.size is None


async def test_without_an_error_cap_an_error_body_is_capped_too(srv: ImageServer) -> None:
    srv.script("/a", Scripted(500, b"e" * 100))
    async with client(5.0, 50) as http:
        with pytest.raises(Oversize):
            await http.get(f"{srv.base}/a")


async def test_with_an_error_cap_an_error_body_is_truncated(srv: ImageServer) -> None:
    srv.script("/a", Scripted(500, b"e" * 100), Scripted(behaviour="trickle", status=503))
    async with client(5.0, 10, error_cap=40) as http:
        announced = await http.get(f"{srv.base}/a")
        endless = await http.get(f"{srv.base}/a")
    assert (announced.status_code, announced.content) == (500, b"e" * 40)
    assert (endless.status_code, len(endless.content)) == (503, 40)


async def test_a_coded_body_is_never_inflated_past_the_cap(srv: ImageServer) -> None:
    bomb = gzip_bomb(10_000_000)
    assert len(bomb) < 20_000
    srv.script("/a", Scripted(200, bomb, {"content-encoding": "gzip"}))
    async with client(5.0, 100_000) as http:
        with pytest.raises(Oversize) as caught:
            await http.get(f"{srv.base}/a")
    assert (caught.value.size, caught.value.encoding) == (None, "gzip")
    assert srv.requests[0].headers["accept-encoding"] == "identity"


async def test_a_coded_error_body_is_kept_raw_and_truncated(srv: ImageServer) -> None:
    srv.script("/a", Scripted(500, gzip_bomb(10_000_000), {"content-encoding": "gzip"}))
    async with client(5.0, 10, error_cap=40) as http:
        response = await http.get(f"{srv.base}/a")
    assert (response.status_code, len(response.content)) == (500, 40)
    assert response.content.startswith(b"\x1f\x8b")  # the gzip magic: never inflated


async def test_a_redirect_is_never_followed(srv: ImageServer) -> None:
    srv.script("/a", Scripted(302, b"", {"location": f"{srv.base}/b"}))
    srv.script("/b", Scripted(200, b"elsewhere"))
    async with client(5.0, 1024) as http:
        response = await http.get(f"{srv.base}/a")
    assert response.status_code == 302
    assert [seen.path for seen in srv.requests] == ["/a"]


def test_an_oversize_is_found_under_an_sdk_wrapper() -> None:
    found = Oversize(None, 8)
    try:
        try:
            raise found
        except Oversize as inner:
            raise RuntimeError("connection error") from inner
    except RuntimeError as wrapped:
        assert oversize_in(wrapped) is found
    assert oversize_in(RuntimeError("plain")) is None


@pytest.mark.parametrize(("status", "transient"), [
    (200, False), (302, False), (400, False), (401, False), (404, False),
    (408, True), (429, True), (500, True), (503, True),
])
def test_transient_statuses(status: int, transient: bool) -> None:
    assert transient_status(status) is transient


@pytest.mark.parametrize(("value", "seconds"), [
    ("7", 7.0), (" 12 ", 12.0), ("", None), ("-1", None), ("1.5", None),
    ("Wed, 21 Oct 2026 07:28:00 GMT", None),
])
def test_only_the_delay_seconds_form_of_retry_after_is_read(value: str,
                                                             seconds: float | None) -> None:
    assert retry_after(httpx2.Headers({"retry-after": value})) == seconds


class Flaky(Exception):
    def __init__(self, transient: bool, asked: float = 0.0) -> None:
        super().__init__("flaky")
        self.transient, self.asked = transient, asked


def _judge(err: Exception) -> float | None:
    return err.asked if isinstance(err, Flaky) and err.transient else None


class Script:
    """A call that fails with the scripted errors in turn, then answers."""

    def __init__(self, *failures: Exception) -> None:
        self.failures = list(failures)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return "ok"


POLICY = RetryPolicy(attempts=3, base_s=0.5, cap_s=4.0, retry_after_cap_s=30.0)


async def test_a_transient_failure_is_retried_then_answers() -> None:
    slept: list[float] = []
    call = Script(Flaky(True), Flaky(True))

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    assert await retried(call, policy=POLICY, judge=_judge, sleep=sleep) == "ok"
    assert call.calls == 3 and len(slept) == 2
    assert all(0 <= s <= POLICY.cap_s for s in slept)


async def test_a_final_failure_is_raised_at_once_as_it_is() -> None:
    slept: list[float] = []
    final = Flaky(False)

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    with pytest.raises(Flaky) as caught:
        await retried(Script(final), policy=POLICY, judge=_judge, sleep=sleep)
    assert caught.value is final and slept == []


async def test_attempts_are_bounded_and_the_last_failure_raised() -> None:
    slept: list[float] = []
    last = Flaky(True)
    call = Script(Flaky(True), Flaky(True), last, Flaky(True))

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    with pytest.raises(Flaky) as caught:
        await retried(call, policy=POLICY, judge=_judge, sleep=sleep)
    assert caught.value is last and call.calls == 3 and len(slept) == 2


async def test_a_retry_after_is_honoured_up_to_its_bound() -> None:
    slept: list[float] = []
    call = Script(Flaky(True, asked=12.0), Flaky(True, asked=3600.0))

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    assert await retried(call, policy=POLICY, judge=_judge, sleep=sleep) == "ok"
    assert slept == [12.0, 30.0]
