"""`nika:notify` — send an alert out (NOTIFY-001..002). This engine wires the `webhook`
channel (the one the 1.0 contract requires); slack/email/discord/sms answer NOTIFY-001.

The webhook payload is JSON `{message, severity, data?}` — JSON encoding is the injection
defense — and the target rides the same gated transport as `nika:fetch` (permits, SSRF floor).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.errors import NikaError
from nika.stdlib import CONTRACT
from nika.stdlib.net import NOTIFY
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._http import Outgoing, request


def _delivery_failed(detail: str, transient: bool, **details: Any) -> NikaError:
    return NikaError(
        codes.BUILTIN_NOTIFY_002,
        detail,
        category="network_error",
        transient=transient,
        details=details or None,
    )


async def run(args: Mapping[str, Any], ctx: Context) -> None:
    """POST the payload to the webhook; null on a 2xx answer."""
    channel = args["channel"]
    if channel != "webhook":
        raise fail(
            codes.BUILTIN_NOTIFY_001,
            f"`channel: {channel}` is not configured in this engine; use "
            "`channel: webhook` with the service's incoming-webhook URL",
            channel=channel,
        )
    payload: dict[str, Any] = {"message": args["message"], "severity": args.get("severity", "info")}
    if "data" in args:
        payload["data"] = args["data"]
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    try:
        response = await request(
            ctx, Outgoing("POST", args["target"], {"content-type": "application/json"}, body)
        )
    except NikaError as err:
        if err.category == "security_error" or err.code == CONTRACT:
            raise
        raise _delivery_failed(f"webhook delivery failed: {err.detail}", err.transient) from None
    if not 200 <= response.status < 300:
        status = response.status
        raise _delivery_failed(
            f"the webhook answered HTTP {status}; delivery failed",
            status >= 500 or status in (408, 429),
            status_code=status,
        )
    return None


BUILTIN = Builtin(
    NOTIFY,
    description=(
        "Send a notification. channel: webhook (POSTs JSON {message, severity, data?} to "
        "`target`); other channels are not configured in this engine. Returns null."
    ),
    run=run,
)
