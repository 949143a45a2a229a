"""The provider catalog, `parse_model` and `resolve_provider` (no network needed)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.agent.seams import ModelRequest, UserMessage
from nika.errors import NikaError
from nika.providers import (
    KNOWN_PROVIDERS,
    PROVIDERS,
    ModelRef,
    RetryingProvider,
    parse_model,
    resolve_provider,
)
from nika.providers.anthropic import AnthropicProvider
from nika.providers.mock import MockProvider
from nika.providers.openai_compat import OpenAICompatProvider

LOCAL = {"ollama", "lmstudio", "llamacpp", "localai", "vllm"}
CLOUD = {
    "mistral", "anthropic", "openai", "openrouter", "huggingface", "nvidia", "moonshot", "groq",
    "deepseek", "gemini", "xai",
}  # fmt: skip


def test_the_seventeen_providers() -> None:
    assert LOCAL | CLOUD | {"mock"} == KNOWN_PROVIDERS
    assert {p for p, i in PROVIDERS.items() if i.kind == "local"} == LOCAL
    assert {p for p, i in PROVIDERS.items() if i.kind == "cloud"} == CLOUD
    assert PROVIDERS["anthropic"].family == "anthropic"
    assert PROVIDERS["mock"].family == "mock"
    assert {p for p, i in PROVIDERS.items() if i.family == "openai_compat"} == (LOCAL | CLOUD) - {
        "anthropic"
    }


def test_rows_carry_what_resolution_needs() -> None:
    for info in PROVIDERS.values():
        assert info.local == (info.id not in CLOUD)
        if info.kind == "cloud":
            assert info.base_url.startswith("https://")
            assert info.key_vars[0] == f"NIKA_{info.id.upper()}_API_KEY"
            assert len(info.key_vars) == 2
            assert info.default_timeout == 30.0
        if info.kind == "local":
            assert info.base_url.startswith("http://localhost:")
            assert info.default_timeout >= 300.0
    assert PROVIDERS["ollama"].base_url == "http://localhost:11434/v1"
    assert PROVIDERS["huggingface"].key_vars[-1] == "HF_TOKEN"
    assert PROVIDERS["gemini"].key_vars == ("NIKA_GEMINI_API_KEY", "GEMINI_API_KEY")
    assert PROVIDERS["openai"].base_url_var == "NIKA_OPENAI_BASE_URL"


@pytest.mark.parametrize(
    ("model", "provider", "name"),
    [
        ("ollama/qwen3.5:9b", "ollama", "qwen3.5:9b"),
        ("openrouter/meta-llama/llama-3.1-70b-instruct", "openrouter",
         "meta-llama/llama-3.1-70b-instruct"),
        ("huggingface/Qwen/Qwen3.5-9B:cheapest", "huggingface", "Qwen/Qwen3.5-9B:cheapest"),
        ("mock/echo", "mock", "echo"),
    ],
)  # fmt: skip
def test_parse_model_splits_at_the_first_slash(model: str, provider: str, name: str) -> None:
    ref = parse_model(model)
    assert ref == ModelRef(provider, name)
    assert str(ref) == model


@given(st.sampled_from(sorted(KNOWN_PROVIDERS)), st.text(min_size=1).filter(str.strip))
def test_parse_model_round_trips(provider: str, name: str) -> None:
    assert str(parse_model(f"{provider}/{name}")) == f"{provider}/{name}"


@pytest.mark.parametrize("model", ["claude/sonnet", "gpt-4o", "ollama/", "/llama", "OLLAMA/x"])
def test_unknown_or_malformed_model_is_refused_listing_the_known(model: str) -> None:
    with pytest.raises(NikaError) as info:
        parse_model(model)
    err = info.value
    assert (err.code, err.category, err.transient) == (
        "NIKA-PROVIDER-001", "validation_error", False
    )  # fmt: skip
    assert repr(model) in err.detail
    assert all(p in err.detail for p in KNOWN_PROVIDERS)


def test_catalog_and_package_import_no_sdk() -> None:
    code = (
        "import sys, nika.providers, nika.syntax.providers; "
        "bad = {'openai', 'anthropic', 'httpx2'} & set(sys.modules); "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_cloud_provider_without_a_key_is_refused_naming_the_variable() -> None:
    with pytest.raises(NikaError) as info:
        resolve_provider("groq/llama-3.3-70b-versatile", env={})
    err = info.value
    assert err.code == "NIKA-PROVIDER-002" and not err.transient
    assert "NIKA_GROQ_API_KEY" in err.detail and "GROQ_API_KEY" in err.detail
    assert "NIKA_GROQ_BASE_URL" in err.detail


async def test_resolution_picks_the_family_and_wraps_in_retry() -> None:
    openai_like = resolve_provider("deepseek/deepseek-chat", env={"DEEPSEEK_API_KEY": "k"})
    claude = resolve_provider("anthropic/claude-x", env={}, secrets={"ANTHROPIC_API_KEY": "k"})
    local = resolve_provider("ollama/qwen3.5:9b", env={})  # local: no key needed
    try:
        assert isinstance(openai_like, RetryingProvider)
        assert isinstance(openai_like.inner, OpenAICompatProvider)
        assert isinstance(claude, RetryingProvider)
        assert isinstance(claude.inner, AnthropicProvider)
        assert isinstance(local, RetryingProvider)
    finally:
        for p in (openai_like, claude, local):
            await p.aclose()  # type: ignore[attr-defined]


async def test_mock_resolves_to_the_mock_provider() -> None:
    p = resolve_provider("mock/echo", env={})
    assert isinstance(p, MockProvider)
    resp = await p.complete(ModelRequest("mock/echo", None, (UserMessage("hi"),)))
    assert "hi" in resp.text
