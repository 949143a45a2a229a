"""Shared helper of the linter tests: the (rule, task) pairs a workflow draws."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from nika.check import check

Pairs = list[tuple[str, str]]


def _pairs(source: str, rule: str | None = None) -> Pairs:
    verdict = check(textwrap.dedent(source), lint=True)
    assert verdict.lints is not None
    return [(f.rule, f.task) for f in verdict.lints if rule is None or f.rule == rule]


@pytest.fixture
def lints() -> Callable[..., Pairs]:
    """`lints(yaml, rule=None)`: every (rule, task) the linter reports, in report order."""
    return _pairs
