"""`nika:hash` — content digests (blake3 · sha256 · sha512) and Ed25519 sign/verify (HASH-001).

`content` may be a string (UTF-8), bytes, or structured data (hashed as canonical compact
JSON, so the digest does not depend on key order). `verify` never fails on a bad signature: a
false verdict is data. The signing key must arrive as a `${{ secrets.X }}` value (the static
check enforces the spelling; here it is just the key). Content is capped at 32 MiB
(`NIKA-BUILTIN-HASH-002`); a digest of more than 1 MiB runs off the event loop.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Mapping
from typing import Any, Final

import blake3
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from nika import codes
from nika.stdlib.data import HASH
from nika.syntax.template import render_json
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import MIB, offload

_INLINE: Final = 1 << 20
"""Below this many bytes a digest is cheaper than a worker thread; above, it runs off-loop."""


def content_bytes(content: Any) -> bytes:
    """The bytes under the operation."""
    if isinstance(content, bytes | bytearray):
        return bytes(content)
    if isinstance(content, str):
        return content.encode("utf-8")
    return render_json(content).encode("utf-8")


def _encode(data: bytes, encoding: str) -> str:
    return data.hex() if encoding == "hex" else base64.b64encode(data).decode("ascii")


def _decode(text: str, encoding: str) -> bytes:
    """Raises ValueError on malformed input."""
    if encoding == "hex":
        return bytes.fromhex(text.strip())
    return base64.b64decode(text.strip(), validate=True)


def _key_bytes(text: str) -> bytes | None:
    for encoding in ("hex", "base64"):
        try:
            raw = _decode(text, encoding)
        except (ValueError, binascii.Error):
            continue
        if len(raw) == 32:
            return raw
    return None


def _key(text: str, from_pem: Callable[[bytes], object],
         from_raw: Callable[[bytes], object]) -> object:
    """The key `text` holds, as a PEM or as 32 raw bytes in hex/base64; else None (the
    caller judges its type: a PEM may hold a key of another algorithm)."""
    if "-----BEGIN" in text:
        try:
            return from_pem(text.encode())
        except (ValueError, TypeError):
            return None
    raw = _key_bytes(text)
    return None if raw is None else from_raw(raw)


def _private_key(text: str) -> Ed25519PrivateKey:
    key = _key(text, lambda pem: serialization.load_pem_private_key(pem, password=None),
               Ed25519PrivateKey.from_private_bytes)
    if not isinstance(key, Ed25519PrivateKey):  # the key is a secret: the detail never quotes it
        raise fail(
            codes.BUILTIN_HASH_001,
            "`key:` is not an Ed25519 private key; pass a PKCS#8 PEM or the "
            "32-byte seed in hex/base64 (e.g. from `nika key init`)",
        )
    return key


def _public_key(text: str) -> Ed25519PublicKey:
    key = _key(text, serialization.load_pem_public_key, Ed25519PublicKey.from_public_bytes)
    if not isinstance(key, Ed25519PublicKey):
        raise fail(
            codes.BUILTIN_HASH_001,
            f"`public_key: {text[:80]!r}` is not an Ed25519 public key; pass a "
            "PEM (SubjectPublicKeyInfo) or the 32 raw bytes in hex/base64",
        )
    return key


def digest(data: bytes, algo: str) -> bytes:
    """The raw digest of `data` under `algo`."""
    if algo == "blake3":
        return blake3.blake3(data).digest()
    return hashlib.new(algo, data).digest()


async def run(args: Mapping[str, Any], ctx: Context) -> str | bool:
    """Dispatch on `op:` (default `hash`)."""
    op = args.get("op", "hash")  # with the args it takes: its declaration judged them
    encoding = args.get("encoding", "hex")
    data = content_bytes(args["content"])
    if len(data) > ctx.max_file_bytes:
        raise fail(codes.BUILTIN_HASH_002, f"`content:` is {len(data)} bytes, over the "
                   f"{ctx.max_file_bytes // MIB} MiB cap; hash large files with `exec:` "
                   "(b3sum, sha256sum)", reason="too_large", cap_bytes=ctx.max_file_bytes)
    if op == "hash":
        algo = args.get("algo", "blake3")
        if len(data) < _INLINE:
            return _encode(digest(data, algo), encoding)
        return _encode(await offload(lambda stop: digest(data, algo)), encoding)
    if op == "sign":
        return _encode(_private_key(args["key"]).sign(data), encoding)
    public = _public_key(args["public_key"])
    try:
        public.verify(_decode(args["signature"], encoding), data)
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True


BUILTIN = Builtin(
    HASH,
    description=(
        "Hash `content` (string, bytes or JSON data; `algo` blake3 default | sha256 | sha512; "
        "`encoding` hex | base64), or with `op: sign` (Ed25519 `key`) / `op: verify` "
        "(`public_key`, `signature`; returns a boolean)."
    ),
    run=run,
)
