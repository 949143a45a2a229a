"""What both SDK adapters share: the SDK client, its error context, and the one round trip a
`complete` makes.

Kept apart from `_wire` because it needs the SDK error types: the package itself and the
catalog must import without loading an SDK.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from nika.agent.seams import ModelRequest, ModelResponse
from nika.providers._errors import TRANSLATED, ErrorContext, translate
from nika.providers._wire import reverse_table, strip_prefix

Parse = Callable[[object, ErrorContext, dict[str, str]], ModelResponse]
"""The raw reply, the error context naming the model, the request's alias table → response."""


class SdkProvider:
    """A `Provider` over one SDK's async client (its own retries off: `RetryingProvider` is
    the one retry policy). A subclass says how to `_send` a request under the provider-side
    model id; `parse` reads the raw reply."""

    def __init__(self, ctx: ErrorContext, client: Any, parse: Parse) -> None:
        self._ctx, self._client, self._parse = ctx, client, parse

    async def aclose(self) -> None:
        """Close the SDK's HTTP connection pool."""
        await self._client.close()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send under the provider-side model id, translate an SDK error (the context naming
        that model), and parse the raw reply with the request's alias table."""
        model = strip_prefix(request.model, self._ctx.provider)
        ctx = replace(self._ctx, model=model)
        try:
            raw = await self._send(request, model)
        except TRANSLATED as exc:
            raise translate(exc, ctx) from None
        return self._parse(raw, ctx, reverse_table(request))

    def _send(self, request: ModelRequest, model: str) -> Awaitable[object]:
        raise NotImplementedError
