"""The one round trip both SDK adapters make for a `complete`.

Kept apart from `_wire` because it needs the SDK error types: the package itself and the
catalog must import without loading an SDK.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from nika.agent.seams import ModelRequest, ModelResponse
from nika.providers._errors import TRANSLATED, ErrorContext, translate
from nika.providers._wire import reverse_table, strip_prefix


async def round_trip(
    request: ModelRequest,
    base: ErrorContext,
    send: Callable[[str], Awaitable[object]],
    parse: Callable[[object, ErrorContext, dict[str, str]], ModelResponse],
) -> ModelResponse:
    """`send` the request under the provider-side model id, translate an SDK error (the
    context naming that model), and `parse` the raw reply with the request's alias table."""
    model = strip_prefix(request.model, base.provider)
    ctx = replace(base, model=model)
    try:
        raw = await send(model)
    except TRANSLATED as exc:
        raise translate(exc, ctx) from None
    return parse(raw, ctx, reverse_table(request))
