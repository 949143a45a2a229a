"""Which models bill by the token.

The agent loop's usage-absence gate (`NIKA-AGENT-005`) needs one answer: if a provider reports
no token usage for this model, could spend be hiding? The provider prefix decides (providers
§Local vs cloud): `mock/…` is a test fixture and the five local prefixes run on the operator's
own machine, so nothing is billed per token; every other prefix — including ones this table has
never heard of — is treated as priced, so an unknown provider fails closed.
"""

from __future__ import annotations

from typing import Final

UNBILLED_PROVIDERS: Final = frozenset({"mock", "ollama", "lmstudio", "llamacpp", "localai", "vllm"})
"""Provider prefixes whose calls carry no per-token bill (test fixture + local servers)."""


def provider_of(model: str) -> str:
    """The provider prefix of a `<provider>/<name>` model id ('' when there is none)."""
    head, sep, _ = model.partition("/")
    return head if sep else ""


def is_priced(model: str) -> bool:
    """Does a call to `model` bill per token, so its usage must be reported?"""
    return provider_of(model) not in UNBILLED_PROVIDERS
