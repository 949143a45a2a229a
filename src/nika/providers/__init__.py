"""Model providers: `resolve_provider("<provider>/<name>")` returns a ready `Provider`.

Importing this package pulls in no SDK; the adapters load on first resolve. The catalog
itself is language data and lives in `nika.syntax.providers` (re-exported here).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from nika.agent.seams import Provider
from nika.errors import NikaError
from nika.providers.retry import RetryingProvider
from nika.syntax.providers import (
    KNOWN_PROVIDERS,
    MISSING_API_KEY,
    PROVIDERS,
    ModelRef,
    ProviderInfo,
    parse_model,
)

__all__ = [
    "KNOWN_PROVIDERS",
    "PROVIDERS",
    "ModelRef",
    "ProviderInfo",
    "RetryingProvider",
    "parse_model",
    "resolve_provider",
]

# The OpenAI SDK refuses an empty key; keyless local servers ignore whatever we send.
_KEYLESS = "nika-keyless"
_ENDPOINT_SUFFIXES = {"openai_compat": ("/chat/completions",), "anthropic": ("/v1/messages", "/v1")}


def resolve_provider(
    model: str,
    *,
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
    base_url: str | None = None,
    timeout: float | None = None,
    max_attempts: int = 3,
) -> Provider:
    """The adapter for `model`, wrapped in `RetryingProvider` (`mock/*`: the bare `MockProvider`).

    The endpoint is `base_url`, else `NIKA_<ID>_BASE_URL` from `env`, else the catalog default;
    an override may be the complete endpoint (`.../v1/chat/completions`, as the spec writes it)
    or its base (`.../v1`). The key is looked up by variable name (`NIKA_<ID>_API_KEY`, then
    the vendor's own, e.g. `ANTHROPIC_API_KEY`) in `secrets`, then in `env` (default: the
    process environment). A cloud provider on its default endpoint without a key is refused
    here (`NIKA-PROVIDER-002`); local servers and overridden endpoints may run keyless.
    `timeout` (seconds) defaults to the provider class's deadline: 300 local, 30 cloud.
    """
    ref = parse_model(model)
    info = ref.info
    if info.family == "mock":
        from nika.providers.mock import MockProvider

        return MockProvider(os.environ if env is None else env)
    env = os.environ if env is None else env
    override = base_url or env.get(info.base_url_var)
    endpoint = _sdk_base_url(override, info) if override else info.base_url
    key = _api_key(info, secrets or {}, env)
    if key is None:
        if not (info.local or override):
            raise _missing_key(ref)
        key = _KEYLESS
    deadline = timeout if timeout is not None else info.default_timeout
    key_var = " or ".join(info.key_vars) or None
    adapter: Provider
    if info.family == "anthropic":
        from nika.providers.anthropic import AnthropicProvider

        adapter = AnthropicProvider(
            api_key=key, base_url=endpoint, timeout=deadline, key_var=key_var, provider=info.id
        )
    else:
        from nika.providers.openai_compat import MaxTokensField, OpenAICompatProvider

        # OpenAI's own current models refuse `max_tokens`; every compatible server reads it.
        field: MaxTokensField = (
            "max_completion_tokens" if info.id == "openai" and not override else "max_tokens"
        )
        adapter = OpenAICompatProvider(
            provider=info.id,
            api_key=key,
            base_url=endpoint,
            timeout=deadline,
            key_var=key_var,
            local=info.local,
            max_tokens_field=field,
        )
    return RetryingProvider(adapter, max_attempts=max_attempts)


def _sdk_base_url(url: str, info: ProviderInfo) -> str:
    # The SDK appends the endpoint path itself; strip it so the call lands on exactly `url`.
    url = url.rstrip("/")
    for suffix in _ENDPOINT_SUFFIXES[info.family]:
        if url.endswith(suffix):
            return url[: -len(suffix)]
    return url


def _api_key(info: ProviderInfo, secrets: Mapping[str, str], env: Mapping[str, str]) -> str | None:
    for source in (secrets, env):
        for var in info.key_vars:
            value = source.get(var)
            if value:
                return value
    return None


def _missing_key(ref: ModelRef) -> NikaError:
    info = ref.info
    first, *others = info.key_vars
    also = f" (or {', '.join(others)})" if others else ""
    return NikaError(
        MISSING_API_KEY,
        f"model {str(ref)!r} needs an API key for the {info.id} provider and none is set: set "
        f"{first}{also} in the "
        f"engine environment or provide it through the workflow's secrets:; to reach a keyless "
        f"OpenAI-compatible server instead, set {info.base_url_var}",
        details={"provider": info.id, "key_vars": list(info.key_vars)},
    )
