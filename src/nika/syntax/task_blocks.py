"""A task's optional blocks: `for_each:`, `retry:`, `on_error:` and `lift:` (spec 05 · 10).

Frozen dataclasses of the workflow model (`nika.syntax.model`), in a module of their own so
that a check of a document without them never builds their classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class ForEach:
    """`for_each:` — the collection (a literal list or one `${{ }}` string) and its knobs."""

    items: Any
    max_parallel: int | None = None
    fail_fast: bool = True


@dataclass(frozen=True, slots=True)
class Retry:
    """`retry:` — the attempt loop over transient errors (spec 05 §retry)."""

    max_attempts: int
    backoff_ms: int = 1000
    backoff_strategy: Literal["fixed", "linear", "exponential"] = "exponential"
    backoff_max_ms: int = 60000
    jitter: bool = True
    on_codes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OnError:
    """`on_error:` — exactly one action (`recover` or `skip`) plus an optional code filter."""

    action: Literal["recover", "skip"]
    recover: Any = None
    on_codes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Lift:
    """One `lift:` entry: an authored door on one named law."""

    law: Literal["taint", "data-as-code"]
    because: str
    from_: str | None = None
