"""The translation boundary: Retry-After, error bodies, and keys that never leak."""

from __future__ import annotations

import email.utils
import json
import logging
import random
import traceback

import pytest
from tests.providers._servers import Reply, ScriptedServer, chat_completion

from nika.agent.seams import ModelRequest, Provider, UserMessage
from nika.errors import NikaError
from nika.providers import resolve_provider
from nika.providers._errors import (
    ErrorContext,
    provider_message,
    retry_after_secs,
    scrub,
    translate,
)
from nika.providers.anthropic import AnthropicProvider
from nika.providers.openai_compat import OpenAICompatProvider
from nika.providers.retry import RetryingProvider

NOW = 1_800_000_000.0
PLANTED = "sk-PLANTED-9f8e7d6c5b4a39281706"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "120"}, 120.0),
        ({"retry-after": "2.5"}, 2.5),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": email.utils.formatdate(NOW + 45, usegmt=True)}, 45.0),
        ({"retry-after": email.utils.formatdate(NOW - 45, usegmt=True)}, 0.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_seconds_or_http_date(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_secs(headers, NOW) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"error": {"message": "model not found", "type": "x"}}, "model not found"),
        ({"type": "error", "error": {"type": "overloaded", "message": "busy"}}, "busy"),
        ({"error": "plain string"}, "plain string"),
        ({"detail": "odd"}, '{"detail": "odd"}'),
        ("raw text", "raw text"),
        (None, "no error body"),
    ],
)
def test_provider_message_shapes(body: object, expected: str) -> None:
    assert provider_message(body) == expected


def test_scrub_removes_every_secret() -> None:
    assert scrub("key sk-a and sk-abc", ["sk-a", "sk-abc"]) == "key [REDACTED] and [REDACTED]"


def test_translate_refuses_an_exception_outside_the_table() -> None:
    ctx = ErrorContext("openai", "m", "http://x", None, False)
    with pytest.raises(TypeError):
        translate(ValueError("mine"), ctx)


def echoing(status: int) -> Reply:
    # A hostile or careless server that quotes the caller's key back in every error.
    return Reply(
        status=status,
        json={"error": {"message": f"key {PLANTED} is not allowed here"}},
        headers={"retry-after": "0"},
    )


def all_the_ways_to_fail() -> list[Reply]:
    return [
        echoing(400),
        echoing(401),
        echoing(403),
        echoing(404),
        echoing(429),
        echoing(429),
        echoing(500),
        echoing(500),
        Reply(body=f"proxy error for {PLANTED}".encode()),
        Reply(json=chat_completion(content="late"), delay=30),
        Reply(json=chat_completion(content="late"), delay=30),
    ]


def _assert_clean(errors: list[NikaError], caplog: pytest.LogCaptureFixture) -> None:
    formatter = logging.Formatter("%(name)s %(message)s")
    for err in errors:
        for text in (
            str(err),
            repr(err),
            json.dumps(err.to_dict()),
            "".join(traceback.format_exception(err)),
        ):
            assert PLANTED not in text
    assert caplog.records, "expected the SDKs and the retry policy to log something"
    for record in caplog.records:
        assert PLANTED not in formatter.format(record)


async def _sleep(secs: float) -> None:
    return None


async def _failures(inner: Provider, server: ScriptedServer) -> list[NikaError]:
    """`inner`, under the retry policy, driven through every scripted way to fail."""
    provider = RetryingProvider(inner, max_attempts=2, sleep=_sleep, rng=random.Random(0))
    server.script(*all_the_ways_to_fail())
    request = ModelRequest("x/m", "sys", (UserMessage("hi"),))
    errors: list[NikaError] = []
    try:
        for _ in range(8):
            try:
                await provider.complete(request)
            except NikaError as err:
                errors.append(err)
    finally:
        await provider.aclose()
    assert [e.category for e in errors] == ["provider_error"] * 7 + ["network_error"]
    return errors


async def test_an_openai_key_never_reaches_errors_or_logs(
    server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    inner = OpenAICompatProvider(
        provider="openai", api_key=PLANTED, base_url=server.url + "/v1", timeout=0.3
    )
    errors = await _failures(inner, server)
    assert any(PLANTED in s.headers.get("authorization", "") for s in server.requests)
    _assert_clean(errors, caplog)


async def test_an_anthropic_key_never_reaches_errors_or_logs(
    server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    inner = AnthropicProvider(api_key=PLANTED, base_url=server.url, timeout=0.3)
    errors = await _failures(inner, server)
    _assert_clean(errors, caplog)


def test_the_missing_key_error_names_variables_never_values(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    # A key planted under an unrelated name must not be picked up nor quoted.
    with pytest.raises(NikaError) as info:
        resolve_provider("xai/grok-2-latest", env={"OPENAI_API_KEY": PLANTED})
    assert "XAI_API_KEY" in info.value.detail
    assert PLANTED not in json.dumps(info.value.to_dict()) + repr(info.value)
    assert all(PLANTED not in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("model", ["openai/gpt-4o", "anthropic/claude-sonnet-4-6"])
def test_the_missing_key_error_reads_well_for_every_provider(model: str) -> None:
    with pytest.raises(NikaError) as info:
        resolve_provider(model, env={})
    provider = model.split("/")[0]
    assert f"needs an API key for the {provider} provider and none is set" in info.value.detail
    assert f"a {provider}" not in info.value.detail  # never "a openai", "a anthropic"
