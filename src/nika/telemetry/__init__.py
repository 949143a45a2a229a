"""Optional telemetry exporters (the `nika-engine[otel]` extra).

Nothing in the engine's core imports this package: `nika.telemetry.otel` needs
`opentelemetry-api`, and the CLI attaches it only when `otel_available()` says it can.
"""

from __future__ import annotations

import importlib.util


def otel_available() -> bool:
    """Is the OpenTelemetry API importable (the `nika-engine[otel]` extra installed)?"""
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except ModuleNotFoundError:  # no `opentelemetry` namespace at all
        return False
