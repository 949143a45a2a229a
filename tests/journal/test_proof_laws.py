"""Spec 15's proof laws (`conformance/proof_core_selftest.py`), carried over as judgements of
THIS engine wherever a law judges an engine: the canonical form and the hash, domain
separation, the receipt, the untrusted decoder. (The eight `assert:` leveling laws judge a key
the language removed: what an engine owes there is to refuse the key, the last law below. The
lock laws are judged with `nika lock`, in tests/journal/test_lock.py.)"""

from __future__ import annotations

import json

import pytest
from tests.journal._workflows import BASE, emit, hash_of

from nika.check import check
from nika.journal.receipt import build as build_receipt
from nika.journal.receipt import digest_of
from nika.journal.semantic import domain_hash, jcs, parse_spelling, preimage
from nika.journal.untrusted import DecodeRefused, decode_untrusted

IR_A = {"workflow": "w", "tasks": {"a": {"verb": "exec", "cmd": ["echo", "x"]}}}
IR_B = {"workflow": "w", "tasks": {"a": {"verb": "exec", "cmd": ["echo", "y"]}}}


def _refused(data: str) -> str:
    with pytest.raises(DecodeRefused) as refused:
        decode_untrusted(data.encode("utf-8"))
    return refused.value.kind


# -- canonical + hash ---------------------------------------------------------------------------

def test_canonical_is_sorted_keys_no_spaces() -> None:
    assert jcs({"b": 1, "a": 2}) == b'{"a":2,"b":1}'


def test_canonical_is_idempotent() -> None:
    assert jcs(json.loads(jcs(IR_A))) == jcs(IR_A)


def test_semantically_different_irs_give_different_bytes_and_hashes() -> None:
    assert jcs(IR_A) != jcs(IR_B)
    assert domain_hash("semantic", IR_A) != domain_hash("semantic", IR_B)
    edited = emit({**BASE, "tasks": {**BASE["tasks"], "note": {"infer": {"prompt": "b"}}}})
    assert hash_of(emit(BASE)) != hash_of(edited)


def test_the_same_ir_gives_the_same_hash() -> None:
    assert domain_hash("semantic", IR_A) == domain_hash("semantic", dict(reversed(IR_A.items())))
    assert hash_of(emit(BASE)) == hash_of(emit(BASE))


# -- domain separation --------------------------------------------------------------------------

def test_same_bytes_in_another_domain_is_another_pre_image() -> None:
    assert preimage("semantic", IR_A) != preimage("trace", IR_A)


def test_an_unknown_domain_is_refused() -> None:
    with pytest.raises(ValueError, match="closed"):
        domain_hash("made-up", IR_A)


def test_the_format_version_is_in_the_pre_image() -> None:
    assert preimage("semantic", IR_A, 1) != preimage("semantic", IR_A, 2)
    assert domain_hash("semantic", IR_A, 1) != domain_hash("semantic", IR_A, 2)


# -- the one receipt ----------------------------------------------------------------------------

def test_the_receipt_proves_its_semantic_hash_and_digests_itself_in_its_domain() -> None:
    proves = domain_hash("semantic", IR_A)
    receipt = build_receipt(b"", {"attempts": 1}, proves)
    assert receipt["proves"] == proves and receipt["receipt_format"] == 1
    spelled = parse_spelling(receipt["digest"])
    assert spelled is not None and spelled.domain == "receipt"
    assert receipt["digest"] == digest_of(receipt) == domain_hash(
        "receipt", {k: v for k, v in receipt.items() if k != "digest"})


# -- the untrusted-decode fortress --------------------------------------------------------------

def test_a_golden_shaped_document_admits() -> None:
    doc = decode_untrusted(b'{"receipt_format": 1, "proves": "ab", "assertions": []}').value
    assert doc["receipt_format"] == 1


@pytest.mark.parametrize(("data", "cls"), [
    ('{"a": "' + "x" * (1024 * 1024) + '"}', "Oversized"),
    ("[" * 40 + "]" * 40, "TooDeep"),
    ('{"a": 1', "Malformed"),
    ('{"a": 1} trailing', "Malformed"),
    ('{"assertions": [' + ",".join(["1"] * 70) + "]}", "ProofFlood"),
    ('{"outer": {"inner": {"covers": [' + ",".join(["1"] * 70) + "]}}}", "ProofFlood"),
    ('{"digest": "' + "a" * 300 + '"}', "IdOverflow"),
    ('{"digest": "' + "é" * 200 + '"}', "IdOverflow"),  # bytes, not characters
], ids=["oversized", "too-deep", "truncated", "trailing", "flood", "nested-flood",
        "id-overflow", "id-bytes"])
def test_each_bound_refuses_with_its_class(data: str, cls: str) -> None:
    assert _refused(data) == cls


def test_brackets_inside_a_string_are_not_depth() -> None:
    doc = decode_untrusted(b'{"s": "' + b"[" * 34 + b'"}').value
    assert doc["s"].startswith("[")


def test_duplicate_keys_admit_last_wins() -> None:
    assert decode_untrusted(b'{"a": 1, "a": 2}').value["a"] == 2


def test_escape_bearing_strings_admit_at_decode() -> None:
    assert decode_untrusted(b'{"s": "a\\u001b]52;;x"}').value["s"] == "a\x1b]52;;x"


# -- assert: ------------------------------------------------------------------------------------

def test_an_assert_block_is_refused_not_silently_accepted() -> None:
    verdict = check("nika: x\nassert: [no_secret_egress]\ntasks:\n  a:\n"
                    "    exec: { shell: 'true' }\n")
    assert not verdict.valid and "assert" in verdict.errors[0].detail
