"""`NikaError` takes its category and transience from the one registry, and only from it."""

from __future__ import annotations

import pytest

from nika import codes
from nika.errors import NikaError


def test_an_unregistered_code_is_refused_not_filed_as_internal() -> None:
    for code in ("NIKA-NOPE-001", "NIKA-DAG-999", "nika-dag-004", ""):
        with pytest.raises(ValueError, match="has no row in nika.codes"):
            NikaError(code, "never emitted")


def test_a_registered_code_takes_its_row() -> None:
    err = NikaError(codes.BUILTIN_NOTIFY_002, "the webhook answered 503")
    assert (err.code, err.category, err.transient) == (
        "NIKA-BUILTIN-NOTIFY-002", "network_error", True)
    assert err.namespace == "NIKA-BUILTIN"
    assert str(err) == "NIKA-BUILTIN-NOTIFY-002: the webhook answered 503"


def test_the_engine_may_assess_what_the_spec_lets_it() -> None:
    err = NikaError(codes.BUILTIN_NOTIFY_002, "the webhook answered 400", transient=False)
    assert err.transient is False and err.category == "network_error"
    with pytest.raises(ValueError, match="unknown error category"):
        NikaError(codes.DAG_004, "x", category="oops")
