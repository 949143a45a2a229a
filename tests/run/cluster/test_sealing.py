"""Sealing: a secret crosses the wire as its name and is unsealed with the other side's
own value of the same reference."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from nika.agent.observe import ToolsSelected
from nika.agent.seams import ToolFailure
from nika.errors import NikaError
from nika.run.cluster.sealing import Sealer, placeholder

DRIVER = Sealer({"token": "s3cr3t", "long": "s3cr3t-and-more"})


def test_every_occurrence_at_any_depth_is_sealed_and_no_value_survives() -> None:
    value = {"with": {"auth": "Bearer s3cr3t", "list": ["x s3cr3t-and-more y", b"s3cr3t"]},
             "s3cr3t": ("k", 1, None)}
    sealed = DRIVER.seal(value)
    assert b"s3cr3t" not in pickle.dumps(sealed)
    assert sealed["with"]["auth"] == f"Bearer {placeholder('token')}"
    assert sealed["with"]["list"][0] == f"x {placeholder('long')} y"  # longest first
    assert sealed["with"]["list"][1] == placeholder("token").encode()
    assert sealed[placeholder("token")] == ("k", 1, None)  # keys too; tuples stay tuples
    assert DRIVER.unseal(sealed) == value


def test_the_other_side_unseals_with_its_own_reading() -> None:
    worker = Sealer({"token": "worker-value"})
    assert worker.unseal(DRIVER.seal("curl -H 's3cr3t'")) == "curl -H 'worker-value'"
    # A placeholder for a secret this side does not know stays a name, never a guess.
    assert worker.unseal(placeholder("other")) == placeholder("other")


def test_typed_agent_events_are_sealed_field_by_field() -> None:
    event = ToolsSelected(seq=1, turn=1, offered=("nika:read", "s3cr3t"), universe=2,
                          by_source={"s3cr3t": 1}, mode="ranked")
    sealed = DRIVER.seal(event)
    assert isinstance(sealed, ToolsSelected) and "s3cr3t" not in repr(sealed)
    assert DRIVER.unseal(sealed) == event


def test_an_attempts_failure_crosses_as_one_typed_value_and_keeps_its_transience() -> None:
    # What a worker sends for a failed attempt (`("error", failure, notes)`): the driver
    # raises exactly the worker's error, its transience intact, no secret on the wire.
    error = NikaError("NIKA-EXEC-001", "curl -H 's3cr3t' failed", transient=True,
                      details={"argv": ["curl", "s3cr3t"]})
    wire = pickle.loads(pickle.dumps(DRIVER.seal(ToolFailure.of(error))))
    assert isinstance(wire, ToolFailure) and b"s3cr3t" not in pickle.dumps(wire)
    back = DRIVER.unseal(wire).to_error()
    assert back.to_dict() == error.to_dict()


def test_no_secrets_is_the_identity() -> None:
    value = {"a": [1, "x"]}
    assert Sealer({}).seal(value) is value and Sealer({}).unseal(value) is value


@given(st.recursive(st.text() | st.integers() | st.none(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_seal_then_unseal_is_the_identity(value: object) -> None:
    assert DRIVER.unseal(DRIVER.seal(value)) == value
