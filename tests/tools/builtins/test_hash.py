from __future__ import annotations

import base64
import hashlib

import blake3
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from nika.masking import Masker


async def test_hash_defaults_to_blake3_hex_and_hashes_data_canonically(make):
    ex = make()
    plain = await ex.call("nika:hash", {"content": "abc"})
    assert plain.structured == blake3.blake3(b"abc").hexdigest()
    a = await ex.call("nika:hash", {"content": {"b": 1, "a": 2}, "algo": "sha256"})
    b = await ex.call("nika:hash", {"content": {"a": 2, "b": 1}, "algo": "sha256"})
    assert a.structured == b.structured == hashlib.sha256(b'{"a":2,"b":1}').hexdigest()
    b64 = await ex.call("nika:hash", {"content": "abc", "algo": "sha512", "encoding": "base64"})
    assert base64.b64decode(b64.structured) == hashlib.sha512(b"abc").digest()


async def test_hash_sign_and_verify_roundtrip(make):
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes_raw().hex()
    public = key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    ex = make(masker=Masker([seed]))
    sig = await ex.call("nika:hash", {"op": "sign", "content": "manifest", "key": seed})
    assert not sig.is_error
    good = await ex.call(
        "nika:hash",
        {
            "op": "verify",
            "content": "manifest",
            "public_key": public.decode(),
            "signature": sig.structured,
        },
    )
    forged = await ex.call(
        "nika:hash",
        {
            "op": "verify",
            "content": "tampered",
            "public_key": public.decode(),
            "signature": sig.structured,
        },
    )
    garbage = await ex.call(
        "nika:hash",
        {"op": "verify", "content": "manifest", "public_key": public.decode(), "signature": "zz"},
    )
    assert good.structured is True and forged.structured is False
    assert garbage.structured is False and not garbage.is_error


async def test_hash_refusals_are_hash_001(make):
    ex = make()
    md5 = (await ex.call("nika:hash", {"content": "x", "algo": "md5"})).error
    no_key = (await ex.call("nika:hash", {"op": "sign", "content": "x"})).error
    stray = (await ex.call("nika:hash", {"content": "x", "signature": "ab"})).error
    bad_key = (
        await ex.call("nika:hash", {"op": "sign", "content": "x", "key": "s3cret-not-a-key"})
    ).error
    for err in (md5, no_key, stray, bad_key):
        assert err is not None and err.code == "NIKA-BUILTIN-HASH-001"
    assert bad_key is not None and "s3cret-not-a-key" not in bad_key.detail
