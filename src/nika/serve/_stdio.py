"""The process's stdio, claimed for a protocol: the original stdin and stdout move to private
descriptors the server reads and writes, fd 0 reads the null device and fd 1 writes to stderr,
so nothing a handler (or a library it calls) prints can corrupt the wire."""

from __future__ import annotations

import os
import sys
from typing import IO


def claim() -> tuple[IO[bytes], IO[bytes]]:
    """The wire's input and output, unbuffered on the way out only by explicit flushes."""
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr  # a stray print goes to the log
    return inp, out
