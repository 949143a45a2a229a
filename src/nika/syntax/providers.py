"""The provider table as data (stdlib/providers-v0.1): the 17 prefixes of `model: <provider>/...`.

Language data, not transport: it lives in `syntax` so the static checker reads `parse_model`
and `KNOWN_PROVIDERS` without depending on the provider adapters (or pulling in any SDK).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

from nika import codes
from nika.errors import NikaError

Family = Literal["openai_compat", "anthropic", "mock"]
ProviderKind = Literal["local", "cloud", "test"]

UNKNOWN_PROVIDER: Final = codes.PROVIDER_001
MISSING_API_KEY: Final = codes.PROVIDER_002

# Spec §Transport deadline: the default provider deadline per class when no `timeout:` is declared.
LOCAL_TIMEOUT_SECS: Final = 300.0
CLOUD_TIMEOUT_SECS: Final = 30.0


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """One catalog row.

    `base_url` is the SDK base URL (the SDK appends `/chat/completions` or `/v1/messages`).
    `key_vars` are the environment variables that may carry the API key, in lookup order;
    a local provider reads them when present and runs keyless otherwise.
    """

    id: str
    family: Family
    kind: ProviderKind
    base_url: str
    key_vars: tuple[str, ...] = ()

    @property
    def local(self) -> bool:
        """True for providers that need no key and cost nothing (the local servers and mock)."""
        return self.kind != "cloud"

    @property
    def base_url_var(self) -> str:
        """The engine-config override of the endpoint: `NIKA_<ID>_BASE_URL`."""
        return f"NIKA_{self.id.upper()}_BASE_URL"

    @property
    def default_timeout(self) -> float:
        return CLOUD_TIMEOUT_SECS if self.kind == "cloud" else LOCAL_TIMEOUT_SECS


def _row(
    id: str, family: Family, kind: ProviderKind, base_url: str, *vendor_vars: str
) -> ProviderInfo:
    # The scoped NIKA_<ID>_API_KEY is always read first (spec §The `openai` escape hatch).
    return ProviderInfo(id, family, kind, base_url, (f"NIKA_{id.upper()}_API_KEY", *vendor_vars))


_ROWS: Final = (
    _row("ollama", "openai_compat", "local", "http://localhost:11434/v1"),
    _row("lmstudio", "openai_compat", "local", "http://localhost:1234/v1"),
    _row("llamacpp", "openai_compat", "local", "http://localhost:8080/v1"),
    _row("localai", "openai_compat", "local", "http://localhost:8080/v1"),
    _row("vllm", "openai_compat", "local", "http://localhost:8000/v1"),
    _row("mistral", "openai_compat", "cloud", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    _row("anthropic", "anthropic", "cloud", "https://api.anthropic.com", "ANTHROPIC_API_KEY"),
    _row("openai", "openai_compat", "cloud", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    _row(
        "openrouter", "openai_compat", "cloud", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"
    ),
    _row("huggingface", "openai_compat", "cloud", "https://router.huggingface.co/v1", "HF_TOKEN"),
    _row(
        "nvidia", "openai_compat", "cloud", "https://integrate.api.nvidia.com/v1", "NVIDIA_API_KEY"
    ),
    _row("moonshot", "openai_compat", "cloud", "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"),
    _row("groq", "openai_compat", "cloud", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    _row("deepseek", "openai_compat", "cloud", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
    _row(
        "gemini",
        "openai_compat",
        "cloud",
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "GEMINI_API_KEY",
    ),
    _row("xai", "openai_compat", "cloud", "https://api.x.ai/v1", "XAI_API_KEY"),
    ProviderInfo("mock", "mock", "test", ""),
)

PROVIDERS: Final[Mapping[str, ProviderInfo]] = MappingProxyType({r.id: r for r in _ROWS})
"""Every canonical provider by prefix, in the page's presentation order."""

KNOWN_PROVIDERS: Final = frozenset(PROVIDERS)
"""The closed set of `model:` prefixes."""


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A parsed `model:` field: the provider prefix and the verbatim rest."""

    provider: str
    name: str

    @property
    def info(self) -> ProviderInfo:
        return PROVIDERS[self.provider]

    def __str__(self) -> str:
        return f"{self.provider}/{self.name}"


def parse_model(model: str) -> ModelRef:
    """Split `<provider>/<name>` at the FIRST slash; the name passes through verbatim.

    `openrouter/meta-llama/llama-3.1-70b-instruct` names model `meta-llama/llama-3.1-70b-instruct`
    on `openrouter`. An unknown prefix or a malformed field is `NIKA-PROVIDER-001`.
    """
    provider, sep, name = model.partition("/")
    known = ", ".join(PROVIDERS)
    if not sep or not provider or not name.strip():
        raise NikaError(
            UNKNOWN_PROVIDER,
            f"model {model!r} is not of the form <provider>/<name>; write e.g. "
            f"'ollama/qwen3.5:9b' with one of the known providers: {known}",
            details={"model": model},
        )
    if provider not in PROVIDERS:
        import difflib  # only a misspelt provider pays for it

        close = difflib.get_close_matches(provider, list(PROVIDERS), n=1)
        meant = f"did you mean '{close[0]}/{name}'? " if close else ""
        raise NikaError(
            UNKNOWN_PROVIDER,
            f"model {model!r} names unknown provider {provider!r}; {meant}the known providers are: "
            f"{known} (any other OpenAI-compatible server: use 'openai/<name>' with "
            "NIKA_OPENAI_BASE_URL set in the engine config)",
            details={"model": model, "provider": provider},
        )
    return ModelRef(provider, name)
