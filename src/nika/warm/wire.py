"""What the warm client and server share: where the socket lives, how a message is framed,
and which installation a server belongs to.

It imports only modules the interpreter has loaded before `main` runs (`os`, `sys`), so the
client pays nothing for it. A message is a list of byte fields: a 4-byte big-endian field
count, then each field as a 4-byte big-endian length and its bytes.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

PROTOCOL: Final = b"nika-warm/1"
"""The first field of every request; a server speaking another protocol answers `STALE`."""

OK: Final = b"ok"
STALE: Final = b"stale"
"""The server is not the one the client would run (another version, edited source): it
answers this, exits, and the client checks in-process and starts a fresh one."""
DECLINED: Final = b"declined"
"""The server could not answer this request (it cannot enter the client's directory, the
check raised): the client checks in-process."""

MAX_MESSAGE: Final = 256 << 20
"""No message is longer (a request carries the workflow when it comes on stdin)."""

MAX_STDIN: Final = (1 << 20) + 1
"""The most of standard input a client reads: one byte past the 1 MiB document cap, enough
for the check to refuse a longer workflow (`NIKA-YAML-010`) as the in-process CLI does."""

SWITCH: Final = "NIKA_CHECK_SERVER"
"""`1` makes every `nika check` use the warm server (as `--server` does)."""


def encode(fields: list[bytes]) -> bytes:
    """The framed message of `fields`."""
    parts = [len(fields).to_bytes(4, "big")]
    for field in fields:
        parts += (len(field).to_bytes(4, "big"), field)
    return b"".join(parts)


def decode(data: bytes) -> list[bytes] | None:
    """The fields of a framed message, or None when it is not exactly one well-formed one."""
    if len(data) < 4:
        return None
    count, at, fields = int.from_bytes(data[:4], "big"), 4, []
    for _ in range(count):
        if at + 4 > len(data):
            return None
        size = int.from_bytes(data[at:at + 4], "big")
        at += 4
        if at + size > len(data):
            return None
        fields.append(data[at:at + size])
        at += size
    return fields if at == len(data) else None


def runtime_dir(*, create: bool) -> str | None:
    """The per-user directory of the socket, or None when there is none safe to use.

    `$XDG_RUNTIME_DIR/nika`, else `$TMPDIR/nika-<uid>` (`/tmp` by default): a directory (not
    a link) owned by this user that no one else may enter (0700), made so when `create`.
    """
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(base):
        path = os.path.join(base, "nika")
    else:
        path = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"nika-{os.getuid()}")
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    private = st.st_uid == os.getuid() and st.st_mode & 0o077 == 0
    return path if private and (st.st_mode & 0o170000) == 0o040000 else None


def package_dir() -> str:
    """The directory of the installed `nika` package."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def installation() -> str:
    """This installation's name (the environment's prefix and the nika package's directory,
    however the interpreter was named): two virtualenvs of one user get two servers, never
    each other's."""
    return f"{sys.prefix}\0{package_dir()}"


def socket_name(directory: str) -> str:
    """The socket path of this installation's server in `directory`."""
    return os.path.join(directory, f"check-{_fnv(installation()):08x}.sock")


def _fnv(text: str) -> int:
    """FNV-1a (32 bits): a stable short name without importing a hash library."""
    value = 0x811C9DC5
    for byte in os.fsencode(text):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value
